r"""Escaping and item encoding: how user text is put inside Fusion blocks.

Every transformation here leaves plain text unchanged, so bytes match the
reference wherever its output was already right, and every one has an exact
inverse (used by the parser), so the wire stays lossless:

* ``escape_text`` — element text: ``&`` → ``&amp;``, ``<`` → ``&lt;`` (as the
  reference's own error envelopes do), CR as ``&#xD;`` (XML readers turn a raw
  one into LF), and characters XML 1.0 cannot carry (C0 controls but tab/LF/CR,
  lone surrogates, U+FFFE/U+FFFF) as ``&#xHH;`` character references — legal
  in XML 1.1 (but for NUL), read back exactly by :func:`unescape`.
* ``escape_attr`` — attribute values: the five XML characters, plus the same
  character references, and tab, LF, CR, NEL and the Unicode line and
  paragraph separators as references too (XML readers turn raw ones into
  spaces, and they would split a tag over lines).
* ``encode_item`` — one bullet item: escaped text whose every line break is
  followed by a two-space continuation indent, so a newline can never start
  a new ``- `` item.
* ``neutralize_closing_tag`` — UI content: ``</ui_passthrough`` gains one
  backslash (``<\\/ui_passthrough``), as does every already-backslashed form,
  so content cannot close its own block and the change is reversible.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = [
    "LINE_BREAK",
    "decode_item",
    "encode_item",
    "encode_tool",
    "escape_attr",
    "escape_text",
    "neutralize_closing_tag",
    "require_unicode",
    "restore_closing_tag",
    "unescape",
]

_NOT_XML: Final = "[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]"
_TEXT_SPECIAL: Final = re.compile("[&<\r]|" + _NOT_XML)
_ATTR_SPECIAL: Final = re.compile("[&<>\"'\t\n\r\x85\u2028\u2029]|" + _NOT_XML)
_NAMED: Final = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;"}
_ENTITY: Final = re.compile(r"&(amp|lt|gt|quot|apos|#x[0-9A-Fa-f]+|#[0-9]+);")
_ENTITY_CHARS: Final = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}

LINE_BREAK: Final = re.compile("\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
"""Everything ``str.splitlines`` (and so a reader) treats as a line break."""

_CONTINUATION: Final = re.compile("(\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029])  ")
_LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")
_CLOSING_TAG: Final = re.compile(r"<(\\*)/ui_passthrough")
_ESCAPED_CLOSING_TAG: Final = re.compile(r"<\\(\\*)/ui_passthrough")


def require_unicode(text: str, what: str) -> str:
    """Return ``text`` if it is valid Unicode; a lone surrogate cannot go on the wire.

    Verbatim text (str data, UI content, raw blocks) is never altered, so a
    lone surrogate there is an error naming where it is, not silently wrong
    bytes (the MCP SDK would fail to encode it later, far from the cause).
    """
    if not text.isascii():
        match = _LONE_SURROGATE.search(text)
        if match is not None:
            from ._errors import SerializationError  # noqa: PLC0415 - keeps _text leaf-level

            msg = (
                f"lone surrogate U+{ord(match.group()):04X} at index {match.start()}: "
                "MCP text must be valid Unicode; decode the text properly or drop it"
            )
            raise SerializationError(msg, path=what, value=text)
    return text


def _reference(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    return named if named is not None else f"&#x{ord(char):X};"


def escape_text(text: str) -> str:
    """Escape element text: ``&``, ``<`` and characters XML cannot carry."""
    return _TEXT_SPECIAL.sub(_reference, text)


def escape_attr(text: str) -> str:
    """Escape an attribute value: the five XML characters and the same refs."""
    return _ATTR_SPECIAL.sub(_reference, text)


def _unreference(match: re.Match[str]) -> str:
    name = match.group(1)
    named = _ENTITY_CHARS.get(name)
    if named is not None:
        return named
    # Leading zeros are legal and count toward int()'s digit limit: drop them.
    hexadecimal = name.startswith("#x")
    digits = name[2 if hexadecimal else 1 :].lstrip("0") or "0"
    return chr(int(digits, 16 if hexadecimal else 10))


def unescape(text: str) -> str:
    """Invert :func:`escape_text` and :func:`escape_attr`."""
    if "&" not in text:
        return text
    return _ENTITY.sub(_unreference, text)


def encode_item(text: str) -> str:
    """One bullet item's text: escaped, with continuation lines indented."""
    escaped = escape_text(text)
    if LINE_BREAK.search(escaped) is None:
        return escaped
    return LINE_BREAK.sub(lambda match: match.group() + "  ", escaped)


def encode_tool(text: str) -> str:
    """A suggestion's tool: an item whose ``": "`` is written ``:&#x20;``.

    ``- tool: reason`` splits at the first ``": "``, so a tool name holding one
    would otherwise be read back wrong; :func:`decode_item` inverts this too.
    """
    encoded = encode_item(text)
    return encoded.replace(": ", ":&#x20;") if ": " in encoded else encoded


def _line_break(match: re.Match[str]) -> str:
    return match.group(1)


def decode_item(encoded: str) -> str:
    """Invert :func:`encode_item`."""
    # A callable replacement, and none at all without a continuation: a str
    # template (r"\1") costs ten times more per item, and more as items grow
    # in number, which made reading many-item blocks superlinear.
    if "  " in encoded:
        encoded = _CONTINUATION.sub(_line_break, encoded)
    return unescape(encoded)


def neutralize_closing_tag(content: str) -> str:
    """Make UI content unable to close its block; identity for most content."""
    if "/ui_passthrough" not in content:
        return content
    return _CLOSING_TAG.sub(lambda match: "<\\" + match.group(1) + "/ui_passthrough", content)


def restore_closing_tag(content: str) -> str:
    """Invert :func:`neutralize_closing_tag`."""
    if "/ui_passthrough" not in content:
        return content
    return _ESCAPED_CLOSING_TAG.sub(lambda match: "<" + match.group(1) + "/ui_passthrough", content)
