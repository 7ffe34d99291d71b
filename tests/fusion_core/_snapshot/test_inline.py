"""fusion_core._snapshot._inline: the wire as (kind, text) pairs, exact both ways."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given

from fusion_core import ToolResponse, WireFormatError, error, response, tool_error, ui
from fusion_core._snapshot._format import dump_snapshot, load_snapshot
from fusion_core._snapshot._inline import InlineWire, inline_of, wire_of_inline
from pytest_mcpfusion.strategies import responses


def test_pairs_name_each_block_as_the_wire_file_does() -> None:
    """Kinds, order and headers are the .wire file's, text for text."""
    built = response({"id": 7}).ui_block(ui.summary("1 invoice")).system_rules(["cents"]).build()
    assert inline_of(built) == [
        ("data", '{\n  "id": 7\n}'),
        (
            "ui_passthrough(summary)",
            '<ui_passthrough type="summary">\n📊 **Summary**: 1 invoice\n</ui_passthrough>',
        ),
        ("domain_rules", "<domain_rules>\n- cents\n</domain_rules>"),
    ]
    failed = inline_of(tool_error("NOT_FOUND", "no such invoice"))
    assert failed[0] == ("isError", True)
    assert failed[1][0] == "tool_error"


def test_the_value_is_a_list_and_its_repr_is_a_list_literal() -> None:
    """inline-snapshot stores the repr: plain builtins, no import needed in the test file."""
    pairs = inline_of(error("boom"))
    assert isinstance(pairs, list)
    assert repr(pairs).startswith("[('isError', True), ")
    assert eval(repr(pairs)) == pairs


@given(responses())
def test_every_response_round_trips_through_its_literal(built: ToolResponse) -> None:
    """Pairs -> repr -> eval -> wire gives back the exact wire, lone surrogates and CRs too."""
    pairs = inline_of(built)
    again = eval(repr(pairs))
    assert wire_of_inline(again) == load_snapshot(dump_snapshot(built))
    assert [block["text"] for block in wire_of_inline(again)["content"]] == built.texts


def test_structured_content_and_the_error_flag_come_back() -> None:
    """Both headers round-trip, in their order, before the blocks."""
    wire: dict[str, Any] = {
        "content": [{"type": "text", "text": "plain\r\n"}],
        "isError": False,
        "structuredContent": {"a": [1, 2.5, None], "ü": "\ud800"},
    }
    pairs = inline_of(wire)
    assert pairs[:2] == [("isError", False), ("structuredContent", wire["structuredContent"])]
    assert wire_of_inline(eval(repr(pairs))) == wire
    assert isinstance(pairs, InlineWire)
    assert pairs.wire() == wire


@pytest.mark.parametrize(
    ("pairs", "named"),
    [
        ("text", "not str"),
        ({"data": "x"}, "not dict"),
        ([("data",)], "entry 0: expected a (kind, text) pair"),
        ([("data", "1", "2")], "entry 0: expected a (kind, text) pair"),
        ([(1, "x")], "entry 0: expected a (kind, text) pair"),
        (["data"], "entry 0: expected a (kind, text) pair"),
        ([("data", 7)], "entry 0 (data): the text is int, not str"),
        ([("data", "{}"), ("isError", True)], "entry 1 (isError): headers come first"),
        ([("isError", True), ("isError", True)], "entry 1 (isError): headers come first"),
        ([("structuredContent", {}), ("isError", True)], "entry 1 (isError): headers come first"),
        ([("isError", "yes")], "entry 0 (isError): expected True or False"),
        ([("domain_rules", '{\n  "id": 7\n}')], "block 0: it says 'domain_rules', but"),
        ([("data", "{}"), ("data", "<domain_rules>\n- a\n</domain_rules>")], "block 1: it says"),
    ],
)
def test_a_damaged_form_is_refused_naming_the_entry(pairs: Any, named: str) -> None:
    """Hand-edited or foreign values: WireFormatError naming the entry and what is wrong."""
    with pytest.raises(WireFormatError, match="inline wire") as caught:
        wire_of_inline(pairs)
    assert named in str(caught.value)


def test_an_int_without_a_python_literal_is_refused_with_the_way_out() -> None:
    """Over 4,300 digits, repr() raises: the response belongs in a .wire file."""
    wire = {"content": [{"type": "text", "text": "x"}], "structuredContent": {"n": 7**20_000}}
    with pytest.raises(WireFormatError, match=r"too long for a Python literal.*\.wire file"):
        inline_of(wire)
