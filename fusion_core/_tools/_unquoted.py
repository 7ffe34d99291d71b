"""pydantic's validation messages without the parts of the input they quote.

A framework's argument validation (``use_fusion`` on an ``MCPServer`` or a
FastMCP server) is answered with field names and pydantic's messages, never
the values sent. Most of pydantic's messages quote only the schema (limits,
patterns, expected literals), but some put part of the input in: the tag of
a discriminated union (``Input tag 'x' found using 'kind' ...``), the
character a UUID failed at (``found `N` at 2``), a timezone sent, a parser's
account of what it read, or the ``repr`` of a Python error; and pydantic's own
validators, some of whose messages quote the time zone, byte unit, module
path or email address sent. Those error
types are written here from their context without it, so a message depends
on the field and the reason, never on the input (a count such as ``not 3``
aside); every other message is pydantic's as is.

A validator's own message (``value_error``, ``assertion_error``, a
``PydanticCustomError``) is its author's words, the way a tool tells the
model what to fix: it is sent as written, quoting a value only if its author
wrote one in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

__all__ = ["message_without_input"]


def _tag(ctx: Mapping[str, Any]) -> str:
    return (
        f"Input tag found using {ctx.get('discriminator')} does not match any of the "
        f"expected tags: {ctx.get('expected_tags')}"
    )


def _offset(ctx: Mapping[str, Any]) -> str:
    return f"Timezone offset of {ctx.get('tz_expected')} required"


# pydantic-core 2.x's error types whose context carries some of the input: a
# tag, an offset, an attribute, or a parser's account of what it read ("input
# is too short", "found `N` at 2", "Invalid symbol 81, offset 0"). Each is
# written from the rest of its context; a test holds this table to the
# templates of the installed pydantic-core.
_WITHOUT_INPUT: Final[dict[str, Callable[[Mapping[str, Any]], str]]] = {
    "union_tag_invalid": _tag,
    "timezone_offset": _offset,
    "no_such_attribute": lambda _: "Object has no such attribute",
    "json_invalid": lambda _: "Invalid JSON",
    "get_attribute_error": lambda _: "Error extracting attribute",
    "iteration_error": lambda _: "Error iterating over object",
    "mapping_type": lambda _: "Input should be a valid mapping",
    "bytes_invalid_encoding": lambda ctx: f"Data should be valid {ctx.get('encoding')}",
    "date_parsing": lambda _: "Input should be a valid date in the format YYYY-MM-DD",
    "date_from_datetime_parsing": lambda _: "Input should be a valid date or datetime",
    "time_parsing": lambda _: "Input should be in a valid time format",
    "datetime_parsing": lambda _: "Input should be a valid datetime",
    "datetime_object_invalid": lambda _: "Invalid datetime object",
    "datetime_from_date_parsing": lambda _: "Input should be a valid datetime or date",
    "time_delta_parsing": lambda _: "Input should be a valid timedelta",
    "url_parsing": lambda _: "Input should be a valid URL",
    "url_syntax_violation": lambda _: "Input violated strict URL syntax rules",
    "uuid_parsing": lambda _: "Input should be a valid UUID",
}


# pydantic's own validators (its Python side, not pydantic-core) that raise a
# PydanticCustomError with some of the input in its context: the time zone
# sent, the byte unit read, the module path tried, the card brand its digits
# name. Another test holds this table to the installed pydantic's source.
_PYDANTIC_WITHOUT_INPUT: Final[dict[str, Callable[[Mapping[str, Any]], str]]] = {
    "zoneinfo_str": lambda _: "invalid timezone",
    "byte_size_unit": lambda _: "could not interpret byte unit",
    "import_error": lambda _: "Invalid python path",
    "payment_card_number_brand": lambda _: "Length is not valid for the card's brand",
}
_EMAIL: Final = "value is not a valid email address: "
"""pydantic's ``EmailStr`` message: a ``value_error`` whose ``reason`` (the email
validator's account of the address) quotes characters of it."""


def message_without_input(detail: Mapping[str, Any]) -> str:
    """The message of one of ``ValidationError.errors()``, quoting nothing that was sent."""
    kind = detail["type"]
    written = _WITHOUT_INPUT.get(kind) or _PYDANTIC_WITHOUT_INPUT.get(kind)
    if written is not None:
        return written(detail.get("ctx") or {})
    message: str = detail["msg"]
    context = detail.get("ctx") or {}
    # pydantic's own (its context is the reason), not a validator's ValueError.
    if kind == "value_error" and message.startswith(_EMAIL) and set(context) == {"reason"}:
        return _EMAIL.removesuffix(": ")
    return message
