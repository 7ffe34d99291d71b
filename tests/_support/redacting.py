"""A custom type that validates from ``str`` and serializes itself as a redaction.

Its pydantic-core schema carries the serializer (no ``PlainSerializer`` in an
annotation, no ``model_serializer``): the firewall tests and the masking
properties both need a secret that only the declared type's own schema hides.
"""

from __future__ import annotations

from typing import Any

from pydantic_core import core_schema

__all__ = ["MASK", "SelfRedacting"]

MASK = "tok-***"


class SelfRedacting:
    """A value whose schema writes it as ``MASK``, whatever it holds."""

    def __init__(self, value: str) -> None:
        self.value = value

    @classmethod
    def __get_pydantic_core_schema__(cls, _source: Any, _handler: Any) -> Any:
        return core_schema.no_info_after_validator_function(
            cls,
            core_schema.str_schema(),
            serialization=core_schema.plain_serializer_function_ser_schema(lambda _v: MASK),
        )
