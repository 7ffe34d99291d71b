"""Reading MCP tool definitions: which parameter selects the action, the actions, the effects.

Shared by the fixtures, the contract tests and the strategies; it needs
neither pytest nor hypothesis.

:func:`effects_of` reads a tool's MCP annotations (``readOnlyHint``,
``destructiveHint``, ``openWorldHint``) for what a call may change: a tool
that does not say it is read-only is one that may write, as the MCP
specification's defaults say (``readOnlyHint`` defaults to false).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

__all__ = ["actions_of", "discriminator_of", "effects_of"]

_SELECT_VIA: Final = re.compile(r"Select operation via the `([^`]+)` parameter")


def discriminator_of(definition: Mapping[str, Any]) -> str | None:
    """The parameter selecting a tool's action, or ``None`` when it has none.

    The one the description names ("Select operation via the `x` parameter"),
    else ``action`` — if it is a required string property with an ``enum``.
    """
    schema = definition.get("inputSchema")
    if not isinstance(schema, Mapping):  # a malformed definition selects nothing
        return None
    named = _SELECT_VIA.search(str(definition.get("description") or ""))
    field = named.group(1) if named else "action"
    properties = schema.get("properties")
    prop = properties.get(field) if isinstance(properties, Mapping) else None
    if not (
        isinstance(prop, Mapping)
        and prop.get("type") == "string"
        and prop.get("enum")
        and isinstance(schema.get("required"), list | tuple)
        and field in schema["required"]
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


def effects_of(definition: Mapping[str, Any]) -> str | None:
    """Why a call of the tool may change the world, from its annotations; ``None`` if it cannot.

    A tool changes nothing only when it says so: ``readOnlyHint: true``, and
    neither ``destructiveHint: true`` (which contradicts it) nor
    ``openWorldHint: true`` (it reaches hosts outside the server, as a fetch
    tool does: a generated URL is a request to a host nobody chose). Missing
    or malformed annotations, or ``readOnlyHint`` absent or false, mean it
    may write.
    """
    annotations = definition.get("annotations")
    if not isinstance(annotations, Mapping):
        return "its annotations do not say it is read-only (no readOnlyHint)"
    read_only = annotations.get("readOnlyHint")
    if annotations.get("destructiveHint") is True:
        return "its annotations say destructiveHint: true"
    if read_only is not True:
        shown = "absent" if read_only is None else _shown(read_only)
        return f"its annotations do not say it is read-only (readOnlyHint: {shown})"
    if annotations.get("openWorldHint") is True:
        return "its annotations say openWorldHint: true (it reaches hosts outside the server)"
    return None


def _shown(value: object) -> str:
    """A hint's value as JSON writes it (``false``), or its repr, shortened."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return f"{value!r:.40}"
