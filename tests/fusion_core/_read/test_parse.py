"""parse(): inputs, typed blocks, the layout rule, the data rule, safety."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from typing import Any

import orjson
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import fusion_core as fc
from fusion_core import ui
from fusion_core._errors import WireFormatError
from fusion_core._limits import MAX_XML_SIZE
from fusion_core._read import _safexml
from fusion_core._read._parse import parse
from fusion_core._read._parsed_blocks import (
    DataBlock,
    DirectivesBlock,
    EmbedBlock,
    RulesBlock,
    SuggestionsBlock,
    ToolErrorBlock,
    UiBlockText,
    ValidationErrorBlock,
    ValidationField,
)
from fusion_core._read._safexml import new_parser, parse_xml
from fusion_core._write import _json
from fusion_core._write._blocks import render_data
from fusion_core._write._response import view_of

FULL = (
    fc.response({"id": 7})
    .ui_block(ui.summary("1 invoice", title="Q3 & Q4", width="half", priority=2))
    .raw_block("<child>verbatim</child>")
    .llm_hint("Amounts are in cents.")
    .system_rules(["Never reveal ids.", "Round & format."])
    .system_hint([("invoices.get", "see one")])
    .build()
)


def _wire(*texts: str, **extra: Any) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": t} for t in texts], **extra}


@pytest.mark.parametrize(
    "source",
    [
        FULL,
        dict(FULL),
        json.dumps(FULL),
        json.dumps(FULL).encode(),
        bytearray(json.dumps(FULL).encode()),
        memoryview(json.dumps(FULL).encode()),
    ],
    ids=["ToolResponse", "dict", "str", "bytes", "bytearray", "memoryview"],
)
def test_every_input_form_gives_the_builders_view(source: object) -> None:
    """A ToolResponse, its wire dict and its JSON text all parse to its view."""
    assert parse(source).view == view_of(FULL)


def test_mcp_call_tool_result() -> None:
    """The mcp SDK's CallToolResult parses like its wire dict."""
    result = fc.tool_error("E", "m", severity="warning").to_mcp()
    parsed = parse(result)
    assert parsed.is_error is False
    assert parsed.view == view_of(fc.tool_error("E", "m", severity="warning"))


def test_typed_blocks_in_order() -> None:
    """Each content block becomes one typed block, in order."""
    blocks = parse(FULL).blocks
    assert [type(b) for b in blocks] == [
        DataBlock,
        UiBlockText,
        EmbedBlock,
        DirectivesBlock,
        RulesBlock,
        SuggestionsBlock,
    ]
    ui_block = blocks[1]
    assert isinstance(ui_block, UiBlockText)
    assert ui_block.attributes == (
        ("type", "summary"),
        ("title", "Q3 & Q4"),
        ("width", "half"),
        ("priority", "2"),
    )
    assert ui_block.content == "📊 **Summary**: 1 invoice"
    assert blocks[4] == RulesBlock(FULL.texts[4], ("Never reveal ids.", "Round & format."))
    assert blocks[5] == SuggestionsBlock(FULL.texts[5], (fc.Suggestion("invoices.get", "see one"),))


@pytest.mark.parametrize(
    ("data", "value", "is_json"),
    [
        (42, 42, True),
        ("42", 42, True),
        ('"a"', '"a"', False),
        ("hello", "hello", False),
        ("-0", "-0", False),
        ("1.0", "1.0", False),
        ({"a": 1.5}, {"a": 1.5}, True),
        ('{"a":1}', '{"a":1}', False),
        ("{ broken", "{ broken", False),
        (2**70, 2**70, True),
        ([1e21, 1e-7], [1e21, 1e-7], True),
        ("", "OK", False),
    ],
)
def test_data_rule(data: Any, value: Any, is_json: bool) -> None:
    """JSON whose canonical text is the block reads as JSON; anything else as str."""
    response = fc.success(data)
    block = parse(response).blocks[0]
    assert block == DataBlock(response.texts[0], value, is_json)
    assert parse(response).view == view_of(response)


def test_structured_content_makes_strings_json() -> None:
    """With structuredContent the data block is JSON, strings included."""
    response = fc.success_structured("hello")
    parsed = parse(json.dumps(response))
    assert parsed.blocks[0] == DataBlock('"hello"', "hello", is_json=True)
    assert parsed.structured_content == "hello"
    assert parsed.has_structured_content
    assert parsed.view == view_of(response)


def test_tool_error_envelope_block() -> None:
    """A tool_error envelope is block 0, decoded into the view's ErrorEnvelope."""
    response = fc.tool_error(
        "E<",
        "a & b",
        suggestion="retry\nlater",
        available_actions=["x", "<y>"],
        details={"k&": "v<"},
        retry_after=30,
    )
    parsed = parse(response)
    block = parsed.blocks[0]
    assert isinstance(block, ToolErrorBlock)
    assert block.envelope == view_of(response).error
    assert parsed.view.data is None
    assert parsed.is_error is True


def test_reference_pipeline_envelope_layout() -> None:
    """The pipeline's text-form available_actions and element order are read."""
    text = (
        '<tool_error code="UNKNOWN_ACTION">\n<message>The action "&lt;x>" does not exist.'
        "</message>\n<available_actions>list, create</available_actions>\n"
        "<recovery>Choose a valid action.</recovery>\n</tool_error>"
    )
    envelope = parse(_wire(text, isError=True)).view.error
    assert envelope == fc.ErrorEnvelope(
        message='The action "<x>" does not exist.',
        code="UNKNOWN_ACTION",
        recovery="Choose a valid action.",
        available_actions=("list", "create"),
    )


def test_validation_error_envelope() -> None:
    """<validation_error> gives its action, fields in order, and recovery."""
    text = (
        '<validation_error action="projects/create">\n'
        '<field name="size">Too big: expected number to be &lt;=10</field>\n'
        '<field name="(root)">Unrecognized key: "colour"</field>\n'
        "<recovery>Fix the fields above.</recovery>\n</validation_error>"
    )
    block = parse(_wire(text, isError=True)).blocks[0]
    assert block == ValidationErrorBlock(
        text,
        "projects/create",
        (
            ValidationField("size", "Too big: expected number to be <=10"),
            ValidationField("(root)", 'Unrecognized key: "colour"'),
        ),
        "Fix the fields above.",
        (("action", "projects/create"),),
    )


def test_malformed_envelope_reads_as_data() -> None:
    """A block that only starts like an envelope is data (check() reports it)."""
    text = "<tool_error>\n<message>a < b</message>\n</tool_error>"
    assert parse(_wire(text, isError=True)).blocks[0] == DataBlock(text, text, is_json=False)


def test_embeds_between_ui_and_tail() -> None:
    """Blocks between the UI run and the tail are embeds, verbatim, whatever they hold."""
    child_rules = "<domain_rules>\n- child\n</domain_rules>"
    child_ui = '<ui_passthrough type="summary">\nchild\n</ui_passthrough>'
    response = (
        fc.response(1)
        .ui_block(ui.markdown("parent"))
        .raw_block("raw")
        .raw_block(child_ui)
        .raw_block(child_rules)
        .system_rules(["parent"])
        .build()
    )
    parsed = parse(response)
    assert parsed.view == view_of(response)
    assert parsed.view.embeds == ("raw", child_ui, child_rules)
    assert parsed.view.rules == ("parent",)


def test_child_blocks_at_the_edges_read_as_the_parents() -> None:
    """A child UI block right after the data, or child rules last, read as the parent's.

    Bytes cannot tell them apart; the views differ by field but render the
    same blocks (documented in the layout rule).
    """
    child_ui = '<ui_passthrough type="summary">\nchild\n</ui_passthrough>'
    child_rules = "<domain_rules>\n- child\n</domain_rules>"
    response = fc.response(1).raw_block(child_ui).raw_block(child_rules).build()
    view = parse(response).view
    assert view.embeds == ()
    assert view.ui_blocks == (fc.UiBlock("summary", "child"),)
    assert view.rules == ("child",)
    rendered = fc.response(view.data).ui_blocks(view.ui_blocks).system_rules(view.rules).build()
    assert rendered.texts == response.texts


def test_directives_anchor_the_tail() -> None:
    """After <llm_directives>, repeated kinds are top-level (and merged in the view)."""
    rules = "<domain_rules>\n- a\n</domain_rules>"
    wire = _wire("1", "<llm_directives>\n- d\n</llm_directives>", rules, rules)
    parsed = parse(wire)
    assert parsed.tail_start == 1
    assert parsed.view.rules == ("a", "a")


def test_ui_lenient_attributes_of_the_reference() -> None:
    """The reference's unescaped quotes in a title are still read."""
    text = (
        '<ui_passthrough type="t" title="say "hi" <b>" width="wide" priority="null">'
        "\nc\n</ui_passthrough>"
    )
    block = parse(_wire("1", text)).blocks[1]
    assert isinstance(block, UiBlockText)
    assert block.attribute("title") == 'say "hi" <b>'
    assert block.ui_block == fc.UiBlock("t", "c", fc.UiMeta(title='say "hi" <b>'))


@pytest.mark.parametrize(
    "text",
    [
        "<ui_passthrough>\nc\n</ui_passthrough>",
        '<ui_passthrough type="x">\n</ui_passthrough>',
        '<ui_passthrough type="x">c</ui_passthrough>',
        "<domain_rules>\n\n</domain_rules>",
        "<domain_rules>\nno dash\n</domain_rules>",
    ],
)
def test_malformed_fusion_blocks_are_embeds(text: str) -> None:
    """A block that cannot be read as its kind is kept verbatim."""
    assert parse(_wire("1", text, "raw")).blocks[1] == EmbedBlock(text)


@pytest.mark.parametrize(
    "source",
    [
        42,
        None,
        "not json",
        b"\xff\xfe",
        "[1, 2]",
        json.dumps({"content": []}),
        json.dumps({"content": "x"}),
        json.dumps({"content": [{"type": "image", "data": ""}]}),
        json.dumps({"content": [{"type": "text"}]}),
        json.dumps({"content": [{"type": "text", "text": "x"}], "isError": "yes"}),
        "[" * 100_000,
    ],
)
def test_not_a_response_is_a_wire_format_error(source: object) -> None:
    """Anything that is not a response of text blocks raises WireFormatError."""
    with pytest.raises(WireFormatError):
        parse(source)


def test_size_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Inputs beyond the size policy (scaled down here) are refused with WireFormatError."""
    monkeypatch.setattr("fusion_core._read._parse.MAX_MESSAGE_SIZE", 1000)
    monkeypatch.setattr("fusion_core._read._parse.MAX_RESPONSE_SIZE", 100)
    with pytest.raises(WireFormatError, match="at most 1,000"):
        parse(" " * 1001)
    with pytest.raises(WireFormatError, match="block 1"):
        parse(_wire("1", "x" * 100))
    assert parse(_wire("1", "x" * 99)).view.embeds == ("x" * 99,)
    with pytest.raises(WireFormatError, match="XML blocks"):
        parse_xml("<a>" + "x" * MAX_XML_SIZE + "</a>")


XXE = '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>\n<tool_error>\n<message>&e;</message>\n</tool_error>'
BOMB = (
    '<!DOCTYPE lolz [<!ENTITY lol "lol">'
    + "".join(
        f'<!ENTITY lol{i} "{("&lol" + str(i - 1) + ";") * 10 if i > 1 else "&lol;" * 10}">'
        for i in range(1, 10)
    )
    + "]>\n<tool_error>\n<message>&lol9;</message>\n</tool_error>"
)


@pytest.mark.parametrize("payload", [XXE, BOMB], ids=["xxe", "billion-laughs"])
def test_hostile_xml_is_harmless(payload: str) -> None:
    """XXE and entity bombs: never resolved or expanded, by parse, check or lxml."""
    parsed = parse(_wire(payload, isError=True))
    assert isinstance(parsed.blocks[0], DataBlock)
    assert parsed.view.data == payload  # verbatim: nothing read, nothing expanded
    with pytest.raises(WireFormatError, match="DTD"):
        parse_xml(payload)
    from lxml import etree  # noqa: PLC0415 - the second line of defence, directly

    try:
        root = etree.fromstring(payload.encode(), new_parser())
    except etree.XMLSyntaxError:
        root = None
    if root is not None:
        text = etree.tostring(root).decode()
        assert "root:" not in text
        assert "lollollol" not in text


def _xml_char(code: int) -> bool:
    """XML 1.0's Char production."""
    return (
        code in (0x9, 0xA, 0xD)
        or 0x20 <= code <= 0xD7FF
        or 0xE000 <= code <= 0xFFFD
        or 0x10000 <= code <= 0x10FFFF
    )


_EDGES = [0, 8, 9, 0x1F, 0x20, 0xD7FF, 0xD800, 0xDFFF, 0xE000, 0xFFFD, 0xFFFE, 0xFFFF]
_EDGES += [0x10000, 0x10FFFF, 0x110000, 0xFFFFFF, 1114111, 1114112, 9_999_999, 10**7, 10**30]
_REF_FORMS: dict[str, Callable[[int], str]] = {
    "hex": lambda code: f"&#x{code:x};",
    "decimal": lambda code: f"&#{code};",
    "HEX-digits": lambda code: f"&#x{code:X};",
    "hex-zeros": lambda code: f"&#x000{code:x};",
    "decimal-zeros": lambda code: f"&#00{code};",
}


@pytest.mark.parametrize("form", sorted(_REF_FORMS))
def test_exactly_the_references_xml_cannot_carry_become_fffd(form: str) -> None:
    """The reference pass rewrites a reference iff its value is no XML 1.0 Char.

    Every code point up to U+10FFFF and past it for the two plain forms, a
    sample and the edges for upper-case digits and leading zeros; one
    pattern does it (a pass in C), so this checks the pattern is exact.
    """
    step = 1 if form in ("hex", "decimal") else 97
    codes = [*range(0, 0x110100, step), *_EDGES]
    refs = [_REF_FORMS[form](code) for code in codes]
    got = _safexml._ILLEGAL_REF.sub("!", "".join(refs))
    want = "".join(ref if _xml_char(code) else "!" for code, ref in zip(codes, refs, strict=True))
    assert got == want
    # lxml is tried first, and must refuse every reference the pattern rewrites
    # (else a block holding one would keep it): each edge alone, then a sample.
    for code in {max(0, edge + step) for edge in _EDGES for step in (-1, 0, 1)}:
        alone = parse_xml(f"<a>{_REF_FORMS[form](code)}</a>").text
        assert alone == (chr(code) if _xml_char(code) else "\ufffd"), hex(code)
    sample = slice(None, None, max(1, len(refs) // 2000))
    root = parse_xml("<a>" + "".join(refs[sample]) + "</a>")
    assert root.text == "".join(chr(c) if _xml_char(c) else "\ufffd" for c in codes[sample])


@pytest.mark.parametrize("ref", ["&#;", "&#x;", "&#X41;", "&#xG;", "&#65", "&# 65;", "&#-1;"])
def test_a_malformed_character_reference_is_refused_not_rewritten(ref: str) -> None:
    """No digit, no ``x``, no ``;``: no reference, so nothing to read as U+FFFD."""
    assert _safexml._ILLEGAL_REF.sub("!", ref) == ref
    for block in (f"<a>{ref}</a>", f'<a b="{ref}"/>', f"<a>&#1;{ref}</a>"):
        with pytest.raises(WireFormatError, match="not well-formed"):
            parse_xml(block)


def test_envelope_entities_are_never_expanded() -> None:
    """Unknown entity references in envelope text stay literal text."""
    text = "<tool_error>\n<message>&e; &lol9;</message>\n</tool_error>"
    envelope = parse(_wire(text, isError=True)).view.error
    assert envelope is not None
    assert envelope.message == "&e; &lol9;"


def test_rendered_data_matches_the_block() -> None:
    """The view's data always renders back to the data block's text."""
    for data in [0, "0", "x", [], {}, None, True, 1.5, "[1]"]:
        response = fc.success(data)
        assert render_data(parse(response).view.data) == response.texts[0]


# ------------------------------------------- the canonical-JSON check (issue 13.3)

_floats = st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from(
    [1.0, -0.0, 1e16, 1e20, 1e21, 1.5e-6, 1e-6, 9.99e-6, 1e-7, 4500.0, 1.05, 0.06]
)
_json_values = st.recursive(
    _floats | st.integers(-(2**63), 2**63 - 1) | st.text() | st.booleans() | st.none(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def _texts_for(value: Any) -> list[bytes]:
    """Texts that are, and texts that nearly are, the canonical JSON of ``value``."""
    canonical = fc.to_json(value).encode("utf-8", "surrogatepass")
    indented = orjson.dumps(value, option=orjson.OPT_INDENT_2)
    return [
        canonical,
        indented,
        orjson.dumps(value),
        canonical.replace(b"\n", b"\n "),
        canonical + b"\n",
        canonical.replace(b"0", b"0.0"),
    ]


@given(_json_values)
@example({"price": 4500.0, "tiny": 1.5e-6, "big": 1e17, "note": "ends with 1.0"})
@example([1e-6, 1e21, 0.0000015, -0.0])
def test_canonical_check_c_and_python_agree(value: Any) -> None:
    """The C-assisted canonical check and the pure-Python one answer alike, and rightly."""
    out = orjson.dumps(value, option=orjson.OPT_INDENT_2)
    canonical = fc.to_json(value).encode()
    for raw in _texts_for(value):
        expected = raw == canonical
        assert _json._rewrites_to_regex(out, raw) is expected
        assert _json._rewrites_to_c(out, raw) is expected


@given(_json_values.map(lambda value: fc.response(value).build()))
def test_parse_without_the_c_helper_gives_the_same_views(response: fc.ToolResponse) -> None:
    """parse() reads the same blocks and view with the pure-Python canonical check."""
    fast = parse(response)
    original = _json._rewrites_to
    _json._rewrites_to = _json._rewrites_to_regex
    try:
        slow = parse(response)
    finally:
        _json._rewrites_to = original
    assert slow.blocks == fast.blocks
    assert slow.view == fast.view


def test_data_with_js_float_forms_reads_as_json() -> None:
    """Floats that JavaScript writes unlike orjson (1e16, 1.5e-6, 4500) read back as JSON."""
    data = {"big": 1e16, "tiny": 1.5e-6, "whole": 4500.0, "plain": 0.25}
    block = parse(fc.success(data)).blocks[0]
    assert isinstance(block, DataBlock)
    assert block.is_json
    assert block.value == {"big": 10**16, "tiny": 1.5e-6, "whole": 4500, "plain": 0.25}


def test_non_canonical_json_data_reads_as_text() -> None:
    """JSON that to_json would not write (compact, integral floats) stays text."""
    for text in ('{"a":1}', "[\n  1.0\n]", "[\n  1e+16\n]"):
        block = parse(_wire(text)).blocks[0]
        assert isinstance(block, DataBlock)
        assert not block.is_json
        assert block.value == text


# ------------------------------------ readers raise only their own error (issue 8.10)

_TAGS = (
    "ui_passthrough", "llm_directives", "domain_rules", "action_suggestions", "tool_error",
    "validation_error", "message", "recovery", "retry_after", "available_actions", "action",
    "details", "detail", "field",
)  # fmt: skip
_PIECES = st.sampled_from(
    [f"<{tag}" for tag in _TAGS]
    + [f"</{tag}>" for tag in _TAGS]
    + [f"<{tag}>" for tag in _TAGS]
    + [">", "\n", "- ", "  ", ' type="', ' key="', ' name="', ' code="', ' severity="', '"']
    + ["&#x110000;", "&#xD800;", "&#0;", "&#" + "9" * 30 + ";", "&#x" + "0" * 9 + "41;"]
    + ["&amp;", "&", "<!DOCTYPE x>", "<!ENTITY", "```", "`", ": ", "\r", "\u2028", "\ud800"]
    + ["]]>", "{", "[", "1e+5", "1.0", "\x00", "é", " seconds", "<\\/ui_passthrough"]
    + ["</UI_PASSTHROUGH>", "x"]
)
_MARKUP = st.lists(_PIECES | st.text(max_size=5), max_size=25).map("".join)
_ANY = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["content", "type", "text", "isError", "structuredContent", "x"]),
            inner,
            max_size=4,
        )
    ),
    max_leaves=10,
)


def _only_own_errors(source: object) -> None:
    for reader in (parse, fc.check):
        with contextlib.suppress(WireFormatError):
            reader(source)


@given(
    st.lists(_MARKUP, min_size=1, max_size=5),
    st.none() | st.booleans() | st.integers() | st.text(max_size=3),
    st.booleans(),
)
def test_near_fusion_markup_never_raises_a_foreign_exception(
    texts: list[str], is_error: object, structured: bool
) -> None:
    """parse() and check() of near-Fusion markup answer or raise WireFormatError, nothing else."""
    wire: dict[str, Any] = {"content": [{"type": "text", "text": text} for text in texts]}
    if is_error is not None:
        wire["isError"] = is_error
    if structured:
        wire["structuredContent"] = {"a": texts[0]}
    _only_own_errors(wire)
    _only_own_errors(json.dumps(wire))


@given(st.binary(max_size=80) | st.text(max_size=80) | _ANY.map(json.dumps))
@example(b"\xff\xfe{}")
@example(b'{"content": [{"type": "text", "text": "\\ud800"}]}')
@example('{"content": [{"type": "text", "text": "a"}], "structuredContent": ' + "9" * 5000 + "}")
def test_any_bytes_or_wrongly_typed_json_never_raise_a_foreign_exception(source: object) -> None:
    """Non-UTF-8 bytes, arbitrary text and JSON of the wrong shape: WireFormatError at most."""
    _only_own_errors(source)


def test_writer_refuses_a_response_beyond_the_size_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    """A response larger than MAX_RESPONSE_SIZE (scaled down here) is a SizeLimitError."""
    monkeypatch.setattr("fusion_core._limits.MAX_RESPONSE_SIZE", 100)
    with pytest.raises(fc.SizeLimitError, match="at most 100") as raised:
        fc.response("x" * 60).system_rules(["y" * 60]).build()
    assert raised.value.limit == 100
    assert fc.response("x" * 60).build().texts == ["x" * 60]


def test_the_reader_reads_everything_the_writer_allows() -> None:
    """The reader's bounds are the writer's: a block far beyond the old 16 MiB limit reads."""
    from fusion_core._limits import MAX_MESSAGE_SIZE, MAX_RESPONSE_SIZE  # noqa: PLC0415

    assert MAX_MESSAGE_SIZE >= MAX_RESPONSE_SIZE
    big = "x" * (17 * 1024 * 1024)
    assert parse(fc.success(big)).view.data == big


_LONE = "x\udbffy\udc00"
LONE_SURROGATE_BLOCKS: dict[str, list[str]] = {
    "data-str": [_LONE],
    "data-json": ['{\n  "a": "' + _LONE + '"\n}'],
    "ui-content": ["{}", f'<ui_passthrough type="markdown">\n{_LONE}\n</ui_passthrough>'],
    "ui-title": ["{}", f'<ui_passthrough type="markdown" title="{_LONE}">\nx\n</ui_passthrough>'],
    "ui-meta-and-content": [
        "{}",
        f'<ui_passthrough type="summary" width="half" priority="2">\n{_LONE}\n</ui_passthrough>',
    ],
    "rules": ["{}", f"<domain_rules>\n- {_LONE}\n</domain_rules>"],
    "directives": ["{}", f"<llm_directives>\n- {_LONE}\n</llm_directives>"],
    "suggestions": ["{}", f"<action_suggestions>\n- {_LONE}: why\n</action_suggestions>"],
    "embed": ["{}", f"raw {_LONE}"],
    "tool-error": [f'<tool_error code="X">\n<message>{_LONE}</message>\n</tool_error>'],
}


@pytest.mark.parametrize("texts", LONE_SURROGATE_BLOCKS.values(), ids=LONE_SURROGATE_BLOCKS)
def test_a_lone_surrogate_anywhere_is_read_never_raised(texts: list[str]) -> None:
    """parse() reads what arrives: the writers refuse lone surrogates, the reader keeps them."""
    wire = {"content": [{"type": "text", "text": text} for text in texts]}
    parsed = parse(wire)
    assert parsed.texts == texts
    assert parse(json.dumps(wire)).view == parsed.view
    assert all(isinstance(v.message, str) for v in fc.check(wire))


@given(st.text(st.characters(codec=None, categories=["Cs", "L", "Zs"]), max_size=40))
def test_ui_content_with_lone_surrogates_reads_back_as_it_arrived(content: str) -> None:
    """UI content is verbatim: whatever it holds, the view's block holds the same text."""
    text = f'<ui_passthrough type="markdown" width="full">\n{content}\n</ui_passthrough>'
    view = parse({"content": [{"type": "text", "text": "{}"}, {"type": "text", "text": text}]}).view
    assert [(b.type, b.content, b.meta) for b in view.ui_blocks] == [
        ("markdown", content, fc.UiMeta(width="full"))
    ]


def _names_a_character(code: int) -> bool:
    return code <= 0x10FFFF


_REFERENCE_CODES = [
    *range(0x30),
    0xD7FF,
    0xD800,
    0xFFFF,
    0x10000,
    *range(0x10FFF0, 0x110010),
    *range(1114100, 1114125),
    0xFFFFFF,
    0x1000000,
    10**7 - 1,
    10**7,
    10**8,
    16**7,
    16**12,
]


@pytest.mark.parametrize("zeros", ["", "0", "0000000000"])
@pytest.mark.parametrize("code", _REFERENCE_CODES)
def test_a_reference_is_refused_exactly_when_it_names_no_character(code: int, zeros: str) -> None:
    """Issue 25.11: the one-search judge of references agrees with chr() at every boundary.

    Hex (both digit cases) and decimal, with and without leading zeros, around
    U+10FFFF (1114111) and the digit counts where the judge switches rules.
    """
    for spelled in (f"&#x{zeros}{code:x};", f"&#x{zeros}{code:X};", f"&#{zeros}{code};"):
        block = f"<domain_rules>\n- a {spelled} b\n</domain_rules>"
        wire = {"content": [{"type": "text", "text": "x"}, {"type": "text", "text": block}]}
        if _names_a_character(code):
            assert parse(wire).view.rules == (f"a {chr(code)} b",), spelled
        else:
            with pytest.raises(fc.CharacterReferenceError, match="names no character") as raised:
                parse(wire)
            assert raised.value.offset == len("<domain_rules>\n- a "), spelled


def test_a_data_block_orjson_wrote_is_read_without_the_canonical_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A response built here says orjson wrote its data block; the reader skips re-encoding it.

    The check re-encodes the whole value (a fifth of a large read); a plain
    dict of the same bytes, a copy, or a block written by the exact encoder
    (an int beyond 64 bits) is checked as before.
    """
    from fusion_core._read import _parse  # noqa: PLC0415 - the check's module
    from fusion_core._write._response import json_data_of  # noqa: PLC0415

    checked: list[str] = []
    original = _parse._is_json_canonical

    def spy(text: str, value: object, raw: bytes | str) -> bool:
        checked.append(text)
        return original(text, value, raw)

    monkeypatch.setattr(_parse, "_is_json_canonical", spy)
    built = fc.response([{"id": 1, "amount": 1.5}]).system_rules(["r"]).build()
    assert json_data_of(built) is built.texts[0]
    first = parse(built).blocks[0]
    assert first == DataBlock(built.texts[0], [{"id": 1, "amount": 1.5}], is_json=True)
    assert checked == []
    assert parse(dict(built)).blocks[0] == first
    assert checked == [built.texts[0]]
    huge = fc.success({"n": 2**70})
    assert json_data_of(huge) is None
    assert parse(huge).blocks[0] == DataBlock(huge.texts[0], {"n": 2**70}, is_json=True)
    assert len(checked) >= 2
    assert json_data_of(fc.success("plain text")) is None
