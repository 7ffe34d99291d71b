"""ResponseBuilder: the six-block order whatever the call order, and its shortcuts."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest

from fusion_core import (
    ResponseBuilder,
    ResponseView,
    Suggestion,
    ToolResponse,
    UiBlock,
    UIError,
    UiMeta,
    response,
    ui,
    view_of,
)

EXPECTED = [
    '{\n  "id": 7\n}',
    '<ui_passthrough type="summary">\n📊 **Summary**: one\n</ui_passthrough>',
    "<embedded>raw</embedded>",
    "<llm_directives>\n- be brief\n</llm_directives>",
    "<domain_rules>\n- amounts in cents\n- dates in UTC\n</domain_rules>",
    "<action_suggestions>\n- invoices.pay: settle it\n</action_suggestions>",
]

STEPS: dict[str, Callable[[ResponseBuilder], ResponseBuilder]] = {
    "ui_block": lambda builder: builder.ui_block(ui.summary("one")),
    "raw_block": lambda builder: builder.raw_block("<embedded>raw</embedded>"),
    "llm_hint": lambda builder: builder.llm_hint("be brief"),
    "system_rules": lambda builder: builder.system_rules(["amounts in cents", "dates in UTC"]),
    "system_hint": lambda builder: builder.system_hint([("invoices.pay", "settle it")]),
}


@pytest.mark.parametrize("order", list(itertools.permutations(STEPS)))
def test_canonical_order_whatever_the_call_order(order: tuple[str, ...]) -> None:
    """build() emits data, UI, embeds, directives, rules, suggestions in that order."""
    builder = response({"id": 7})
    for name in order:
        assert STEPS[name](builder) is builder
    result = builder.build()
    assert result.texts == EXPECTED
    assert dict(result) == {"content": [{"type": "text", "text": text} for text in EXPECTED]}


def test_insertion_order_within_a_kind() -> None:
    """Blocks of one kind keep their insertion order; priority never re-sorts."""
    result = (
        response("d")
        .ui_block(ui.markdown("b", priority=2))
        .llm_hint("h1")
        .ui_block(ui.markdown("a", priority=1))
        .llm_hint("h2")
        .raw_block("r1")
        .raw_block("r2")
        .system_rules(["x"])
        .system_rules(["y"])
        .system_hint([Suggestion("t1", "r"), {"tool": "t2", "reason": "s"}])
        .build()
    )
    assert result.texts == [
        "d",
        '<ui_passthrough type="markdown" priority="2">\nb\n</ui_passthrough>',
        '<ui_passthrough type="markdown" priority="1">\na\n</ui_passthrough>',
        "r1",
        "r2",
        "<llm_directives>\n- h1\n- h2\n</llm_directives>",
        "<domain_rules>\n- x\n- y\n</domain_rules>",
        "<action_suggestions>\n- t1: r\n- t2: s\n</action_suggestions>",
    ]


def test_empty_lists_emit_no_block() -> None:
    """Empty rules, hints and UI lists add no block."""
    result = response([1]).system_rules([]).system_hint([]).ui_blocks([]).build()
    assert result.texts == ["[\n  1\n]"]


@pytest.mark.parametrize(
    ("data", "text"),
    [("", "OK"), ("plain text", "plain text"), (None, "null"), (0, "0"), ([], "[]"), ("0", "0")],
)
def test_data_block(data: Any, text: str) -> None:
    """A str goes out verbatim ("" as OK); anything else as JSON."""
    assert response(data).build().texts == [text]
    assert response.ok(data).texts == [text]


def test_empty_string_view_is_ok() -> None:
    """The view of "" data says OK, as the bytes do."""
    assert view_of(response("").build()).data == "OK"


def test_response_ok() -> None:
    """response.ok(data) is a data-only response with no isError."""
    result = response.ok({"a": 1})
    assert isinstance(result, ToolResponse)
    assert dict(result) == {"content": [{"type": "text", "text": '{\n  "a": 1\n}'}]}
    assert result.is_error is False


def test_response_with_rules() -> None:
    """response.with_rules adds a rules block."""
    result = response.with_rules("d", ["r1", "r2"])
    assert result.texts == ["d", "<domain_rules>\n- r1\n- r2\n</domain_rules>"]
    assert view_of(result).rules == ("r1", "r2")


def test_view_matches_what_was_built() -> None:
    """The attached view holds every block as Python values."""
    data = {"id": 7}
    builder = response(data)
    for step in STEPS.values():
        step(builder)
    view = view_of(builder.build())
    assert view.data is data
    assert view.ui_blocks == (ui.summary("one"),)
    assert view.embeds == ("<embedded>raw</embedded>",)
    assert view.directives == ("be brief",)
    assert view.rules == ("amounts in cents", "dates in UTC")
    assert view.suggestions == (Suggestion("invoices.pay", "settle it"),)
    assert view.error is None
    assert builder.view() == view
    assert isinstance(view, ResponseView)


def test_ui_block_by_type_and_content() -> None:
    """ui_block(type, content, meta) builds the block itself."""
    result = response("").ui_block("echarts", "{}", {"title": "T", "priority": 0}).build()
    assert (
        result.texts[1]
        == '<ui_passthrough type="echarts" title="T" priority="0">\n{}\n</ui_passthrough>'
    )
    assert view_of(result).ui_blocks == (UiBlock("echarts", "{}", UiMeta(title="T", priority=0)),)
    with_meta = response("").ui_block("x", "y", UiMeta(width="full")).build()
    assert with_meta.texts[1].startswith('<ui_passthrough type="x" width="full">')


@pytest.mark.parametrize(
    "call",
    [
        lambda builder: builder.system_rules("one str"),
        lambda builder: builder.system_rules([1]),
        lambda builder: builder.llm_hint(3),
        lambda builder: builder.raw_block(None),
        lambda builder: builder.ui_block("markdown"),
        lambda builder: builder.ui_block(ui.summary("x"), "content"),
        lambda builder: builder.ui_block(ui.summary("x"), meta={"title": "t"}),
        lambda builder: builder.system_hint(["tool only"]),
        lambda builder: builder.system_hint([("tool", 3)]),
        lambda builder: builder.system_hint([{"tool": "t"}]),
    ],
)
def test_wrong_argument_types_are_type_errors(call: Callable[[ResponseBuilder], Any]) -> None:
    """Arguments of the wrong type raise TypeError, not bad bytes."""
    with pytest.raises(TypeError):
        call(response("x"))


def test_ui_block_with_invalid_meta() -> None:
    """Invalid meta given to ui_block(type, content, meta) is a UIError."""
    with pytest.raises(UIError):
        response("x").ui_block("markdown", "c", {"width": "wide"})


def test_builder_data_and_repr() -> None:
    """The builder exposes its data and a short repr."""
    builder = response({"a": 1}).llm_hint("h")
    assert builder.data == {"a": 1}
    assert "directives=1" in repr(builder)
    assert repr(response) == "fusion_core.response"


def test_build_twice_gives_equal_responses() -> None:
    """build() does not consume the builder."""
    builder = response([1]).system_rules(["r"])
    assert builder.build() == builder.build()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda b: b.ui_block(ui.table(["a"], []), "x"),
            "ui_block(UiBlock) takes no content or meta: the block has its own",
        ),
        (lambda b: b.ui_block("echarts"), "ui_block(type, content): content is missing"),
        (lambda b: b.raw_block(3), "raw_block() takes str, got int: 3"),
        (lambda b: b.llm_hint(None), "llm_hint() takes str, got NoneType: None"),
        (lambda b: b.system_rules("one"), "system_rules() takes a list of rules, not one str"),
        (lambda b: b.system_rules(["a", 5]), "system_rules() takes str, got int: 5"),
    ],
    ids=["ui block and content", "no content", "raw block", "hint", "one rule", "rule type"],
)
def test_wrong_arguments_are_named_in_the_error(
    call: Callable[[Any], object], message: str
) -> None:
    """Each misuse of the builder raises a TypeError saying which method and what was wrong."""
    with pytest.raises(TypeError) as caught:
        call(response({}))
    assert str(caught.value) == message
