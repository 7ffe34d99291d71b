"""Forbidden fields and canaries in every block; suggested names against tools/list."""

from __future__ import annotations

from typing import Any

import pytest

from fusion_core import response, success, success_structured, tool_error, toon_success, ui
from pytest_mcpfusion._contract._forbidden import Forbidden, unknown_references
from tests._support.results import result_of, wire_result

RULE = Forbidden.of(["password", "internal_cost"], ["CANARY-7f3a"])
DEFINITIONS: list[dict[str, Any]] = [
    {
        "name": "billing",
        "description": "Invoices",
        "inputSchema": {
            "type": "object",
            "properties": {"action": {"type": "string", "enum": ["get", "invoices.list"]}},
            "required": ["action"],
        },
    },
    {"name": "ping", "inputSchema": {"type": "object"}},
]


@pytest.mark.parametrize(
    ("made", "where"),
    [
        (success({"user": {"password": "x"}}), "$.user.password"),
        (success([{"id": 1}, {"id": 2, "internal_cost": 3}]), "$[1].internal_cost"),
        (success_structured({"password": "x"}), "structuredContent"),
        (toon_success([{"id": 1, "password": "x"}]), "block 0"),
        (response("ok").system_rules(["password: hunter2"]).build(), "block 1"),
        (response("ok").ui_block(ui.json({"internal_cost": 1})).build(), "block 1"),
        (success("text with password=hunter2"), "block 0"),
    ],
    ids=["nested-key", "row-key", "structured", "toon-header", "rule", "ui-json", "text-kv"],
)
def test_a_forbidden_field_is_found_in_every_kind_of_block(made: Any, where: str) -> None:
    """JSON keys at any depth, TOON headers, key-like text in rules, UI and text data."""
    found = RULE.scan(result_of(made))
    assert found
    assert any(where in message for message in found)


@pytest.mark.parametrize(
    "made",
    [
        success({"note": "CANARY-7f3a"}),
        response("ok").system_rules(["See CANARY-7f3a"]).build(),
        tool_error("E", "leaked CANARY-7f3a"),
        success_structured({"n": "CANARY-7f3a"}),
    ],
    ids=["data", "rule", "error", "structured"],
)
def test_a_canary_is_found_anywhere(made: Any) -> None:
    """The canary value in data, rules, an error message or structuredContent."""
    assert any("CANARY-7f3a" in message for message in RULE.scan(result_of(made)))


def test_an_escaped_canary_is_found() -> None:
    """A canary with markup characters is found in its XML-escaped and JSON-escaped forms."""
    rule = Forbidden.of([], ['<tok"&>'])
    escaped = response({"v": '<tok"&>'}).system_rules(['<tok"&>']).build()
    found = rule.scan(result_of(escaped))
    assert [message.split(":")[0] for message in found] == ["block 0", "block 1"]


@pytest.mark.parametrize(
    "made",
    [
        success({"passwords_reset": 1, "cost": 2}),
        response("ok").system_rules(["Never ask for a password."]).build(),
        success("internal_costs are hidden"),
    ],
    ids=["longer-key", "prose", "longer-word"],
)
def test_similar_names_are_not_forbidden_fields(made: Any) -> None:
    """A longer key, prose mentioning the word, a longer word: no hit."""
    assert RULE.scan(result_of(made)) == []


def test_empty_ini_lines_are_dropped() -> None:
    """Blank entries (an ini line list) forbid nothing."""
    assert not Forbidden.of(["", ""], [""])


def test_suggestions_must_name_a_tool_or_an_action_of_one() -> None:
    """``billing`` and ``billing.invoices.list`` exist; ``billing.pay`` and ``crm`` do not."""
    made = (
        response("ok")
        .system_hint(
            [("billing", "a"), ("billing.invoices.list", "b"), ("billing.pay", "c"), ("crm", "d")]
        )
        .build()
    )
    found = unknown_references(result_of(made), DEFINITIONS)
    assert len(found) == 2
    assert "'billing.pay'" in found[0]
    assert "'crm'" in found[1]


def test_available_actions_must_be_actions_of_the_tool() -> None:
    """An error listing an action the tool lacks is reported; real ones pass, prefixed or not."""
    made = tool_error("E", "m", available_actions=["get", "billing.invoices.list", "delete"])
    found = unknown_references(result_of(made), DEFINITIONS)
    assert len(found) == 1
    assert "'delete'" in found[0]


def test_available_actions_of_an_unknown_tool_are_tool_names() -> None:
    """A call to a tool not in tools/list may list the tools as available actions."""
    made = tool_error("UNKNOWN_TOOL", "m", available_actions=["billing", "ping"])
    assert unknown_references(result_of(made, tool="nope"), DEFINITIONS) == []


def test_foreign_suggestion_block_is_checked_too() -> None:
    """Suggestions parsed from a foreign server's bytes are checked the same way."""
    wire = {
        "content": [
            {"type": "text", "text": "{}"},
            {"type": "text", "text": "<action_suggestions>\n- ghost: x\n</action_suggestions>"},
        ]
    }
    assert len(unknown_references(wire_result(wire), DEFINITIONS)) == 1


def test_a_forbidden_key_inside_any_mapping_is_found_at_its_path() -> None:
    """The walk skips JSON scalars by exact type; other ``Mapping`` kinds are still walked.

    ``structuredContent`` may hold what a framework built (a read-only
    mapping, a ``str`` subclass as a key's neighbour); each level is found.
    """
    from types import MappingProxyType  # noqa: PLC0415

    class Label(str):
        __slots__ = ()

    structured = {
        "rows": [Label("x"), 1, 2.5, None, True, MappingProxyType({"password": "p"})],
        "meta": MappingProxyType({"inner": [{"internal_cost": 3}]}),
    }
    wire = {"content": [{"type": "text", "text": "ok"}], "structuredContent": structured}
    found = RULE.scan(wire_result(wire))
    assert any("$.rows[5].password" in message for message in found), found
    assert any("$.meta.inner[0].internal_cost" in message for message in found), found
