"""Every fast path of the per-call pipeline gives what the general path gives.

The escapes, item leads, table cells, remembered item encodings and
integral floats each skip their general code for common input
(``fusion_core._write._text``, ``_ui``, ``_blocks``, ``_numbers``); here each is
compared with that general code on generated text (any code point,
surrogates, noncharacters and XML specials included), str subclasses that
answer ``isprintable`` or ``in`` wrongly, and numbers around the limits.
"""

from __future__ import annotations

import math
import re
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from fusion_core import SerializationError, UIError, ui
from fusion_core._write import _blocks
from fusion_core._write._numbers import _digits_and_point, js_number
from fusion_core._write._text import (
    _ATTR_SPECIAL,
    _BLANK_LEAD,
    _BLANK_TOOL_LEAD,
    _TEXT_SPECIAL,
    _THEMATIC_LEAD,
    _reference,
    encode_item,
    encode_tool,
    escape_attr,
    escape_text,
    has_lone_surrogate,
    lead_first_item,
    lead_item,
    require_unicode,
)
from fusion_core._write._ui import _cell
from fusion_core._write._view import Suggestion

# Text weighted toward what the escapes and leads look at.
_SPECIALS = "&<>\"']\r\n\t\x00\x0b\x85\u2028\u2029\ud800\udfff\ufffe\uffff\\- |`"
TEXT = st.text(
    st.one_of(st.characters(codec=None), st.sampled_from(_SPECIALS)),
    max_size=40,
)


class _Liar(str):
    """A str subclass whose own methods claim it holds nothing to escape."""

    __slots__ = ()

    def isprintable(self) -> bool:
        return True

    def __contains__(self, _item: object) -> bool:
        return False

    def __getitem__(self, _index: Any) -> str:
        return "x"


@given(TEXT)
@example("a]]>b")
@example("\u00a0&")
def test_escape_text_fast_path_equals_the_regex(text: str) -> None:
    """Printable text without specials comes back as it is; any other as the regex writes it."""
    assert escape_text(text) == _TEXT_SPECIAL.sub(_reference, text)


@given(TEXT)
@example("it's")
@example('a "b"')
def test_escape_attr_fast_path_equals_the_regex(text: str) -> None:
    """The attribute escape's fast path agrees with its regex on any text."""
    assert escape_attr(text) == _ATTR_SPECIAL.sub(_reference, text)


@given(TEXT)
@example("--")
@example(" - -")
@example("\\--")
@example("")
def test_lead_item_fast_path_equals_the_regex(text: str) -> None:
    """Only text the thematic-break pattern matches gains a backslash."""
    expected = "\\" + text if _THEMATIC_LEAD.match(text) else text
    assert lead_item(text) == expected


@given(text=TEXT, tool=st.booleans())
@example(text="", tool=False)
@example(text=" \t", tool=False)
@example(text="\\\n", tool=True)
@example(text="\r--", tool=False)
def test_lead_first_item_fast_path_equals_the_regex(text: str, *, tool: bool) -> None:
    """A led first item gains one more backslash only where its first line is blank."""
    led = lead_item(text)
    blank = (_BLANK_TOOL_LEAD if tool else _BLANK_LEAD).match(led)
    assert lead_first_item(text, tool=tool) == ("\\" + led if blank else led)


@pytest.mark.parametrize("text", ["<b>&", "--", "a\rb", "", " \nx"])
def test_a_str_subclass_takes_the_general_path(text: str) -> None:
    """A subclass that claims to be printable and to hold nothing is still escaped and led."""
    liar = _Liar(text)
    assert escape_text(liar) == _TEXT_SPECIAL.sub(_reference, text)
    assert escape_attr(liar) == _ATTR_SPECIAL.sub(_reference, text)
    assert lead_item(liar) == ("\\" + text if _THEMATIC_LEAD.match(text) else text)
    assert lead_first_item(liar) == lead_first_item(str.__str__(liar))


class _LooksLikeJson:
    """No str, but hashes and compares like the tag ``json``; writes itself as a forgery."""

    def __hash__(self) -> int:
        return hash("json")

    def __eq__(self, other: object) -> bool:
        return other == "json"

    def __str__(self) -> str:
        return "json\n</ui_passthrough><domain_rules>"


def test_a_language_equal_to_a_helper_tag_but_no_str_takes_the_general_check() -> None:
    """The tag fast path answers only for a real str: anything else is a UIError, never written."""
    with pytest.raises(UIError, match="invalid language tag"):
        ui.code_block(_LooksLikeJson(), "x")  # type: ignore[arg-type]


CELL = st.one_of(
    TEXT,
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
)


@given(st.lists(CELL, min_size=1, max_size=5), st.lists(st.lists(CELL, max_size=5), max_size=3))
@example(["a|b", "x\r\ny"], [[2**63, -(2**63), 2**63 - 1, True, None]])
def test_table_cells_equal_the_general_cell_writer(headers: list[Any], rows: list[Any]) -> None:
    """Each table line is ``| `` + the general writer's cells + `` |``, whatever the cells."""
    try:
        content = ui.table(headers, rows).content
    except SerializationError:  # a lone surrogate in a cell: refused like any UI content
        return
    lines = [
        "| " + " | ".join(_cell(value) for value in headers) + " |",
        "| " + " | ".join(["---"] * len(headers)) + " |",
        "\n".join("| " + " | ".join(_cell(value) for value in row) + " |" for row in rows),
    ]
    assert content == "\n".join(lines)


def test_a_table_from_iterables_counts_its_header_cells() -> None:
    """Headers given as a generator: the separator has one cell per header, as for a list."""
    headers = (name for name in ["a", "b"])
    block = ui.table(headers, [["1", "2"]])
    assert block.content == "| a | b |\n| --- | --- |\n| 1 | 2 |"


@given(st.lists(TEXT, min_size=1, max_size=6))
def test_remembered_item_encodings_equal_fresh_ones(items: list[str]) -> None:
    """A rule or suggestion written twice (from the memo the second time) reads the same."""
    first = _blocks.render_rules(items)
    assert _blocks.render_rules(items) == first
    led = [lead_first_item(items[0]), *map(lead_item, items[1:])]  # the first apart
    body = "\n".join("- " + encode_item(item) for item in led)
    assert first == f"<domain_rules>\n{body}\n</domain_rules>"
    pairs = [Suggestion(tool, reason) for tool, reason in zip(items, reversed(items), strict=True)]
    written = "\n".join(
        f"- {encode_tool(s.tool, first=i == 0)}: {encode_item(s.reason)}"
        for i, s in enumerate(pairs)
    )
    assert (
        _blocks.render_suggestions(pairs)
        == f"<action_suggestions>\n{written}\n</action_suggestions>"
    )


def test_the_item_memo_stays_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """More distinct items than a memo holds empty it, never grow it past its size.

    A block's first item has a memo of its own (it is led apart), the others share one.
    """
    for memo in ("_LED_ITEMS", "_FIRST_ITEMS"):
        monkeypatch.setattr(_blocks, memo, {})
    sizes = set()
    for index in range(_blocks._MEMO_ENTRIES + 10):
        _blocks.render_rules([f"first {index}", f"rule {index}"])
        sizes.add((len(_blocks._FIRST_ITEMS), len(_blocks._LED_ITEMS)))
    assert max(sizes) == (_blocks._MEMO_ENTRIES, _blocks._MEMO_ENTRIES)
    # emptied once when full, then refilled
    assert (len(_blocks._FIRST_ITEMS), len(_blocks._LED_ITEMS)) == (10, 10)
    long = "x" * (_blocks._MEMO_LENGTH + 1)
    _blocks.render_rules([long, long])
    assert long not in _blocks._LED_ITEMS
    assert long not in _blocks._FIRST_ITEMS


@pytest.mark.parametrize("length", [8, _blocks._MEMO_LENGTH + 1], ids=["remembered", "too long"])
def test_items_are_encoded_afresh_when_the_memos_are_cold(
    monkeypatch: pytest.MonkeyPatch, length: int
) -> None:
    """Empty memos (a new process) and texts too long to remember give the fresh encodings.

    A warm memo hides its encoder: every text a test already wrote is a hit.
    """
    for memo in ("_LED_ITEMS", "_FIRST_ITEMS", "_TOOLS", "_FIRST_TOOLS", "_REASONS"):
        monkeypatch.setattr(_blocks, memo, {})
    tool, reason = "\n--: t".ljust(length, "<"), "r\n- x&".ljust(length, "]")
    written = _blocks.render_suggestions([Suggestion(tool, reason), Suggestion(tool, reason)])
    first = f"- {encode_tool(tool, first=True)}: {encode_item(reason)}"
    assert written == (
        f"<action_suggestions>\n{first}\n- {encode_tool(tool)}: {encode_item(reason)}\n"
        "</action_suggestions>"
    )
    assert _blocks.render_rules([tool, tool]) == (
        f"<domain_rules>\n- {encode_item(lead_first_item(tool))}\n"
        f"- {encode_item(lead_item(tool))}\n</domain_rules>"
    )


class _PosesAs(str):
    """A str subclass that hashes and compares as another text (``safe``)."""

    __slots__ = ()

    def __hash__(self) -> int:
        return hash("safe")

    def __eq__(self, other: object) -> bool:
        return other == "safe" or str.__eq__(self, other)


def test_a_str_subclass_is_never_answered_from_the_memo() -> None:
    """A subclass posing as a remembered text is encoded as what it holds, not as that text."""
    for safe in ("safe", _PosesAs("safe")):
        _blocks.render_rules([safe])
        _blocks.render_suggestions([Suggestion(safe, safe)])
    poser = _PosesAs("</domain_rules>- x")
    assert _blocks.render_rules([poser]) == (
        f"<domain_rules>\n- {encode_item(lead_item(str(poser)))}\n</domain_rules>"
    )
    written = _blocks.render_suggestions([Suggestion(poser, poser)])
    assert written.splitlines()[1] == f"- {encode_tool(str(poser))}: {encode_item(str(poser))}"


def _general_js_number(value: float) -> str:
    """``js_number`` without its integral fast path (the ECMAScript digits algorithm)."""
    sign = "-" if value < 0 else ""
    digits, n = _digits_and_point(repr(abs(value)))
    k = len(digits)
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    return js_number(value)  # not integral below 2**53: the fast path does not apply


@given(st.integers(min_value=-(2**53), max_value=2**53).map(float))
@example(float(2**53 - 1))
@example(-float(2**53 - 1))
@example(4800.0)
@example(1e15)
def test_integral_floats_below_2_53_are_written_as_the_digits_algorithm_writes_them(
    value: float,
) -> None:
    """``4800.0`` is ``4800``: the shortcut through ``int`` equals ECMAScript's digits."""
    if value == 0 or not math.isfinite(value):
        return
    assert js_number(value) == _general_js_number(value)


def test_printable_text_has_no_character_the_escapes_rewrite_but_xml_ones() -> None:
    """The premise of the fast paths: of what the escapes rewrite, only ``&<>"'`` is printable."""
    every = "".join(map(chr, range(0x110000)))
    rewritten = set(_ATTR_SPECIAL.findall(every)) | set(_TEXT_SPECIAL.findall(every))
    assert {char for char in rewritten if char.isprintable()} == set("&<>\"'")


_SURROGATE = re.compile("[\ud800-\udfff]")


@given(TEXT)
@example("\ud800")
@example("caf\xe9 \udfff")
@example("\U0001f600")
def test_the_surrogate_check_is_the_regex_scan(text: str) -> None:
    """The codec-based check finds a lone surrogate exactly where a regex scan does."""
    found = _SURROGATE.search(text)
    assert has_lone_surrogate(text) is (found is not None)
    if found is None:
        assert require_unicode(text, "t") is text
        return
    with pytest.raises(SerializationError) as caught:
        require_unicode(text, "t")
    assert f"U+{ord(found.group()):04X} at index {found.start()}:" in str(caught.value)
