"""The sentences of a tool definition: written here for :class:`Tool`, read here by every client.

A tool with actions says three things in its definition, in words an agent
reads and our own readers parse back:

* its description names the parameter that selects the action
  (``Select operation via the `action` parameter.``);
* its description's ``Workflow:`` section has one line per action
  (``- 'get': One invoice. Requires: id [DESTRUCTIVE]``);
* each parameter's description ends with the actions that use it
  (``Required for: get, pay. For: list``, or ``(always required)``).

:class:`~fusion_core.Tool` writes them with the functions here, and the CLI,
the pytest fixtures, the contract tests and the strategies read them with
the functions here, so a reader cannot drift from the writer. The readers
take definitions from any server: a part of the wrong JSON type reads as
absent (no action, no note), never as an exception.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

__all__ = [
    "DEFAULT_DISCRIMINATOR",
    "action_lines",
    "actions_of",
    "discriminator_of",
    "effects_of",
    "requires_of",
    "select_sentence",
    "usage_note",
    "usage_of",
    "workflow_line",
]

_SELECT_HEAD: Final = "Select operation via the `"
_SELECT_TAIL: Final = "` parameter"
_SELECT_VIA: Final = re.compile(re.escape(_SELECT_HEAD) + "([^`]+)" + re.escape(_SELECT_TAIL))
_WORKFLOW_LINE: Final = re.compile(r"^- '([^']+)': (.*)$", re.MULTILINE)
_REQUIRES: Final = "Requires: "
_DESTRUCTIVE: Final = " [DESTRUCTIVE]"
# What follows "- 'key': " on a workflow line: "[description. ]Requires: a, b[ [DESTRUCTIVE]]".
_REQUIRES_PART: Final = re.compile(
    "(?:.*\\. )?" + re.escape(_REQUIRES) + "(.+?)(?:" + re.escape(_DESTRUCTIVE) + ")?"
)
_REQUIRED_FOR: Final = "Required for: "
_FOR: Final = "For: "
_ALWAYS: Final = "(always required)"
DEFAULT_DISCRIMINATOR: Final = "action"
"""The parameter a tool selects its action with unless its description names another."""


def select_sentence(discriminator: str) -> str:
    """``Select operation via the `action` parameter.``: how a description names it."""
    return f"{_SELECT_HEAD}{discriminator}{_SELECT_TAIL}."


def workflow_line(key: str, description: str, required: Sequence[str], destructive: bool) -> str:
    """``- 'key': description. Requires: a, b [DESTRUCTIVE]``, or ``""`` with nothing to say."""
    if not (description or required or destructive):
        return ""
    line = f"- '{key}': {description}"
    if required:
        line += (". " + _REQUIRES if description else _REQUIRES) + ", ".join(required)
    return line + (_DESTRUCTIVE if destructive else "")


def usage_note(users: Sequence[str], required_in: Sequence[str], *, always: bool) -> str:
    """The note ending a parameter's description: which actions require or accept it."""
    if always:
        return _ALWAYS
    if not required_in:
        return _FOR + ", ".join(users)
    note = _REQUIRED_FOR + ", ".join(required_in)
    optional = [key for key in users if key not in required_in]
    return note + (". " + _FOR + ", ".join(optional) if optional else "")


def usage_of(description: object) -> tuple[set[str], set[str]] | None:
    """The actions a parameter is required for and optional for, from its note.

    ``None`` when the description has no such note (a foreign server's, or a
    parameter every action needs).
    """
    needed: set[str] = set()
    optional: set[str] = set()
    text = description if isinstance(description, str) else ""
    for part in reversed(text.split(". ")):
        if part.startswith(_REQUIRED_FOR):
            needed.update(part.removeprefix(_REQUIRED_FOR).split(", "))
        elif part.startswith(_FOR):
            optional.update(part.removeprefix(_FOR).split(", "))
        else:
            break
    return (needed, optional) if needed or optional else None


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _description(definition: Mapping[str, Any]) -> str:
    description = definition.get("description")
    return description if isinstance(description, str) else ""


def discriminator_of(definition: Mapping[str, Any]) -> str | None:
    """The parameter selecting a tool's action, or ``None`` when it has none.

    The one the description names (:func:`select_sentence`), else ``action``
    — if it is a required string property whose ``enum`` lists at least one
    string. Anything else (a schema that is not an object, ``required`` that
    is not a list, an ``enum`` that is not a list) is a tool without actions.
    """
    schema = _mapping(_mapping(definition).get("inputSchema"))
    named = _SELECT_VIA.search(_description(_mapping(definition)))
    field = named.group(1) if named else DEFAULT_DISCRIMINATOR
    prop = _mapping(_mapping(schema.get("properties")).get(field))
    required = schema.get("required")
    enum = prop.get("enum")
    if not (
        prop.get("type") == "string"
        and isinstance(enum, list)
        and any(isinstance(action, str) for action in enum)
        and isinstance(required, list)
        and field in required
    ):
        return None
    return field


def actions_of(definition: Mapping[str, Any]) -> list[str | None]:
    """The tool's action names (its enum's strings, in order), or ``[None]`` without actions."""
    field = discriminator_of(definition)
    if field is None:
        return [None]
    enum = definition["inputSchema"]["properties"][field]["enum"]
    return [action for action in enum if isinstance(action, str)]


def action_lines(definition: Mapping[str, Any]) -> dict[str, str]:
    """Each action's line of the ``Workflow:`` section (what follows ``- 'key': ``)."""
    return dict(_WORKFLOW_LINE.findall(_description(_mapping(definition))))


def requires_of(definition: Mapping[str, Any]) -> dict[str, list[str]]:
    """The parameters each action's workflow line says it requires (``Requires: a, b``)."""
    lines = action_lines(definition).items()
    return {
        key: found.group(1).split(", ")
        for key, line in lines
        if (found := _REQUIRES_PART.fullmatch(line)) is not None
    }


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
