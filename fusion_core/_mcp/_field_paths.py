"""Where a framework's argument validation failed, named without the data sent.

pydantic's error location mixes what the schema declares (argument and
field names, list positions, a union's branch label) with what the caller
sent: the keys of a ``dict`` argument (``meta.sk-live-...``). The
``<validation_error>`` the integrations write never quotes a value sent, so
:func:`declared_path` walks the location along the tool's published input
schema (JSON Schema, as ``tools/list`` has it) and shows a part only where
the schema declares it; a key of a mapping, or anything the walk cannot
place, is ``*``.

Written here rather than with a JSON Schema library: no validator answers
"which part of this pydantic location is a declared name", and the walk is
the one question asked (properties, items, ``$ref``, ``anyOf``/``oneOf``,
``additionalProperties``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

__all__ = ["declared_path"]

_REF_DEPTH: Final = 32  # $ref hops followed before giving up on a node
_MARKERS: Final = frozenset({"[key]"})
"""pydantic's own parts (a mapping key that failed its own validation)."""
_LABELS: Final = {
    "int": "integer",
    "float": "number",
    "str": "string",
    "bool": "boolean",
    "none": "null",
}


def declared_path(loc: Sequence[int | str], schema: Mapping[str, Any] | None) -> str:
    """``loc`` dotted, each part the schema does not declare as ``*``; ``(root)`` when empty."""
    definitions = _definitions(schema)
    node: Mapping[str, Any] | None = schema
    parts: list[str] = []
    for part in loc:
        node = _plain(node, definitions)
        if isinstance(part, int):
            parts.append(str(part))
            node = _child(node, "items", "prefixItems")
            continue
        properties = _properties(node, definitions)
        if part in properties:
            parts.append(part)
            node = properties[part]
            continue
        branches = _branches(node, definitions)
        if len(branches) > 1:  # pydantic names the branch it tried: a label, not data
            parts.append(part)
            node = _branch(branches, part, definitions)
            continue
        parts.append(part if part in _MARKERS else "*")
        node = _child(node, "additionalProperties", "patternProperties")
    return ".".join(parts) or "(root)"


def _definitions(schema: Mapping[str, Any] | None) -> Mapping[str, Any]:
    if not isinstance(schema, Mapping):
        return {}
    found: dict[str, Any] = {}
    for key in ("definitions", "$defs"):
        table = schema.get(key)
        if isinstance(table, Mapping):
            found.update({f"#/{key}/{name}": value for name, value in table.items()})
    return found


def _resolved(node: Any, definitions: Mapping[str, Any]) -> Mapping[str, Any] | None:
    for _ in range(_REF_DEPTH):
        if not isinstance(node, Mapping):
            return None
        reference = node.get("$ref")
        if not isinstance(reference, str):
            return node
        node = definitions.get(reference)
    return None


def _plain(node: Any, definitions: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """``node`` resolved, an optional value (``X | None``: no branch label) as ``X``."""
    resolved = _resolved(node, definitions)
    for _ in range(_REF_DEPTH):
        branches = _branches(resolved, definitions)
        if resolved is None or len(branches) != 1 or "properties" in resolved:
            return resolved
        resolved = branches[0]
    return resolved


def _branches(node: Mapping[str, Any] | None, definitions: Mapping[str, Any]) -> list[Any]:
    """The alternatives of a union, ``null`` left out, each resolved."""
    if node is None:
        return []
    found: list[Any] = []
    for key in ("anyOf", "oneOf"):
        choices = node.get(key)
        if isinstance(choices, list):
            for choice in choices:
                resolved = _resolved(choice, definitions)
                if resolved is not None and resolved.get("type") != "null":
                    found.append(resolved)
    return found


def _properties(
    node: Mapping[str, Any] | None, definitions: Mapping[str, Any], depth: int = 0
) -> dict[str, Any]:
    """The properties ``node`` declares, its ``allOf`` parts' too (a cycle ends at the bound)."""
    if node is None or depth > _REF_DEPTH:
        return {}
    found: dict[str, Any] = {}
    own = node.get("properties")
    if isinstance(own, Mapping):
        found.update({key: value for key, value in own.items() if isinstance(key, str)})
    parts = node.get("allOf")
    for part in parts if isinstance(parts, list) else ():
        found.update(_properties(_resolved(part, definitions), definitions, depth + 1))
    return found


def _child(node: Mapping[str, Any] | None, one: str, many: str) -> Any:
    """The schema of ``node``'s members: under ``one``, else any of those under ``many``.

    ``items`` / ``prefixItems`` for a list's positions, ``additionalProperties`` /
    ``patternProperties`` for a mapping's values (its keys are data).
    """
    if node is None:
        return None
    single = node.get(one)
    if isinstance(single, Mapping):
        return single
    several = node.get(many)
    if isinstance(several, Mapping):
        several = list(several.values())
    return {"anyOf": several} if isinstance(several, list) and several else None


def _branch(branches: list[Any], label: str, definitions: Mapping[str, Any]) -> Any:
    """The branch pydantic's ``label`` names (a model's title, a tag, a JSON type), if one."""
    for branch in branches:
        if branch.get("title") == label or branch.get("type") == _LABELS.get(label):
            return branch
        for value in _properties(branch, definitions).values():
            resolved = _resolved(value, definitions)
            if resolved is None:
                continue
            if label == resolved.get("const") or label in (resolved.get("enum") or ()):
                return branch
    return None
