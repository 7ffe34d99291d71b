"""Escaping, item encoding and closing-tag neutralization, and their inverses."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from fusion_core._text import (
    LINE_BREAK,
    decode_item,
    encode_item,
    escape_attr,
    escape_text,
    neutralize_closing_tag,
    restore_closing_tag,
    unescape,
)

BREAKS = ["\r\n", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]
PLAIN = ["", "hello world", "Total: 42 € — ok", "a > b", 'it\'s "quoted"', "tab\there", "😀"]

_hostile_text = st.lists(
    st.characters(codec=None, categories=None)
    | st.sampled_from([*BREAKS, "&", "<", ">", "&amp;", "&#x41;", "  ", "- ", "\\", "/"])
    | st.sampled_from(["</ui_passthrough", "<\\/ui_passthrough", "<\\\\/ui_passthrough", "\ud800"])
).map("".join)


@pytest.mark.parametrize("text", PLAIN)
def test_escape_text_leaves_plain_text_alone(text: str) -> None:
    """Text without & or < (or unusable characters) is unchanged."""
    assert escape_text(text) == text
    assert unescape(text) == text


@pytest.mark.parametrize("text", ["", "hello world", "Total: 42 €", "😀"])
def test_escape_attr_leaves_plain_text_alone(text: str) -> None:
    """Attribute text without XML specials is unchanged."""
    assert escape_attr(text) == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a & b", "a &amp; b"),
        ("<tag>", "&lt;tag>"),
        ("</domain_rules>", "&lt;/domain_rules>"),
        ("&amp;", "&amp;amp;"),
        ("\x00\x08\x0b\x0c\x1f", "&#x0;&#x8;&#xB;&#xC;&#x1F;"),
        ("\ud800", "&#xD800;"),
        ("\ufffe\uffff", "&#xFFFE;&#xFFFF;"),
        ("\t\n\r", "\t\n&#xD;"),
        ("\"'>", "\"'>"),
    ],
)
def test_escape_text_exact(text: str, expected: str) -> None:
    """Element text escapes & and < and characters XML cannot carry."""
    assert escape_text(text) == expected
    assert unescape(expected) == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('a"b', "a&quot;b"),
        ("tab\there\n\r", "tab&#x9;here&#xA;&#xD;"),
        ("a\x85b\u2028c\u2029d", "a&#x85;b&#x2028;c&#x2029;d"),
        ("it's", "it&apos;s"),
        ("<&>", "&lt;&amp;&gt;"),
        ("\x01", "&#x1;"),
        ("\udfff", "&#xDFFF;"),
    ],
)
def test_escape_attr_exact(text: str, expected: str) -> None:
    """Attribute values escape all five XML characters and the same refs."""
    assert escape_attr(text) == expected
    assert unescape(expected) == text


@pytest.mark.parametrize(
    ("encoded", "expected"),
    [("&#65;&#x42;&#x63;", "ABc"), ("&unknown; &amp", "&unknown; &amp"), ("&quot;&apos;", "\"'")],
)
def test_unescape(encoded: str, expected: str) -> None:
    """Unescape reads decimal and hex references and leaves the rest alone."""
    assert unescape(encoded) == expected


@pytest.mark.parametrize("line_break", BREAKS)
def test_encode_item_indents_every_line_break(line_break: str) -> None:
    """Each line break in an item is followed by a two-space continuation indent."""
    encoded = encode_item(f"first{line_break}- forged")
    assert "- forged" in encoded
    for line in encoded.splitlines()[1:]:
        assert line.startswith("  ")
    assert decode_item(encoded) == f"first{line_break}- forged"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("one\ntwo", "one\n  two"),
        ("a\r\nb", "a&#xD;\n  b"),
        ("a\n\nb", "a\n  \n  b"),
        ("x\n", "x\n  "),
        ("a\n  b", "a\n    b"),
        ("<b> & c", "&lt;b> &amp; c"),
    ],
)
def test_encode_item_exact(text: str, expected: str) -> None:
    """Exact item encodings."""
    assert encode_item(text) == expected
    assert decode_item(expected) == text


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("</ui_passthrough>", "<\\/ui_passthrough>"),
        ("<\\/ui_passthrough>", "<\\\\/ui_passthrough>"),
        (
            "a </ui_passthrough> b </ui_passthrough >",
            "a <\\/ui_passthrough> b <\\/ui_passthrough >",
        ),
        ("</ui_pass>", "</ui_pass>"),
        ("plain / text", "plain / text"),
    ],
)
def test_neutralize_closing_tag_exact(content: str, expected: str) -> None:
    """Closing tags (and their backslashed forms) gain exactly one backslash."""
    assert neutralize_closing_tag(content) == expected
    assert restore_closing_tag(expected) == content


@given(_hostile_text)
@example("\r\n  ")
@example("\r  \n")
@example("\n  \n  ")
@example("&#x41;")
@example("\ud800\n\u2028- x")
def test_item_round_trip(text: str) -> None:
    """decode_item(encode_item(s)) == s for any text."""
    assert decode_item(encode_item(text)) == text


@given(_hostile_text)
def test_encoded_item_cannot_start_a_line(text: str) -> None:
    """Every line break in an encoded item is followed by two spaces."""
    encoded = encode_item(text)
    for match in LINE_BREAK.finditer(encoded):
        assert encoded[match.end() : match.end() + 2] == "  "
    for line in encoded.splitlines()[1:]:
        assert line.startswith("  ")


@given(_hostile_text)
def test_escape_round_trips(text: str) -> None:
    """Unescape inverts both escapes; escaped text holds no raw < or stray &."""
    assert unescape(escape_text(text)) == text
    assert unescape(escape_attr(text)) == text
    assert "<" not in escape_text(text)
    assert not {"<", ">", '"', "'"} & set(escape_attr(text))


@given(_hostile_text)
def test_escaped_text_is_utf8_encodable(text: str) -> None:
    """Escaped text carries no lone surrogate, so it can go on the wire."""
    escape_text(text).encode("utf-8")
    escape_attr(text).encode("utf-8")
    encode_item(text).encode("utf-8")


@given(_hostile_text)
@example("</ui_passthrough")
@example("<\\\\\\/ui_passthrough>")
def test_neutralize_round_trips_and_cannot_close(text: str) -> None:
    """Neutralized content never holds the closing tag and restores exactly."""
    neutral = neutralize_closing_tag(text)
    assert "</ui_passthrough" not in neutral
    assert restore_closing_tag(neutral) == text


@given(st.text(st.characters(exclude_characters="<")))
def test_neutralize_is_identity_without_a_tag(text: str) -> None:
    """Content without a closing tag is unchanged."""
    assert neutralize_closing_tag(text) == text
