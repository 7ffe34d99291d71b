"""What must never reach the wire, and names that must exist: egress checks per result.

A server not written with fusion_core has no Presenter schema the contract
tests can hold its data against. Users declare instead what must never leave
it — field names (``password``, ``internal_cost``) and canary values (a
planted ``CANARY-7f3a`` row) — in the ini file (``fusion_forbidden_fields``,
``fusion_canaries``) or through the ``pytest_fusion_forbidden_fields`` and
``pytest_fusion_canaries`` hooks. :class:`Forbidden` scans every block of
every result: JSON keys of the data block and ``structuredContent``, key-like
uses of the name in every other block (``name:``, ``"name":``, a TOON header
field), and each canary anywhere: raw, JSON-escaped, or behind any XML/HTML
character reference.

:func:`unknown_references` checks the names a result points the agent to —
suggested tools and an error's ``available_actions`` — against ``tools/list``:
a suggestion of a tool that does not exist sends the agent into an error.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from fusion_core._tools._definitions import actions_of

if TYPE_CHECKING:
    from pytest_mcpfusion._result import FusionResult

__all__ = ["Forbidden", "unknown_references"]


@dataclass(frozen=True, slots=True)
class Forbidden:
    """Forbidden field names and canary values; :meth:`scan` finds them in a result."""

    fields: frozenset[str]
    values: tuple[str, ...]

    @classmethod
    def of(cls, fields: Iterable[str], values: Iterable[str]) -> Forbidden:
        """Drop empty entries (an ini line list may hold blank lines)."""
        return cls(
            frozenset(name for name in fields if name),
            tuple(dict.fromkeys(value for value in values if value)),
        )

    def __bool__(self) -> bool:
        return bool(self.fields or self.values)

    def scan(self, result: FusionResult) -> list[str]:
        """One message per forbidden field or canary found, naming the block."""
        found: list[str] = []
        if self.fields:
            found.extend(self._fields(result))
        texts = [_readings(text) for text in result.content]
        for value in self.values:
            forms = {value, json.dumps(value, ensure_ascii=False)[1:-1]}
            for index, readings in enumerate(texts):
                if any(form in text for form in forms for text in readings):
                    found.append(f"block {index}: the canary value {value!r} reached the wire")
            structured = result.structured_content
            if structured is not None and any(form in _dump(structured) for form in forms):
                found.append(f"structuredContent: the canary value {value!r} reached the wire")
        return found

    def _fields(self, result: FusionResult) -> list[str]:
        found: list[str] = []
        view = result.view  # a bare error's text is data here: it is scanned all the same
        if result.content and view.error is None and view.validation is None:
            found.extend(f"block 0 (data): {hit}" for hit in _keys(view.data, self.fields))
        if result.structured_content is not None:
            found.extend(
                f"structuredContent: {hit}" for hit in _keys(result.structured_content, self.fields)
            )
        pattern = _key_pattern(self.fields)
        data_is_json = not isinstance(view.data, str)
        for index, text in enumerate(result.content):
            if index == 0 and data_is_json and view.error is None:
                continue  # the data block's JSON keys were walked above
            match = pattern.search(text)
            if match is not None:
                name = match.group("q") or match.group("b") or match.group("t")
                found.append(
                    f"block {index}: the forbidden field {name!r} reached the wire as a key"
                )
        return found


# JSON's scalars, skipped by their exact type before the ``Mapping`` check: an
# ABC ``isinstance`` on every string and number was three quarters of the walk
# (11 ms for 1,000 invoice rows, 4x ``check()``; subclasses still take the check).
_LEAVES: Final = frozenset({str, int, float, bool, type(None)})


def _keys(value: Any, fields: frozenset[str]) -> list[str]:
    """Every forbidden key in ``value`` with its JSON path; paths are built only for hits."""
    found: list[str] = []
    # (value, parent index, step): a path is rebuilt from the parents on a hit.
    nodes: list[tuple[Any, int, str]] = [(value, -1, "$")]
    position = 0
    while position < len(nodes):
        current = nodes[position][0]
        if isinstance(current, Mapping):
            if not fields.isdisjoint(current):
                found.extend(
                    f"the forbidden field {key!r} reached the wire at "
                    f"{_path(nodes, position)}.{key}"
                    for key in current
                    if key in fields
                )
            nodes.extend(
                (item, position, f".{key}")
                for key, item in current.items()
                if type(item) not in _LEAVES and isinstance(item, Mapping | list)
            )
        elif isinstance(current, list):
            nodes.extend(
                (item, position, f"[{index}]")
                for index, item in enumerate(current)
                if type(item) not in _LEAVES and isinstance(item, Mapping | list)
            )
        position += 1
    return found


def _path(nodes: list[tuple[Any, int, str]], position: int) -> str:
    steps: list[str] = []
    while position >= 0:
        _, parent, step = nodes[position]
        steps.append(step)
        position = parent
    return "".join(reversed(steps))


def _key_pattern(fields: frozenset[str]) -> re.Pattern[str]:
    names = "|".join(re.escape(name) for name in sorted(fields, key=len, reverse=True))
    return re.compile(
        rf'"(?P<q>{names})"\s*:'  # a JSON key
        rf"|(?<![\w.-])(?P<b>{names})\s*[:=](?!//)"  # name: value, name=value
        rf"|(?<=[{{,|\t])(?P<t>{names})(?=[}},|\t])"  # a TOON header field
    )


def _readings(text: str) -> tuple[str, ...]:
    """The text, and the text with XML/HTML references resolved (any escaping of a canary)."""
    return (text, html.unescape(text)) if "&" in text else (text,)


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def unknown_references(result: FusionResult, definitions: Sequence[Mapping[str, Any]]) -> list[str]:
    """Suggested tools and available actions of ``result`` that ``tools/list`` lacks."""
    tools = {definition["name"]: definition for definition in definitions}
    names = ", ".join(sorted(tools)) or "none"
    found = [
        f"the suggestion names {suggestion.tool!r}, which is not a tool (or tool.action) "
        f"in tools/list ({names})"
        for suggestion in result.suggestions
        if not _names_a_tool(suggestion.tool, tools)
    ]
    error = result.view.error
    if error is not None and error.available_actions:
        definition = tools.get(result.tool)
        allowed = (
            {action for action in actions_of(definition) if action is not None}
            if definition is not None
            else set(tools)
        )
        for action in error.available_actions:
            bare = action.removeprefix(f"{result.tool}.")
            if action not in allowed and bare not in allowed and action not in tools:
                found.append(
                    f"available_actions lists {action!r}, which {result.tool!r} does not have "
                    f"in tools/list ({', '.join(sorted(allowed)) or 'no actions'})"
                )
    return found


def _names_a_tool(name: str, tools: Mapping[str, Mapping[str, Any]]) -> bool:
    if name in tools:
        return True
    for tool, definition in tools.items():
        if name.startswith(tool + "."):
            action = name[len(tool) + 1 :]
            if action in actions_of(definition):
                return True
    return False
