"""Tool definitions: one grammar, written by Tool and read back by the CLI, fixtures and strategies.

The readers take definitions from any server, so a hostile table covers
each part of a definition in every wrong JSON type: a tool whose selecting
parameter cannot be read has no actions, and nothing raises.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from fusion_core import Tool
from fusion_core._tools._definitions import (
    DEFAULT_DISCRIMINATOR,
    action_lines,
    actions_of,
    discriminator_of,
    requires_of,
    select_sentence,
    usage_note,
    usage_of,
)


class _Get(BaseModel):
    id: int


class _List(BaseModel):
    id: int | None = None
    status: str | None = None


def _invoices(discriminator: str = DEFAULT_DISCRIMINATOR) -> dict[str, Any]:
    tool = Tool("invoices", description="Invoices", discriminator=discriminator)
    tool.action("list", lambda p: [], params=_List, description="Every invoice")
    tool.action("get", lambda p: {}, params=_Get, description="One invoice")
    tool.action("void", lambda: None, description="Cancel it", destructive=True)
    definition: dict[str, Any] = tool.definition()
    return definition


@pytest.mark.parametrize("discriminator", ["action", "op"])
def test_the_readers_read_what_the_tool_wrote(discriminator: str) -> None:
    """Discriminator, actions, workflow lines and usage notes read back as written."""
    definition = _invoices(discriminator)
    assert select_sentence(discriminator) in definition["description"]
    assert discriminator_of(definition) == discriminator
    assert actions_of(definition) == ["list", "get", "void"]
    assert action_lines(definition) == {
        "list": "Every invoice",
        "get": "One invoice. Requires: id",
        "void": "Cancel it [DESTRUCTIVE]",
    }
    assert requires_of(definition) == {"get": ["id"]}
    properties = definition["inputSchema"]["properties"]
    assert usage_of(properties["id"]["description"]) == ({"get"}, {"list"})
    assert usage_of(properties["status"]["description"]) == (set(), {"list"})


@pytest.mark.parametrize(
    ("users", "required_in", "always", "note"),
    [
        (["a", "b"], ["a"], False, "Required for: a. For: b"),
        (["a", "b"], ["a", "b"], False, "Required for: a, b"),
        (["a"], [], False, "For: a"),
        (["a", "b"], ["a", "b"], True, "(always required)"),
    ],
)
def test_usage_notes_read_back(
    users: list[str], required_in: list[str], always: bool, note: str
) -> None:
    """Each note the writer makes is read back as its two sets (the always note as none)."""
    assert usage_note(users, required_in, always=always) == note
    expected = None if always else (set(required_in), set(users) - set(required_in))
    assert usage_of(f"The thing. {note}") == expected


def _with(**changes: Any) -> dict[str, Any]:
    """A well-formed definition of a tool with actions, with some parts replaced."""
    definition: dict[str, Any] = {
        "name": "t",
        "description": f"T. {select_sentence('action')}",
        "inputSchema": {
            "type": "object",
            "properties": {"action": {"type": "string", "enum": ["get", "list"]}},
            "required": ["action"],
        },
    }
    schema = definition["inputSchema"]
    for where, value in changes.items():
        if where == "schema":
            definition["inputSchema"] = value
        elif where in ("properties", "required"):
            schema[where] = value
        elif where == "prop":
            schema["properties"]["action"] = value
        else:
            definition[where] = value
    return definition


# A part of the definition in a JSON type it cannot have, or naming what is not there.
HOSTILE_DEFINITIONS: dict[str, dict[str, Any]] = {
    "schema-list": _with(schema=[{"properties": {}}]),
    "schema-string": _with(schema="object"),
    "schema-null": _with(schema=None),
    "schema-number": _with(schema=3),
    "properties-list": _with(properties=[{"action": {"type": "string"}}]),
    "properties-null": _with(properties=None),
    "property-string": _with(prop="action"),
    "property-list": _with(prop=["get"]),
    "required-substring": _with(required="xaction"),
    "required-object": _with(required={"action": True}),
    "required-missing": _with(required=[]),
    "required-null": _with(required=None),
    "enum-string": _with(prop={"type": "string", "enum": "get"}),
    "enum-object": _with(prop={"type": "string", "enum": {"get": 1}}),
    "enum-empty": _with(prop={"type": "string", "enum": []}),
    "enum-no-strings": _with(prop={"type": "string", "enum": [1, None, True]}),
    "type-not-string": _with(prop={"type": ["string"], "enum": ["get"]}),
    "names-a-missing-field": _with(description=f"T. {select_sentence('op')}"),
    "definition-not-a-mapping": ["t"],  # type: ignore[dict-item]
}


@pytest.mark.parametrize("definition", HOSTILE_DEFINITIONS.values(), ids=HOSTILE_DEFINITIONS)
def test_a_definition_that_cannot_be_read_has_no_actions(definition: Any) -> None:
    """No discriminator, the one ``None`` action, no workflow lines, and no exception."""
    assert discriminator_of(definition) is None
    assert actions_of(definition) == [None]
    assert isinstance(action_lines(definition), dict)
    assert isinstance(requires_of(definition), dict)


def test_the_well_formed_row_is_read() -> None:
    """The definition the hostile rows change is itself read (so each row tests its change)."""
    assert actions_of(_with()) == ["get", "list"]
    # A description that is not text names no parameter: the default one is read.
    assert actions_of(_with(description=["Select operation via the `op` parameter"])) == [
        "get",
        "list",
    ]


@pytest.mark.parametrize("description", [None, 3, ["Required for: a"], "", "Plain text."])
def test_a_description_without_a_note_has_no_usage(description: object) -> None:
    """A foreign parameter description (any JSON) has no usage note."""
    assert usage_of(description) is None


def test_the_cli_reads_definitions_as_the_plugin_does(tmp_path: Path) -> None:
    """``fusion list`` of a tool whose action enum is not required shows no actions."""
    (tmp_path / "foreign_app.py").write_text(
        "class App:\n"
        "    def definitions(self):\n"
        "        return [\n"
        "            {'name': 'loose', 'description': 'Loose. Select operation via the `action`"
        " parameter.',\n"
        "             'inputSchema': {'type': 'object', 'properties': {'action': {'type': 'string',"
        " 'enum': ['get', 'list']}}}},\n"
        "        ]\n"
        "    async def call(self, name, arguments, ctx=None):\n"
        "        return {'content': [{'type': 'text', 'text': 'x'}]}\n"
        "app = App()\n",
        encoding="utf-8",
    )
    run = subprocess.run(
        [sys.executable, "-m", "fusion_core", "list", "foreign_app:app"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    rows = [line.split(None, 2) for line in run.stdout.splitlines()[1:]]
    assert [row[:2] for row in rows] == [["loose", "-"]]
