"""What a tool definition's MCP annotations say a call may change (``effects_of``)."""

from __future__ import annotations

from typing import Any

import pytest

from fusion_core._tools._definitions import actions_of, discriminator_of, effects_of


def _tool(annotations: Any = None, *, present: bool = True) -> dict[str, Any]:
    definition: dict[str, Any] = {"name": "t", "inputSchema": {"type": "object"}}
    if present:
        definition["annotations"] = annotations
    return definition


READ_ONLY = {"readOnlyHint": True, "destructiveHint": False, "openWorldHint": False}


def test_a_closed_read_only_tool_cannot_act() -> None:
    """A tool that says readOnlyHint true, not destructive nor open-world, cannot act."""
    assert effects_of(_tool(READ_ONLY)) is None
    assert effects_of(_tool({"readOnlyHint": True})) is None


@pytest.mark.parametrize(
    ("definition", "said"),
    [
        (_tool(present=False), "no readOnlyHint"),
        (_tool(None), "no readOnlyHint"),
        (_tool("read-only"), "no readOnlyHint"),
        (_tool(["readOnlyHint"]), "no readOnlyHint"),
        (_tool({}), "readOnlyHint: absent"),
        (_tool({"readOnlyHint": False}), "readOnlyHint: false"),
        (_tool({"readOnlyHint": "true"}), "readOnlyHint: 'true'"),
        (_tool({"readOnlyHint": 1}), "readOnlyHint: 1"),
        (_tool({"readOnlyHint": None}), "readOnlyHint: absent"),
        (_tool({"destructiveHint": False}), "readOnlyHint: absent"),
        (_tool({**READ_ONLY, "destructiveHint": True}), "destructiveHint: true"),
        (_tool({"readOnlyHint": False, "destructiveHint": True}), "destructiveHint: true"),
        (_tool({**READ_ONLY, "openWorldHint": True}), "openWorldHint: true"),
        (_tool({"readOnlyHint": "x" * 500}), "readOnlyHint: 'xxxxxxxx"),
    ],
)
def test_a_tool_that_does_not_say_it_is_read_only_may_write(
    definition: dict[str, Any], said: str
) -> None:
    """Absent, malformed, false or contradicted hints: it may write, and the reason says which."""
    reason = effects_of(definition)
    assert reason is not None
    assert said in reason
    assert len(reason) < 120  # a hostile hint value is shown shortened


@pytest.mark.parametrize(
    "schema",
    [
        "not a schema",
        None,
        ["action"],
        {"properties": ["action"]},
        {"properties": {"action": {"type": "string", "enum": ["get"]}}, "required": "action"},
        {"properties": {"action": "string"}, "required": ["action"]},
    ],
)
def test_a_malformed_input_schema_selects_no_action(schema: Any) -> None:
    """A hostile definition: no discriminator, one action-less tool, never an exception."""
    definition = {"name": "t", "inputSchema": schema}
    assert discriminator_of(definition) is None
    assert actions_of(definition) == [None]
