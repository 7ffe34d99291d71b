"""Round trip: parse(bytes).view == view_of(response), and check() is clean.

Example counts come from the hypothesis profile (fusion-ci: 100, derandomized;
fusion-thorough: 100,000), not from the tests.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

import fusion_core as fc
from fusion_core import ui
from fusion_core._errors import WireFormatError
from fusion_core._read._check import check
from fusion_core._read._parse import parse
from fusion_core._write._response import ToolResponse, view_of
from pytest_mcpfusion.strategies import hostile_text, responses


def _assert_round_trip(response: ToolResponse) -> None:
    view = view_of(response)
    parsed = parse(response)
    assert parsed.view == view
    # The blocks are the bytes' own: the same from a plain dict, which cannot
    # say that orjson wrote its data block (json_data_of), as from the response.
    assert parsed.blocks == parse(dict(response)).blocks
    assert parse(json.dumps(response)).view == view
    assert parse(response.to_mcp()).view == view
    assert check(response) == []


@given(responses())
@example(fc.response("x").system_rules(["a\r", "b"]).build())
@example(fc.response("x").system_rules(["a\r\n- b", "\n"]).llm_hint("").build())
@example(fc.response('"quoted"').build())
@example(fc.response("-0").build())
@example(fc.response("").build())
@example(fc.response("x").ui_block(ui.markdown("a\n</ui_passthrough>\nb", title='"<&>')).build())
@example(fc.response("x").ui_block(ui.code_block("py", "````\n```")).build())
@example(fc.response("x").ui_block("t", "", {"title": "", "width": "", "priority": 0}).build())
@example(fc.response(1e21).ui_block("t", "c", {"priority": 1e16}).build())
@example(fc.response("x").ui_block("t", "c", {"priority": 10**4100}).build())  # 4,101 digits
@example(fc.response("x").ui_block("t", "c", {"priority": -(10**4299)}).build())  # the most
@example(fc.response("x").system_hint([("t", "r: s"), ("", "")]).build())
@example(fc.success_structured("hello"))
@example(fc.success_structured(""))
@example(fc.success("42"))
@example(fc.success("null"))
@example(fc.error("bad\x00byte\x1b[31m"))
@example(fc.tool_error("E", "m", available_actions=["a, b", ""], severity="warning"))
@example(fc.tool_error("E", "m", retry_after=1e-7, details={"k": {"n": None}}))
def test_responses_round_trip(response: ToolResponse) -> None:
    """Every response (builder, helpers, envelopes) parses back to its view and passes check()."""
    _assert_round_trip(response)


block_texts = st.one_of(
    st.text(),
    hostile_text(surrogates=True),
    st.sampled_from(
        [
            "<ui_passthrough",
            '<ui_passthrough type="x">\n',
            '<ui_passthrough type="x">\n</ui_passthrough>',
            "<domain_rules>\n- \n</domain_rules>",
            "<llm_directives>\n\n</llm_directives>",
            "<tool_error>\n</tool_error>",
            '<validation_error action="a">\n<field name="x">m</field>\n</validation_error>',
            "<!DOCTYPE x [<!ENTITY e 'e'>]><tool_error>&e;</tool_error>",
            "[1, 2",
            "{",
        ]
    ),
)


@given(st.lists(block_texts, max_size=6), st.none() | st.booleans())
def test_parse_and_check_never_crash_on_block_lists(
    texts: list[str], is_error: bool | None
) -> None:
    """Arbitrary block lists give a ParsedResponse or WireFormatError, never a crash."""
    wire: dict[str, Any] = {"content": [{"type": "text", "text": t} for t in texts]}
    if is_error is not None:
        wire["isError"] = is_error
    try:
        parsed = parse(wire)
    except WireFormatError:
        assert not texts
    else:
        assert parsed.texts == texts
    assert all(v.rule and v.message for v in check(wire))
    assert all(v.rule and v.message for v in check(wire, strict=True))


@given(st.one_of(st.text(), st.binary()))
def test_parse_never_crashes_on_arbitrary_text(text: str | bytes) -> None:
    """Arbitrary text or bytes: a ParsedResponse or WireFormatError, nothing else."""
    try:
        parsed = parse(text)
    except WireFormatError:
        parsed = None
    assert parsed is None or parsed.blocks
