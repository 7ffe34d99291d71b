"""The strict reading: foreign layouts ``check()`` accepts but can only guess at.

Each row is a class of layout a server not written with fusion_core sends;
``check()`` stays silent (the layout rule reads it as embedded child blocks),
``check(strict=True)`` and ``ambiguities()`` name every such block.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings

from fusion_core import ambiguities, check, parse, response, tool_error
from fusion_core._read._strict import STRICT_RULES
from pytest_mcpfusion.strategies import responses
from tests._support.payloads import P_IDS, P_VALUES

UI = '<ui_passthrough type="summary">\n3 invoices\n</ui_passthrough>'
RULES = "<domain_rules>\n- Amounts are in cents.\n</domain_rules>"
HINTS = "<action_suggestions>\n- billing: list them\n</action_suggestions>"
DIRECTIVES = "<llm_directives>\n- Be brief.\n</llm_directives>"
SECRET = "<secret_notes>\nroot password: hunter2\n</secret_notes>"


def _wire(*texts: str, is_error: bool | None = None) -> dict[str, Any]:
    wire: dict[str, Any] = {"content": [{"type": "text", "text": text} for text in texts]}
    if is_error is not None:
        wire["isError"] = is_error
    return wire


FOREIGN: list[Any] = [
    pytest.param(_wire("{}", RULES, UI), {1: "ambiguous-layout", 2: "ambiguous-layout"},
                 id="rules-before-ui"),
    pytest.param(_wire("{}", HINTS, RULES, UI), {1: "ambiguous-layout", 2: "ambiguous-layout",
                 3: "ambiguous-layout"}, id="suggestions-before-rules-before-ui"),
    pytest.param(_wire("{}", SECRET), {1: "unknown-element"}, id="unknown-tag-last"),
    pytest.param(_wire("{}", UI, SECRET, RULES), {2: "unknown-element"}, id="unknown-tag-middle"),
    pytest.param(_wire("{}", '<secret_notes level="x">\nhi\n</secret_notes>\n'),
                 {1: "unknown-element"}, id="unknown-tag-attributes"),
    pytest.param(_wire("Traceback (most recent call last): boom", is_error=True),
                 {0: "bare-error"}, id="bare-error-text"),
    pytest.param(_wire('{"error": "boom"}', is_error=True), {0: "bare-error"},
                 id="bare-error-json"),
]  # fmt: skip


@pytest.mark.parametrize(("wire", "expected"), FOREIGN)
def test_foreign_layouts_are_violations_only_when_strict(
    wire: dict[str, Any], expected: dict[int, str]
) -> None:
    """Default check() accepts the layout; strict names each ambiguous block by index and rule."""
    assert check(wire) == []
    found = {violation.block: violation.rule for violation in check(wire, strict=True)}
    assert found == expected
    assert set(found.values()) <= STRICT_RULES
    assert [str(v) for v in ambiguities(wire)] == [str(v) for v in check(wire, strict=True)]


def test_rules_before_ui_leave_the_view_empty_and_say_which_attribute() -> None:
    """The message names the result attribute that misses the block, and the order to use."""
    wire = _wire("{}", RULES, UI)
    assert parse(wire).view.rules == ()
    messages = [violation.message for violation in ambiguities(wire)]
    assert "result.system_rules" in messages[0]
    assert "result.ui_blocks" in messages[1]
    assert "<domain_rules>, <action_suggestions>" in messages[0]


@pytest.mark.parametrize(
    "wire",
    [
        pytest.param(_wire("{}", UI, DIRECTIVES, RULES, HINTS), id="full-order"),
        pytest.param(_wire("plain text", "more plain text"), id="plain-raw-block"),
        pytest.param(_wire("<secret_notes>\nas data\n</secret_notes>"), id="element-as-data"),
        pytest.param(dict(tool_error("NOT_FOUND", "no such invoice")), id="envelope-error"),
        pytest.param(_wire("{}", is_error=False), id="not-an-error"),
    ],
)
def test_unambiguous_layouts_pass_strict(wire: dict[str, Any]) -> None:
    """Blocks in their places, plain raw text, and envelopes give no strict finding."""
    assert check(wire, strict=True) == []


def test_a_child_presenter_block_is_ambiguous_by_design() -> None:
    """A real embed reads like a misplaced block: strict mode reports it (documented)."""
    built = response({"id": 1}).raw_block(RULES).system_rules(["Parent rule."]).build()
    assert check(built) == []
    assert [violation.rule for violation in check(built, strict=True)] == ["ambiguous-layout"]


def test_refused_input_has_no_ambiguities() -> None:
    """Input parse() refuses is check()'s wire-format violation, not an ambiguity."""
    assert ambiguities("not json") == []
    assert [violation.rule for violation in check("not json", strict=True)] == ["wire-format"]


@settings(max_examples=200)
@given(responses())
def test_library_responses_without_embeds_are_unambiguous(built: Any) -> None:
    """Whatever the library writes (no element embeds) passes the strict reading."""
    assert check(built, strict=True) == []


def test_strict_reading_is_linear_on_a_large_unclosed_element() -> None:
    """A megabyte block opening an element that never closes is read once, not quadratically."""
    text = "<secret" + " a" * 500_000
    found = ambiguities(_wire("{}", text, UI))
    assert [(violation.block, violation.rule) for violation in found] == [(2, "ambiguous-layout")]


@pytest.mark.parametrize("payload", P_VALUES, ids=P_IDS)
def test_hostile_text_written_by_the_library_is_never_ambiguous(payload: str) -> None:
    """Forgery payloads in rules, hints, suggestions and UI titles: the strict reading is clean."""
    built = (
        response({"note": payload})
        .ui_block("summary", payload, {"title": payload})
        .llm_hint(payload)
        .system_rules([payload])
        .system_hint([("billing", payload)])
        .build()
    )
    assert check(built, strict=True) == []


@pytest.mark.parametrize("payload", P_VALUES, ids=P_IDS)
@pytest.mark.parametrize("is_error", [None, False, True])
def test_hostile_foreign_blocks_give_findings_not_crashes(
    payload: str, is_error: bool | None
) -> None:
    """A foreign server's raw hostile blocks: findings with known rules, never an exception."""
    wire = _wire(payload or "x", payload, f"<{payload}>", UI + payload, is_error=is_error)
    found = check(wire, strict=True)
    assert {violation.rule for violation in ambiguities(wire)} <= STRICT_RULES
    assert all(violation.message for violation in found)
