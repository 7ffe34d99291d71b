"""Hostile data: each value ends in a clear error or lossless, well-formed bytes.

Rows cover cycles, NaN, lone surrogates, huge ints, unserializable objects,
10 MB strings and 10,000-deep nesting, through every writer (builder, one-call
helpers, structured content, TOON, error details, tool definitions).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from fusion_core import (
    CycleError,
    FusionApp,
    FusionError,
    NestingError,
    SerializationError,
    Tool,
    ToolResponse,
    error,
    parse,
    required,
    response,
    success,
    success_structured,
    to_json,
    tool_error,
    toon_success,
    ui,
)
from fusion_core._write._text import decode_item
from tests._support.wide_ints import HUGE_INT

DATA_ENTRY_POINTS: dict[str, Callable[[Any], ToolResponse]] = {
    "builder": lambda data: response(data).build(),
    "success": success,
    "structured": success_structured,
    "toon": toon_success,
}


def _cycle() -> Any:
    rows: list[Any] = [{"id": 1}]
    rows[0]["self"] = rows
    return {"rows": rows}


def _deep_list(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


def _deep_dict(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = {"k": value}
    return value


@pytest.mark.parametrize("entry", DATA_ENTRY_POINTS.values(), ids=DATA_ENTRY_POINTS)
@pytest.mark.parametrize(
    ("value", "error_type", "path"),
    [
        pytest.param(_cycle(), CycleError, "$.rows[0].self", id="cycle"),
        pytest.param(
            {"rows": [1, {"x": object()}]}, SerializationError, "$.rows[1].x", id="object"
        ),
        pytest.param({"f": lambda: 0}, SerializationError, "$.f", id="function"),
        pytest.param({"k": {(1, 2): 3}}, SerializationError, "$.k", id="tuple-key"),
        pytest.param(_deep_list(10_000), NestingError, None, id="deep-list"),
        pytest.param(_deep_dict(10_000), NestingError, None, id="deep-dict"),
    ],
)
def test_bad_data_is_a_clear_error(
    entry: Callable[[Any], ToolResponse],
    value: Any,
    error_type: type[FusionError],
    path: str | None,
) -> None:
    """Each entry point raises one FusionError subclass that says where."""
    with pytest.raises(error_type) as caught:
        entry(value)
    assert isinstance(caught.value, FusionError)
    if path is not None:
        assert path in str(caught.value)


def _read(text: str) -> Any:
    return json.loads(text, parse_constant=lambda name: pytest.fail(f"non-JSON {name}"))


@pytest.mark.parametrize(
    ("value", "plain"),
    [
        pytest.param({"x": float("nan"), "y": [float("inf"), float("-inf")]}, None, id="nan"),
        pytest.param({"s": "a\ud800b\udfff"}, {"s": "a\ud800b\udfff"}, id="surrogates"),
        pytest.param(
            {"n": 10**400, "m": -(10**400)}, {"n": 10**400, "m": -(10**400)}, id="huge-int"
        ),
        pytest.param([2**64, -(2**63) - 1], [2**64, -(2**63) - 1], id="int64-edges"),
        pytest.param(
            {"s": "</ui_passthrough>\n- x\n```"}, {"s": "</ui_passthrough>\n- x\n```"}, id="tags"
        ),
    ],
)
def test_hostile_values_give_lossless_json(value: Any, plain: Any) -> None:
    """The data block is valid JSON (no NaN), UTF-8 clean, and reads back losslessly."""
    entries: list[Callable[[Any], ToolResponse]] = [
        lambda data: response(data).build(),
        success,
        success_structured,
    ]
    for entry in entries:
        if entry is success_structured and value == {"s": "a\ud800b\udfff"}:
            # structuredContent is data, which has no escape for a lone
            # surrogate: the SDK could not encode it (issue 8.13).
            with pytest.raises(SerializationError, match=r"at \$\.s\)"):
                entry(value)
            continue
        result = entry(value)
        text = result.texts[0]
        text.encode("utf-8")
        read = _read(text)
        if plain is not None:
            assert read == plain
        json.dumps(result, allow_nan=False)
    assert _read(to_json(value)) == (plain if plain is not None else {"x": None, "y": [None, None]})


def test_nan_structured_content_matches_its_text() -> None:
    """StructuredContent says what the JSON text says: NaN and infinities are null."""
    result = success_structured({"x": float("nan"), "y": float("inf")})
    assert result["structuredContent"] == _read(result.texts[0]) == {"x": None, "y": None}
    json.dumps(result, allow_nan=False)


def test_huge_int_survives_the_sdk() -> None:
    """A 400-digit int stays exact through the MCP SDK's serialization."""
    result = success_structured({"n": 10**400})
    dumped = json.loads(result.to_mcp().model_dump_json(by_alias=True, exclude_none=True))
    assert dumped["structuredContent"] == {"n": 10**400}
    assert json.loads(dumped["content"][0]["text"]) == {"n": 10**400}


TEN_MB = 10 * 1024 * 1024


def test_ten_megabyte_string_data() -> None:
    """A 10 MB string goes out whole, verbatim and as JSON."""
    big = 'ab\n</ui_passthrough>"' * (TEN_MB // 21)
    assert len(big) >= TEN_MB - 21
    assert success(big).texts == [big]
    text = response({"blob": big}).build().texts[0]
    assert len(text) == len(big) + big.count("\n") + big.count('"') + len('{\n  "blob": ""\n}')
    assert json.loads(text) == {"blob": big}


def test_ten_megabyte_rule() -> None:
    """A 10 MB rule with line breaks is one item that decodes to itself."""
    big = "rule\n- forged\n" * (TEN_MB // 14)
    text = response("d").system_rules([big]).build().texts[1]
    body = text.removeprefix("<domain_rules>\n").removesuffix("\n</domain_rules>")
    assert body.startswith("- ")
    assert "\n- " not in body
    assert decode_item(body[2:]) == big


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda: success("a\ud800b"), id="str-data"),
        pytest.param(lambda: response("d").ui_block(ui.markdown("a\ud800")).build(), id="markdown"),
        pytest.param(lambda: response("d").ui_block(ui.mermaid("a\udfff")).build(), id="mermaid"),
        pytest.param(lambda: response("d").ui_block(ui.summary("\ud800")).build(), id="summary"),
        pytest.param(lambda: response("d").ui_block(ui.table(["\ud800"], [])).build(), id="table"),
        pytest.param(lambda: response("d").ui_block(ui.list(["\ud800"])).build(), id="list"),
        pytest.param(
            lambda: response("d").ui_block(ui.code_block("py", "\ud800")).build(), id="code"
        ),
        pytest.param(lambda: response("d").ui_block(ui.json("\ud800")).build(), id="json"),
        pytest.param(lambda: response("d").system_rules(["\ud800"]).build(), id="rule"),
        pytest.param(lambda: response("d").llm_hint("\ud800").build(), id="hint"),
        pytest.param(lambda: response("d").system_hint([("\ud800", "\udfff")]).build(), id="hint"),
        pytest.param(
            lambda: response("d").ui_block(ui.markdown("x", title="\ud800")).build(), id="title"
        ),
        pytest.param(lambda: response("d").ui_block("\ud800", "x").build(), id="ui-type"),
        pytest.param(lambda: error("\ud800", "\udfff"), id="error"),
        pytest.param(lambda: required("\ud800"), id="required"),
        pytest.param(
            lambda: tool_error(
                "\ud800",
                "\ud800",
                suggestion="\ud800",
                available_actions=["\ud800"],
                details={"\ud800": "\ud800"},
                severity="\ud800",
            ),
            id="tool-error",
        ),
    ],
)
def test_lone_surrogates_never_reach_the_wire_raw(make: Callable[[], ToolResponse]) -> None:
    """A lone surrogate anywhere is a FusionError or escaped: the SDK can send the result."""
    try:
        result = make()
    except FusionError:
        return
    for text in result.texts:
        text.encode("utf-8")
    result.to_mcp().model_dump_json(by_alias=True, exclude_none=True)


# Verbatim text is never altered, so a lone surrogate there is refused, naming the field.
VERBATIM_SURROGATES: dict[str, tuple[Callable[[], Any], str]] = {
    "str-data": (lambda: success("a\udc80"), "the data str"),
    "builder-data": (lambda: response("a\udc80").build(), "the data str"),
    "raw-block": (lambda: response("x").raw_block("\udc80").build(), "the raw block"),
    "ui-content": (
        lambda: response("x").ui_block(ui.markdown("\udc80")).build(),
        "the content of the 'markdown' UI block",
    ),
}


@pytest.mark.parametrize(("make", "path"), VERBATIM_SURROGATES.values(), ids=VERBATIM_SURROGATES)
def test_lone_surrogates_in_verbatim_text_name_the_field(
    make: Callable[[], Any], path: str
) -> None:
    """The SerializationError names the verbatim field that holds the lone surrogate."""
    with pytest.raises(SerializationError) as raised:
        make()
    assert raised.value.path == path
    assert str(raised.value).endswith(f"(at {path})")


@pytest.mark.parametrize(
    ("make", "path"),
    [
        pytest.param(lambda: success({"n": [1, HUGE_INT]}), "$.n[1]", id="success"),
        pytest.param(lambda: response({"n": HUGE_INT}).build(), "$.n", id="builder"),
        pytest.param(lambda: success_structured({"a": {"b": HUGE_INT}}), "$.a.b", id="structured"),
        pytest.param(lambda: toon_success([{"a": HUGE_INT}]), "$[0].a", id="toon"),
        pytest.param(lambda: toon_success([{"a": HUGE_INT}], version=4), "$[0].a", id="toon-v4"),
        pytest.param(lambda: success({HUGE_INT: 1}), "$", id="int-key"),
        pytest.param(lambda: to_json(-HUGE_INT), "$", id="to-json-negative"),
        pytest.param(
            lambda: tool_error("C", "m", details={"k": HUGE_INT}), "details.k", id="detail"
        ),
        pytest.param(
            lambda: tool_error("C", "m", details={"k": [HUGE_INT]}),
            "details.k[0]",
            id="detail-list",
        ),
        pytest.param(
            lambda: tool_error("C", "m", retry_after=HUGE_INT), "retry_after", id="retry-after"
        ),
    ],
)
def test_huge_ints_are_a_serialization_error_with_a_path(
    make: Callable[[], object], path: str
) -> None:
    """An int of more than 4,300 digits is refused by every writer, naming where it is."""
    with pytest.raises(SerializationError) as raised:
        make()
    assert raised.value.path == path
    assert "4,300 digits" in str(raised.value)


def test_ints_of_4300_digits_go_on_the_wire_exactly() -> None:
    """The largest int the wire allows is written and read back exactly, on every path."""
    value = 10**4300 - 1
    assert parse(success({"n": value})).view.data == {"n": value}
    assert to_json(value) == str(value)
    assert success_structured({"n": value})["structuredContent"] == {"n": value}
    assert str(value) in toon_success({"n": value}).texts[0]


def test_huge_ints_are_refused_whatever_this_process_reads() -> None:
    """The wire's digit limit does not follow sys.set_int_max_str_digits (process-global)."""
    import sys  # noqa: PLC0415

    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        with pytest.raises(SerializationError):
            success({"n": HUGE_INT})
        with pytest.raises(SerializationError):
            toon_success({"n": HUGE_INT})
    finally:
        sys.set_int_max_str_digits(before)


SURROGATE_DATA = {
    "value": ({"a": ["ok", "x\ud800"]}, "$.a[1]"),
    "key": ({"a": {"k\udc00": 1}}, '$.a["k\udc00"]'),
    "table-cell": ([{"id": 1, "name": "ok"}, {"id": 2, "name": "\udbff"}], "$[1].name"),
}


@pytest.mark.parametrize(("data", "path"), SURROGATE_DATA.values(), ids=SURROGATE_DATA)
@pytest.mark.parametrize(
    "make",
    [
        pytest.param(success_structured, id="structured"),
        pytest.param(toon_success, id="toon"),
        pytest.param(lambda data: toon_success(data, delimiter="\t"), id="toon-tab"),
        pytest.param(lambda data: toon_success(data, version=4), id="toon-v4"),
        pytest.param(lambda data: toon_success(data, key_folding="safe"), id="toon-folded"),
    ],
)
def test_lone_surrogates_in_data_exits_are_a_serialization_error(
    make: Callable[[Any], ToolResponse], data: Any, path: str
) -> None:
    """StructuredContent and TOON have no escape for a lone surrogate: a clear error at its path."""
    with pytest.raises(SerializationError) as raised:
        make(data)
    assert raised.value.path == path


@pytest.mark.parametrize(("data", "_path"), SURROGATE_DATA.values(), ids=SURROGATE_DATA)
def test_lone_surrogates_in_json_text_are_escaped(data: Any, _path: str) -> None:
    """The JSON text path escapes a lone surrogate (as JSON.stringify does) and reads it back."""
    built = success(data)
    built.to_mcp().model_dump_json(by_alias=True, exclude_none=True)
    assert parse(built).view.data == data


@pytest.mark.parametrize(
    ("where", "path"),
    [
        pytest.param({"description": "d\ud800"}, "tools['t'].description", id="tool-description"),
        pytest.param({"instructions": "\udc00"}, "tools['t'].description", id="instructions"),
        pytest.param({"action": "g\ud800"}, "tools['t'].description", id="action-description"),
    ],
)
def test_lone_surrogates_in_tool_definitions_are_a_serialization_error(
    where: dict[str, str], path: str
) -> None:
    """A definition the SDK could not encode (tools/list) is an error naming the tool and field."""
    tool = Tool("t", description=where.get("description"), instructions=where.get("instructions"))
    action_description = where.get("action")

    @tool.action("go", description=action_description)
    def go() -> ToolResponse:
        return success("ok")

    @tool.action("stop")  # with two actions, their descriptions are listed
    def stop() -> ToolResponse:
        return success("ok")

    with pytest.raises(SerializationError) as raised:
        FusionApp([tool]).definitions()
    assert raised.value.path.startswith(path)
