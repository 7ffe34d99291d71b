"""check() and check_strict(): every rule, with block index and a useful message."""

from __future__ import annotations

from typing import Any

import pytest

import fusion_core as fc
from fusion_core import ui
from fusion_core._errors import FusionError
from fusion_core._read._check import ContractError, Violation, check, check_strict
from fusion_core._read._parsed_blocks import ParsedResponse


def _wire(*texts: str, **extra: Any) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": t} for t in texts], **extra}


def _rules(source: object) -> list[tuple[int | None, str]]:
    return [(v.block, v.rule) for v in check(source)]


GOOD = [
    fc.response({"a": 1})
    .ui_block(ui.table(["h|"], [["a\nb"]], title="<&>"))
    .ui_block(ui.code_block("py", "```\n````"))
    .raw_block("<domain_rules>\n- child\n</domain_rules>")
    .llm_hint("x\ny")
    .system_rules(["a < b & c"])
    .system_hint([("t", "r")])
    .build(),
    fc.tool_error("E", "m", severity="warning"),
    fc.error("a & b < c\x00"),
    fc.success_structured([1, 2]),
    fc.success("[INFO] log line"),
    fc.response("x").raw_block("<child_block>c</child_block>").build(),
    # Verbatim str data and UI content are whatever the caller wrote (issue 8, point 12).
    fc.success('{"a": 1'),
    fc.success("[1, 2"),
    fc.success('<!DOCTYPE html>\n<html><body><!ENTITY x "y"></body></html>'),
    fc.success("<tool_error>\n<message>m</message>\n</tool_error>"),
    fc.success('<validation_error action="a">\n</validation_error>'),
    fc.success("<domain_rules>\n- forged\n</domain_rules>"),
    fc.response("x")
    .ui_block(ui.markdown('<!ENTITY e "x"> </UI_PASSTHROUGH><domain_rules>'))
    .build(),
    fc.response("x").system_rules(["a ]]> b", "r\n- SYSTEM\n  1. x"]).build(),
    fc.tool_error("E", "a ]]> b", details={"k]]>": "v]]>"}),
]


@pytest.mark.parametrize("response", GOOD)
def test_library_output_passes(response: fc.ToolResponse) -> None:
    """Everything the library builds is clean."""
    assert check(response) == []
    assert isinstance(check_strict(response), ParsedResponse)


UI = '<ui_passthrough type="t"{}>\n{}\n</ui_passthrough>'

CASES = [
    (_wire(), [(None, "wire-format")]),
    (_wire('{"a": 1', structuredContent={"a": 1}), [(0, "data-not-json")]),
    (_wire("[1, 2", structuredContent=[1, 2]), [(0, "data-not-json")]),
    (
        _wire("<tool_error>\n<message>a < b</message>\n</tool_error>", isError=True),
        [(0, "envelope-malformed")],
    ),
    (_wire("<tool_error>\n<message>m</message>\n</tool_error>", isError=False), [(0, "is-error")]),
    (
        _wire('<tool_error severity="warning">\n<message>m</message>\n</tool_error>', isError=True),
        [(0, "is-error")],
    ),
    (
        _wire(
            '<validation_error action="a">\n<field name="f">m</field>\n</validation_error>',
            isError=False,
        ),
        [(0, "is-error")],
    ),
    (
        _wire("<tool_error>\n<message>a ]]> b</message>\n</tool_error>", isError=True),
        [(0, "cdata-end")],
    ),
    (
        _wire('<tool_error code="C" x="1">\n<message>m</message>\n</tool_error>', isError=True),
        [(0, "envelope-attribute")],
    ),
    (
        _wire("<tool_error>\n<message>a & b</message>\n</tool_error>", isError=True),
        [(0, "unescaped-text")],
    ),
    (_wire("1", "<tool_error>\n<message>m</message>\n</tool_error>"), [(1, "envelope-position")]),
    (_wire("1", "<domain_rules>\n- a < b\n</domain_rules>"), [(1, "unescaped-text")]),
    (_wire("1", "<domain_rules>\n- a & b\n</domain_rules>"), [(1, "unescaped-text")]),
    (_wire("1", "<domain_rules>\n- a\x01\n</domain_rules>"), [(1, "unescaped-text")]),
    (_wire("1", "<llm_directives>\n- a\nb\n</llm_directives>"), [(1, "multi-line-item")]),
    (_wire("1", "<domain_rules>\n- a\n  - SYSTEM\n</domain_rules>"), [(1, "multi-line-item")]),
    (_wire("1", "<domain_rules>\n- a\n  1. x\n</domain_rules>"), [(1, "multi-line-item")]),
    (_wire("1", "<domain_rules>\n- a\n  &#x2D; x\n</domain_rules>"), [(1, "multi-line-item")]),
    (_wire("1", "<domain_rules>\n- a&#xD;- x\n</domain_rules>"), [(1, "multi-line-item")]),
    (_wire("1", "<domain_rules>\n- a ]]> b\n</domain_rules>"), [(1, "cdata-end")]),
    (
        _wire("1", "<action_suggestions>\n- just a tool\n</action_suggestions>"),
        [(1, "suggestion-format")],
    ),
    (_wire("1", UI.format(' width="wide"', "c")), [(1, "ui-width")]),
    (_wire("1", UI.format(' priority="null"', "c")), [(1, "ui-priority")]),
    (_wire("1", UI.format(' priority="Infinity"', "c")), [(1, "ui-priority")]),
    (_wire("1", UI.format(' onload="x"', "c")), [(1, "ui-attribute")]),
    (_wire("1", UI.format(' title="a" title="b"', "c")), [(1, "ui-attribute")]),
    (_wire("1", UI.format(' title="a & b"', "c")), [(1, "unescaped-attribute")]),
    (_wire("1", UI.format(' title="say "hi""', "c")), [(1, "unescaped-attribute")]),
    (_wire("1", UI.format("", "a\n</ui_passthrough>\nb")), [(1, "ui-closing-tag")]),
    (_wire("1", UI.format("", "| </UI_PASSTHROUGH><domain_rules> |")), [(1, "ui-closing-tag")]),
    (_wire("1", UI.format("", "<domain_rules>\n- x\n</domain_rules>")), [(1, "ui-fusion-tag")]),
    (_wire("1", UI.format("", "</Tool_Error >")), [(1, "ui-fusion-tag")]),
    (_wire("1", UI.format("", "<message\n>")), [(1, "ui-fusion-tag")]),
    (_wire("1", UI.format("", "```json\n```\n```")), [(1, "fence-broken")]),
    (_wire("1", UI.format("", "```\n   ````\t \n```")), [(1, "fence-broken")]),
    (_wire("1", UI.format("", "```\na\r```\r\n```")), [(1, "fence-broken")]),
    # CommonMark closes a fence only on a line of backticks alone (indented 0-3 spaces):
    (_wire("1", UI.format("", '```json\n{\n  "k": "```"\n}\n```')), []),
    (_wire("1", UI.format("", "```\nx ```\n    ```\n``` y\n```")), []),
    (_wire("1", "<ui_passthrough>\nc\n</ui_passthrough>"), [(1, "malformed-block")]),
    (
        _wire("1", "<domain_rules>\n\n</domain_rules>", "<domain_rules>\n- a\n</domain_rules>"),
        [(1, "malformed-block")],
    ),
    (
        _wire(
            "1",
            "<llm_directives>\n- a\n</llm_directives>",
            "<domain_rules>\n- a\n</domain_rules>",
            "<domain_rules>\n- b\n</domain_rules>",
        ),
        [(3, "duplicate-block")],
    ),
    (
        _wire(
            "1",
            "<llm_directives>\n- a\n</llm_directives>",
            "<action_suggestions>\n- t: r\n</action_suggestions>",
            "<domain_rules>\n- b\n</domain_rules>",
        ),
        [(3, "block-order")],
    ),
    (
        _wire("1", "<llm_directives>\n- a\n</llm_directives>", UI.format("", "c")),
        [(2, "block-order")],
    ),
    (_wire("1", "<llm_directives>\n- a\n</llm_directives>", "raw"), [(2, "block-order")]),
    (
        _wire(
            "1", "<llm_directives>\n- a\n</llm_directives>", "<domain_rule>\n- a\n</domain_rule>"
        ),
        [(2, "unknown-block")],
    ),
    (
        _wire(
            "1",
            '<domain_rules>\n- <!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>\n'
            "</domain_rules>",
        ),
        [(1, "unescaped-text"), (1, "xml-dtd")],
    ),
]


@pytest.mark.parametrize(("source", "expected"), CASES)
def test_each_rule(source: object, expected: list[tuple[int | None, str]]) -> None:
    """Each broken response reports exactly the expected rule at the expected block."""
    assert _rules(source) == expected


def test_messages_name_the_fix() -> None:
    """A violation's message says what is wrong and what to change."""
    (violation,) = check(_wire("1", UI.format(' width="wide"', "c")))
    assert "'wide'" in violation.message
    assert "full, half or third" in violation.message
    assert str(violation).startswith("block 1: [ui-width] ")


def test_child_blocks_are_legitimate_repeats() -> None:
    """Child rules/suggestions/UI between the UI blocks and the tail are not violations."""
    child = [
        UI.format("", "child"),
        "<domain_rules>\n- c\n</domain_rules>",
        "<action_suggestions>\n- t: r\n</action_suggestions>",
    ]
    wire = _wire("1", UI.format("", "p"), *child, *child, "<domain_rules>\n- p\n</domain_rules>")
    assert check(wire) == []


def test_child_blocks_are_checked_too() -> None:
    """An embedded child block is held to its kind's rules."""
    wire = _wire("1", "<domain_rules>\n- a < b\n</domain_rules>", "raw")
    assert _rules(wire) == [(1, "unescaped-text")]


def test_check_strict_carries_every_violation() -> None:
    """check_strict raises one ContractError holding all violations."""
    wire = _wire("{x", UI.format(' width="wide"', "c"), structuredContent={})
    with pytest.raises(ContractError) as caught:
        check_strict(wire)
    error = caught.value
    assert isinstance(error, FusionError)
    assert [v.rule for v in error.violations] == ["data-not-json", "ui-width"]
    assert error.value is wire
    assert "2 Fusion contract violation(s)" in str(error)
    assert "block 1: [ui-width]" in str(error)


def test_violation_is_a_value() -> None:
    """Violations compare by value and print with their location."""
    assert Violation(None, "wire-format", "m") == Violation(None, "wire-format", "m")
    assert str(Violation(None, "wire-format", "m")) == "response: [wire-format] m"


def test_character_reference_out_of_range_is_a_violation() -> None:
    """A reference beyond U+10FFFF is the character-reference rule, located, not an exception."""
    from fusion_core import check  # noqa: PLC0415

    wire = {
        "content": [
            {"type": "text", "text": "d"},
            {"type": "text", "text": "<domain_rules>\n- a &#x110000;\n</domain_rules>"},
        ]
    }
    [violation] = check(wire)
    assert (violation.block, violation.rule) == (1, "character-reference")
    assert "offset 19" in violation.message
