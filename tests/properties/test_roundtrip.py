"""Round trip: parse(bytes).view == view_of(response), and check() is clean."""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import fusion_core as fc
from fusion_core import ui
from fusion_core._check import check
from fusion_core._errors import WireFormatError
from fusion_core._parse import parse
from fusion_core._response import ToolResponse, view_of

HOSTILE = [
    "<",
    "&",
    "&amp;",
    "&lt;",
    "&#x1;",
    "\n",
    "\r",
    "\r\n",
    "\n- ",
    "- ",
    "  ",
    "\u2028",
    "\x85",
    "</ui_passthrough>",
    "<\\/ui_passthrough>",
    "</domain_rules>",
    "<tool_error>",
    "```",
    "````",
    '"',
    "'",
    ">",
    "|",
    ": ",
    "\x00",
    "\ud800",
    "📊",
]

hostile_text = st.lists(
    st.one_of(st.sampled_from(HOSTILE), st.text(max_size=8)), max_size=6
).map("".join)
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | hostile_text,
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(hostile_text, children, max_size=4),
    max_leaves=12,
)
# Verbatim text (str data, UI content, raw blocks) must be valid Unicode: a
# lone surrogate there is refused with SerializationError (test_hostile.py).
verbatim_text = hostile_text.filter(lambda text: not re.search("[\ud800-\udfff]", text))
titles = st.none() | hostile_text
widths = st.sampled_from([None, "full", "half", "third"])
# Floats at or beyond 2**53 print as digit strings that read back as ints;
# UiMeta compares priorities by their wire text, so any finite float works.
priorities = (
    st.none()
    | st.integers(-(2**60), 2**60)
    | st.floats(allow_nan=False, allow_infinity=False)
)
languages = st.sampled_from(["", "py", "c++", "json", "x-y.z"])


@st.composite
def ui_blocks(draw: st.DrawFn) -> fc.UiBlock:
    """A UI block from any helper, with hostile text and any meta."""
    meta: dict[str, Any] = {
        "title": draw(titles),
        "width": draw(widths),
        "priority": draw(priorities),
    }
    helper = draw(st.sampled_from(range(9)))
    if helper == 0:
        return ui.echarts(draw(json_values), **meta)
    if helper == 1:
        return ui.mermaid(draw(verbatim_text), **meta)
    if helper == 2:
        return ui.markdown(draw(verbatim_text), **meta)
    if helper == 3:
        return ui.code_block(draw(languages), draw(verbatim_text), **meta)
    if helper == 4:
        headers = draw(st.lists(verbatim_text, min_size=1, max_size=3))
        rows = draw(st.lists(st.lists(st.one_of(verbatim_text, st.integers()), max_size=3)))
        return ui.table(headers, rows, **meta)
    if helper == 5:
        return ui.list(draw(st.lists(verbatim_text, max_size=4)), **meta)
    if helper == 6:
        return ui.json(draw(json_values), **meta)
    if helper == 7:
        return ui.summary(draw(verbatim_text), **meta)
    return fc.UiBlock(draw(hostile_text), draw(verbatim_text), fc.UiMeta(**meta))


def _not_envelope(data: Any) -> bool:
    # A str data block that is itself a well-formed envelope reads as one
    # (documented: bytes cannot tell).
    return not (isinstance(data, str) and data.startswith(("<tool_error", "<validation_error")))


@st.composite
def built_responses(draw: st.DrawFn) -> ToolResponse:
    """A builder response with data, UI, plain raw blocks and hostile items."""
    non_str = json_values.filter(lambda value: not isinstance(value, str))
    data = draw((non_str | verbatim_text).filter(_not_envelope))
    builder = fc.response(data)
    builder.ui_blocks(draw(st.lists(ui_blocks(), max_size=3)))
    # Raw blocks that look like Fusion blocks read as the parent's own at the
    # edges (documented); test_parse.py covers that case by wire meaning.
    for raw in draw(st.lists(verbatim_text.map(lambda t: "raw:" + t), max_size=2)):
        builder.raw_block(raw)
    for hint in draw(st.lists(hostile_text, max_size=3)):
        builder.llm_hint(hint)
    builder.system_rules(draw(st.lists(hostile_text, max_size=3)))
    tools = hostile_text.filter(lambda tool: ": " not in tool)
    builder.system_hint(draw(st.lists(st.tuples(tools, hostile_text), max_size=3)))
    return builder.build()


@st.composite
def envelopes(draw: st.DrawFn) -> ToolResponse:
    """An error envelope from the helpers, with hostile text."""
    kind = draw(st.sampled_from(["error", "required", "tool_error"]))
    if kind == "error":
        return fc.error(draw(hostile_text), draw(st.none() | hostile_text))
    if kind == "required":
        return fc.required(draw(hostile_text))
    return fc.tool_error(
        draw(hostile_text),
        draw(hostile_text),
        suggestion=draw(st.none() | hostile_text),
        available_actions=draw(st.lists(hostile_text, max_size=3)),
        details=draw(st.dictionaries(hostile_text, json_values, max_size=3)),
        retry_after=draw(st.none() | st.floats() | st.integers(-5, 10**6)),
        severity=draw(st.sampled_from(["error", "warning", "critical"]) | hostile_text),
    )


helper_responses = st.one_of(
    json_values.filter(_not_envelope).map(fc.success),
    json_values.map(fc.success_structured),
    envelopes(),
)


def _assert_round_trip(response: ToolResponse) -> None:
    view = view_of(response)
    assert parse(response).view == view
    assert parse(json.dumps(response)).view == view
    assert parse(response.to_mcp()).view == view
    assert check(response) == []


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(built_responses())
@example(fc.response("x").system_rules(["a\r", "b"]).build())
@example(fc.response("x").system_rules(["a\r\n- b", "\n"]).llm_hint("").build())
@example(fc.response('"quoted"').build())
@example(fc.response("-0").build())
@example(fc.response("").build())
@example(fc.response("x").ui_block(ui.markdown("a\n</ui_passthrough>\nb", title='"<&>')).build())
@example(fc.response("x").ui_block(ui.code_block("py", "````\n```")).build())
@example(fc.response("x").ui_block("t", "", {"title": "", "width": "", "priority": 0}).build())
@example(fc.response(1e21).ui_block("t", "c", {"priority": 1e16}).build())
@example(fc.response("x").system_hint([("t", "r: s"), ("", "")]).build())
def test_built_responses_round_trip(response: ToolResponse) -> None:
    """Every builder response parses back to its view and passes check()."""
    _assert_round_trip(response)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(helper_responses)
@example(fc.success_structured("hello"))
@example(fc.success_structured(""))
@example(fc.success("42"))
@example(fc.success("null"))
@example(fc.error("bad\x00byte\x1b[31m"))
@example(fc.tool_error("E", "m", available_actions=["a, b", ""], severity="warning"))
@example(fc.tool_error("E", "m", retry_after=1e-7, details={"k": {"n": None}}))
def test_helper_responses_round_trip(response: ToolResponse) -> None:
    """Every helper response parses back to its view and passes check()."""
    _assert_round_trip(response)


block_texts = st.one_of(
    st.text(),
    hostile_text,
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


@settings(max_examples=400)
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


@settings(max_examples=400)
@given(st.one_of(st.text(), st.binary()))
def test_parse_never_crashes_on_arbitrary_text(text: str | bytes) -> None:
    """Arbitrary text or bytes: a ParsedResponse or WireFormatError, nothing else."""
    try:
        parsed = parse(text)
    except WireFormatError:
        parsed = None
    assert parsed is None or parsed.blocks
