"""Reading MCP tool definitions: which parameter selects the action, and the actions.

Shared by the fixtures, the contract tests and the strategies; it needs
neither pytest nor hypothesis.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

__all__ = ["actions_of", "discriminator_of"]

_SELECT_VIA: Final = re.compile(r"Select operation via the `([^`]+)` parameter")


def discriminator_of(definition: Mapping[str, Any]) -> str | None:
    """The parameter selecting a tool's action, or ``None`` when it has none.

    The one the description names ("Select operation via the `x` parameter"),
    else ``action`` — if it is a required string property with an ``enum``.
    """
    schema: Mapping[str, Any] = definition.get("inputSchema") or {}
    named = _SELECT_VIA.search(str(definition.get("description") or ""))
    field = named.group(1) if named else "action"
    prop = schema.get("properties", {}).get(field)
    if not (
        isinstance(prop, Mapping)
        and prop.get("type") == "string"
        and prop.get("enum")
        and field in schema.get("required", ())
    ):
        return None
    return field


def actions_of(definition: Mapping[str, Any]) -> list[str | None]:
    """The tool's action names, or ``[None]`` for a tool without actions."""
    field = discriminator_of(definition)
    if field is None:
        return [None]
    enum = definition["inputSchema"]["properties"][field]["enum"]
    return [action for action in enum if isinstance(action, str)]
