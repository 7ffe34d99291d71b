"""fusion_core._snapshot._format: lossless storage of any response a server can send."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from fusion_core import SerializationError
from fusion_core._snapshot._format import dump_snapshot, load_snapshot, show_invisible

HUGE = 7**20_000  # 16,903 digits: past CPython's 4,300-digit conversion limit


def _digits_without_limit(value: int) -> str:
    """The oracle: ``str`` with the process's conversion limit lifted for a moment."""
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        return str(value)
    finally:
        sys.set_int_max_str_digits(before)


HUGE_DIGITS = _digits_without_limit(HUGE)
# Long enough to take the chunked path, short enough for hypothesis to print.
LONG = 10**700 + 12345

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.sampled_from([LONG, -LONG, 10**601, -(10**600) - 1])
    | st.floats(allow_nan=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


@pytest.fixture
def low_int_limit() -> Iterator[None]:
    """Lower the process's conversion limit to the least CPython allows (640 digits)."""
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(640)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(before)


@given(JSON)
@example({"big": LONG, "list": [1, LONG, {"deeper": -LONG}]})
@example("\x00\u2028 a string")
def test_any_structured_content_round_trips(value: Any) -> None:
    """Whatever JSON a foreign server sends, the snapshot reads back the same value."""
    wire = {"content": [{"type": "text", "text": "x"}], "structuredContent": value}
    assert load_snapshot(dump_snapshot(wire))["structuredContent"] == value


@pytest.mark.usefixtures("low_int_limit")
def test_huge_ints_round_trip_whatever_this_process_converts() -> None:
    """An int of 16,903 digits is stored digit for digit with the limit at its lowest."""
    wire = {"content": [], "structuredContent": {"n": HUGE, "m": [-HUGE, 2**64]}}
    text = dump_snapshot(wire)
    assert f'"n": {HUGE_DIGITS},' in text
    assert f"    -{HUGE_DIGITS},\n" in text
    assert load_snapshot(text)["structuredContent"] == {"n": HUGE, "m": [-HUGE, 2**64]}


def test_snapshots_without_huge_ints_keep_their_bytes() -> None:
    """The file format is unchanged: json.dumps(indent=2) for ordinary content."""
    wire = {"content": [], "structuredContent": {"a": [1, {"b": 2.5}], "é": None}}
    text = dump_snapshot(wire)
    assert '{\n  "a": [\n    1,\n    {\n      "b": 2.5\n    }\n  ],\n  "é": null\n}' in text


@pytest.mark.parametrize(
    ("value", "message"),
    [
        pytest.param("cycle", "Circular reference", id="cycle"),
        pytest.param("deep", "nested too deep", id="deep"),
        pytest.param({1j}, "has no JSON form", id="a set of complex"),
    ],
)
def test_unstorable_content_is_a_serialization_error(value: Any, message: str) -> None:
    """A cycle, data too deep for json, or a non-JSON type is a clear fusion_core error."""
    if value == "cycle":
        value = []
        value.append(value)
    elif value == "deep":
        value = []
        for _ in range(100_000):
            value = [value]
    with pytest.raises(SerializationError, match=message) as caught:
        dump_snapshot({"content": [], "structuredContent": value})
    assert caught.value.path == "$.structuredContent"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("a\rb", "a␍b"),
        ("zero\u200bwidth", "zero⟨U+200B⟩width"),
        ("bidi\u202eevil", "bidi⟨U+202E⟩evil"),
        ("nbsp\u00a0here", "nbsp⟨U+00A0⟩here"),
        ("\ufeffbom", "⟨U+FEFF⟩bom"),
        ("tab\t", "tab⟨U+0009⟩"),
        ("nul\x00", "nul⟨U+0000⟩"),
        ("line\u2028sep", "line⟨U+2028⟩sep"),
        ("lone\ud800", "lone⟨U+D800⟩"),
        ("tag\U000e0041", "tag⟨U+E0041⟩"),
        ("emoji ⚠️ stays", "emoji ⚠️ stays"),
    ],
)
def test_invisible_characters_are_shown(text: str, shown: str) -> None:
    """Diffs show CR and every character a reviewer could not see."""
    assert show_invisible(text) == shown


# A UI block's type is written in its header line: every character that would
# end or split that line (LF, the "·" separator) or hide in it (CR, controls,
# format characters) must leave the file readable.
HEADER_HOSTILE_TYPES = {
    "line-feed": "&#xA;",
    "separator": "a · b",
    "carriage-return": "a&#xD;b",
    "crlf": "&#xD;&#xA;",
    "unicode-line-break": "a\u2028b",
    "zero-width": "a\u200bb",
    "only-separators": "··",
    "empty": "",
}


@pytest.mark.parametrize("ui_type", HEADER_HOSTILE_TYPES.values(), ids=HEADER_HOSTILE_TYPES)
def test_any_ui_type_leaves_the_snapshot_readable(ui_type: str) -> None:
    """The block's kind names its type on one header line; the file reads back exactly."""
    wire = {
        "content": [
            {"type": "text", "text": "null"},
            {"type": "text", "text": f'<ui_passthrough type="{ui_type}">\n\n</ui_passthrough>'},
        ]
    }
    text = dump_snapshot(wire)
    assert load_snapshot(text) == wire
    header = text.split("\n")[3]
    assert header.startswith("── block 1 · ui_passthrough(")
    assert header.count(" · ") == 2
