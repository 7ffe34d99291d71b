r"""Escaping and item encoding: how user text is put inside Fusion blocks.

Every transformation here leaves plain text unchanged, so bytes match the
reference wherever its output was already right, and every one has an exact
inverse (used by the parser), so the wire stays lossless:

* ``escape_text`` — element text: ``&`` → ``&amp;``, ``<`` → ``&lt;`` (as the
  reference's own error envelopes do), the ``>`` of ``]]>`` as ``&gt;`` (XML
  text never holds ``]]>``), CR as ``&#xD;`` (XML readers turn a raw one into
  LF), and characters XML 1.0 cannot carry (C0 controls but tab/LF/CR, lone
  surrogates, U+FFFE/U+FFFF) as ``&#xHH;`` character references — legal in
  XML 1.1 (but for NUL), read back exactly by :func:`unescape`.
* ``escape_envelope`` — the text of an error envelope's elements (``<message>``,
  ``<field>``...): ``escape_text``, and an LF that a blank line or a line
  starting a Markdown block follows written ``&#xA;`` (see the function), so
  that a Markdown reader sees no structure in it.
* ``escape_attr`` — attribute values: the five XML characters, plus the same
  character references, and tab, LF, CR, NEL and the Unicode line and
  paragraph separators as references too (XML readers turn raw ones into
  spaces, and they would split a tag over lines).
* ``encode_item`` — one bullet item: every line break is followed by a
  two-space continuation indent, and a continuation line that would start a
  CommonMark block gets a backslash first (see :func:`continue_lines`), so a
  newline can start neither a new ``- `` item nor a nested one; then escaped.
* ``neutralize_fusion_tags`` — UI content: every opening or closing tag of a
  Fusion element (:data:`FUSION_ELEMENTS`, any letter case) gains one
  backslash after its ``<`` (``<\\/ui_passthrough``, ``<\\Domain_Rules``), as
  does every already-backslashed form, so content can neither close its own
  block nor open another, and the change is reversible.

Line breaks are those of CommonMark: LF, CR and CRLF. U+2028, U+2029, NEL,
VT and FF are ordinary characters to a Markdown reader (VT and FF are
escaped in XML text anyway, as XML cannot carry them).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Final

from fusion_core._kinds import FUSION_ELEMENTS

__all__ = [
    "LINE_BREAK",
    "bad_continuation",
    "bad_envelope_line",
    "blank_lead",
    "continue_lines",
    "decode_item",
    "encode_item",
    "encode_tool",
    "escape_attr",
    "escape_envelope",
    "escape_text",
    "find_fusion_tag",
    "has_lone_surrogate",
    "neutralize_fusion_tags",
    "reference_pieces",
    "require_unicode",
    "restore_fusion_tags",
    "sub_distinct",
    "unescape",
]

_NOT_XML: Final = "[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]"
_TEXT_SPECIAL: Final = re.compile("[&<\r]|(?<=]])>|" + _NOT_XML)
_ATTR_SPECIAL: Final = re.compile("[&<>\"'\t\n\r\x85\u2028\u2029]|" + _NOT_XML)
_NAMED: Final = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;"}
_ENTITY: Final = re.compile(r"&(amp|lt|gt|quot|apos|#x[0-9A-Fa-f]+|#[0-9]+);")
_ENTITY_CHARS: Final = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}

LINE_BREAK: Final = re.compile("\r\n|\r|\n")
"""A CommonMark line ending: LF, CR or CRLF."""

# A line that would start a CommonMark block inside a list item: indentation
# (a nested item, indented code), a bullet or thematic break (- + * _), an
# ordered item (1. 1)), a heading (#), a setext underline (= -), a block
# quote (>), a fence (` ~), an HTML block (<), a table row or delimiter
# (| :-), a link reference definition ([). A backslash goes before its first
# character (a CommonMark escape, or a plain backslash before a space or a
# digit: either way no structure), and before a first backslash, so that
# the one after the indent is always ours and decoding just drops it.
_BLOCK_START: Final = r"[ \t\-+*_#=>`~<|\[\\]|:(?=-)|[0-9](?=[0-9]{0,8}[.)])"
_CONTINUE: Final = re.compile(r"(\r\n|\r|\n)(?:(?=(" + _BLOCK_START + "))|)")
_CONTINUATION: Final = re.compile(r"(\r\n|\r|\n)  \\?")
_BLANK_SECOND_LINE: Final = re.compile(r"(?:\r\n|\r|\n)  (?=[\r\n]|\Z)")


_NAMES: Final = "|".join(sorted(FUSION_ELEMENTS, key=len, reverse=True))
# "<", backslashes, "/"?, a Fusion name in any case, and no further word
# character (so "<details>" and "<Domain_Rules\n>" match, "<actions>" does
# not). IGNORECASE also folds U+017F and U+212A; neutralizing those too is
# harmless, because the change is reversible.
_FUSION_TAG: Final = re.compile(r"<(\\*/?(?:" + _NAMES + r"))(?!\w)", re.IGNORECASE)
_NEUTRAL_TAG: Final = re.compile(r"<\\(\\*/?(?:" + _NAMES + r"))(?!\w)", re.IGNORECASE)
_RAW_FUSION_TAG: Final = re.compile(r"</?(?:" + _NAMES + r")(?!\w)", re.IGNORECASE)


def has_lone_surrogate(text: str) -> bool:
    """Whether ``text`` holds a lone surrogate (which no UTF-8 wire can carry)."""
    if text.isascii():
        return False
    try:  # the codec finds one about ten times faster than a regex scan
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def require_unicode(text: str, what: str) -> str:
    """Return ``text`` if it is valid Unicode; a lone surrogate cannot go on the wire.

    Verbatim text (str data, UI content, raw blocks) is never altered, so a
    lone surrogate there is an error naming where it is, not silently wrong
    bytes (the MCP SDK would fail to encode it later, far from the cause).
    """
    if not text.isascii():
        try:  # the codec finds a surrogate about ten times faster than a regex scan
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            from fusion_core._errors import SerializationError  # noqa: PLC0415 - keeps _text leaf-level

            msg = (
                f"lone surrogate U+{ord(text[exc.start]):04X} at index {exc.start}: "
                "MCP text must be valid Unicode; decode the text properly or drop it"
            )
            raise SerializationError(msg, path=what, value=text) from None
    return text


def _reference(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    return named if named is not None else f"&#x{ord(char):X};"


# Fast paths: ``str.isprintable()`` is false for every character the two
# escapes rewrite but the XML ones (controls, CR, line and paragraph
# separators, NEL, surrogates, noncharacters), so printable text without
# those is returned as it is, without a regex pass (most text, in C). A str
# subclass takes the regex: its own methods could answer anything.


def escape_text(text: str) -> str:
    """Escape element text: ``&``, ``<``, ``]]>`` and characters XML cannot carry."""
    if (
        type(text) is str
        and text.isprintable()
        and "&" not in text
        and "<" not in text
        and "]]>" not in text
    ):
        return text
    return _TEXT_SPECIAL.sub(_reference, text)


# A Markdown reader sees an error envelope as one paragraph (``tool_error`` is
# no CommonMark tag name: ``_`` is not allowed in one), from a ``<details>``
# line on as an HTML block (type 6). A blank line (only spaces and tabs) ends
# either, and a line that starts a block interrupts the paragraph: a heading
# (#), a quote (>), a list item (- + * 1. 1)), a thematic break or setext
# underline (- * _ =), a fence (` ~), a table's delimiter row (| : -), up to
# three spaces in (any indentation here: tabs count as columns). Raw ``<``
# cannot start a line: escaping wrote it ``&lt;``. Past the last line of an
# element's text comes its own closing tag, on the same line.
_MARKDOWN_LINE: Final = r"[ \t]*+(?:[\r\n#>\-+*_=`~|:]|[0-9]{1,9}[.)])"
_ENVELOPE_BREAK: Final = re.compile(r"\n(?=" + _MARKDOWN_LINE + ")")
_ENVELOPE_LINE: Final = re.compile(r"(?:\r\n?+|\n)(?=" + _MARKDOWN_LINE + ")")


def escape_envelope(text: str) -> str:
    """Escape an error envelope's element text so that Markdown sees no structure in it.

    :func:`escape_text`, and then each LF followed by a blank line or by a
    line that would start a Markdown block (``# x``, ``- x``, ``> x``, a
    fence...) is written ``&#xA;``, so the envelope stays one block to a
    Markdown reader. Text without such a line is :func:`escape_text`'s;
    :func:`unescape` reads the reference back as LF.
    """
    escaped = escape_text(text)
    if "\n" not in escaped:
        return escaped
    return _ENVELOPE_BREAK.sub("&#xA;", escaped)


def bad_envelope_line(envelope: str) -> int | None:
    """Index of the first line break of an envelope's bytes that Markdown reads as structure.

    That is one followed by a blank line or a line that starts a Markdown
    block (what :func:`escape_envelope` writes as ``&#xA;``); LF, CR and CRLF
    are line breaks. The envelope's own lines start with ``<``: none matches.
    ``None`` when there is none.
    """
    found = _ENVELOPE_LINE.search(envelope)
    return None if found is None else found.start()


def escape_attr(text: str) -> str:
    """Escape an attribute value: the five XML characters and the same refs."""
    if (
        type(text) is str
        and text.isprintable()
        and "&" not in text
        and "<" not in text
        and ">" not in text
        and '"' not in text
        and "'" not in text
    ):
        return text
    return _ATTR_SPECIAL.sub(_reference, text)


# A reference cannot straddle a cut made just before an "&"; pieces of about
# this many characters bound the lists that reading references builds.
_PIECE: Final = 1 << 16


def reference_pieces(text: str, end: int | None = None) -> Iterator[tuple[int, int]]:
    """``(start, stop)`` bounds cutting ``text[:end]`` into pieces just before an ``&``.

    No character reference spans two pieces, so each can be searched on its own.
    """
    start, size = 0, len(text) if end is None else end
    while start < size:
        stop = size if size - start <= _PIECE else text.find("&", start + _PIECE, size)
        stop = size if stop == -1 else stop
        yield start, stop
        start = stop


def sub_distinct(pattern: re.Pattern[str], replace: Callable[[str], str], text: str) -> str:
    """``pattern.sub``, calling ``replace`` once per *distinct* match, not per match.

    ``pattern`` has one group, which ``replace`` is given and whose whole match
    it replaces; no match holds an ``&`` past its first character. A callable
    replacement runs Python code for every match (about 5 us each: a megabyte
    of ``&#x41;`` took a second to read, a hundred times plain text); here the
    text is split in C, each distinct match decoded once, and the pieces joined
    by ``map`` and ``str.join``, so a reference costs about what its characters
    cost as plain text.
    """
    out: list[str] = []
    table: dict[str, str] = {}
    for start, stop in reference_pieces(text):
        parts = pattern.split(text if stop - start == len(text) else text[start:stop])
        found = parts[1::2]
        for new in set(found).difference(table):
            table[new] = replace(new)
        parts[1::2] = map(table.__getitem__, found)
        out.append("".join(parts))
    return "".join(out)


def _unreference(name: str) -> str:
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
    if "&#" not in text:
        # Named references only: five passes in C. "&amp;" goes last, so the
        # "&" it gives back starts nothing ("&amp;lt;" is "&lt;").
        return (
            text.replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", '"')
            .replace("&apos;", "'")
            .replace("&amp;", "&")
        )
    return sub_distinct(_ENTITY, _unreference, text)


# ------------------------------------------------------------ bullet items


def _continuation(match: re.Match[str]) -> str:
    return match.group(1) + ("  " if match.group(2) is None else "  \\")


def continue_lines(text: str) -> str:
    r"""Indent every line after the first by two spaces, so it stays in its item.

    A continuation line whose text would start a CommonMark block (a list
    item, heading, quote, fence, thematic break, setext underline, HTML block,
    table row, or indentation), or that starts with a backslash, gets a
    backslash first (``- x`` → ``\- x``), which CommonMark never reads as
    structure; so does a blank second line after an empty first one (the
    item would end there). Text without line breaks is returned unchanged.
    """
    if "\n" not in text and "\r" not in text:
        return text
    continued = _CONTINUE.sub(_continuation, text)
    # An item that begins with a blank line ends at a second blank line
    # (CommonMark), and its later lines would leave the list: such a second
    # line gets the backslash too, which decoding drops like any other.
    blank = _BLANK_SECOND_LINE.match(continued)
    if blank is not None:
        continued = continued[: blank.end()] + "\\" + continued[blank.end() :]
    return continued


# "- " and a first line of two or more hyphens among spaces and tabs ("--",
# "- -", " -\t-") make a thematic break, which CommonMark prefers to a list
# item: the item would vanish into a horizontal rule. Such a first line gets
# a backslash before it (``- \--``, a CommonMark escape or a plain backslash
# before a space: no structure either way); so does one that is that after
# leading backslashes, so that decoding drops exactly the one added.
_THEMATIC_LEAD: Final = re.compile(r"\\*[ \t]*-[ \t]*-[ \t-]*(?=\r|\n|\Z)")
_LEADS: Final = "\\ \t-"  # the first characters _THEMATIC_LEAD can match


def lead_item(text: str) -> str:
    r"""Text that begins a ``- `` item, made so that the line cannot be a thematic break.

    ``"--"`` becomes ``"\--"`` (and ``"\--"`` becomes ``"\\--"``); any other
    text is returned unchanged. :func:`unlead_item` inverts it.
    """
    if type(text) is str and text[:1] not in _LEADS:  # "" is in every str: "" takes the regex
        return text
    return "\\" + text if _THEMATIC_LEAD.match(text) else text


def unlead_item(text: str) -> str:
    """Invert :func:`lead_item`."""
    if text.startswith("\\") and _THEMATIC_LEAD.match(text, 1):
        return text[1:]
    return text


# The line right after a block's opening tag continues the tag's paragraph
# (to Markdown the tag is text): a first item line that is "- " and spaces
# only is a setext underline there, which makes the opening tag a heading
# and takes the item out of the list. Such a first line gets a backslash
# (``- \``), as a thematic one does; only the block's first item needs it,
# so other items keep their bytes. A suggestion's tool is followed by ": "
# on its line: only a line break after it leaves the line blank.
_BLANK_LEAD: Final = re.compile(r"\\*[ \t]*(?=\r|\n|\Z)")
_BLANK_TOOL_LEAD: Final = re.compile(r"\\*[ \t]*(?=\r|\n)")
_BLANK_LINE: Final = re.compile(r"[ \t]*(?:\r|\n|\Z)")


def lead_first_item(text: str, *, tool: bool = False) -> str:
    r"""Led text (:func:`lead_item`) of a block's first item, made so that it underlines nothing.

    ``""`` becomes ``"\"``, and any text whose first line is blank (or
    backslashes and then blank) gains one backslash first; ``tool``: a
    suggestion's tool, whose line ``": "`` continues, so only a line break
    after blanks counts. :func:`unlead_first_item` inverts it.
    """
    led = lead_item(text)
    if type(led) is str and led[:1] not in "\\ \t\r\n":
        return led
    blank = (_BLANK_TOOL_LEAD if tool else _BLANK_LEAD).match(led)
    return "\\" + led if blank is not None else led


def unlead_first_item(text: str, *, tool: bool = False) -> str:
    """Invert :func:`lead_first_item`."""
    if text.startswith("\\") and (_BLANK_TOOL_LEAD if tool else _BLANK_LEAD).match(text, 1):
        return unlead_item(text[1:])
    return unlead_item(text)


def blank_lead(encoded: str) -> bool:
    """Whether a block's first item, ``- `` and this encoded text, underlines the opening tag.

    A first line that is blank makes ``- `` a setext heading underline: the
    opening tag's line reads as a heading, and the item is not in the list.
    """
    return _BLANK_LINE.match(encoded) is not None


def thematic_item(encoded: str) -> bool:
    """Whether ``- `` and this item text read as a thematic break, not an item."""
    return any(
        _THEMATIC_LEAD.match(text) is not None and not text.startswith("\\")
        for text in (encoded, unescape(encoded))
    )


def encode_item(text: str) -> str:
    """One bullet item's text: safe continuation lines, then escaped.

    Lines are continued before escaping, so the text is safe both as the
    bytes read it and as an XML reader gives it back (``&lt;div>`` and
    ``&#xD;`` decoded to ``<div>`` and CR).
    """
    return escape_text(continue_lines(text))


def encode_tool(text: str, *, first: bool = False) -> str:
    """A suggestion's tool: an item whose ``": "`` is written ``:&#x20;``.

    ``- tool: reason`` splits at the first ``": "``, so a tool name holding one
    would otherwise be read back wrong; :func:`decode_item` inverts this too.
    The tool begins the item, so it is led as any item (:func:`lead_item`):
    a tool of hyphens and then a line break would otherwise make the line ``- --``;
    ``first``: the block's first item, led by :func:`lead_first_item` as well.
    """
    encoded = encode_item(lead_first_item(text, tool=True) if first else lead_item(text))
    return encoded.replace(": ", ":&#x20;") if ": " in encoded else encoded


def _line_break(match: re.Match[str]) -> str:
    return match.group(1)


def decode_item(encoded: str) -> str:
    """Invert :func:`encode_item` (and :func:`encode_tool`)."""
    text = unescape(encoded)
    # A callable replacement, and none at all without a continuation: a str
    # template (r"\1") costs ten times more per item, and more as items grow
    # in number, which made reading many-item blocks superlinear.
    if "  " in text:
        text = _CONTINUATION.sub(_line_break, text)
    return text


def bad_continuation(encoded: str) -> int | None:
    """Index of the first line break of an item not followed by a safe continuation.

    A continuation is two spaces and then text that starts no CommonMark
    block. Both the bytes and their XML reading (``unescape``) are checked;
    ``None`` when every line break is followed by a safe continuation.
    """
    for text in (encoded, unescape(encoded)):
        if _BLANK_SECOND_LINE.match(text):
            return 0
        for match in LINE_BREAK.finditer(text):
            end = match.end()
            if not text.startswith("  ", end) or _UNSAFE_LINE.match(text, end + 2):
                return match.start()
    return None


_UNSAFE_LINE: Final = re.compile(r"[ \t\-+*_#=>`~<|\[]|:-|[0-9]{1,9}[.)]")


# --------------------------------------------------------------- UI content


def _backslashed(match: re.Match[str]) -> str:
    return "<\\" + match.group(1)


def _unbackslashed(match: re.Match[str]) -> str:
    return "<" + match.group(1)


def neutralize_fusion_tags(content: str) -> str:
    """Make UI content unable to close its block or open another; identity for most content."""
    if "<" not in content:
        return content
    return _FUSION_TAG.sub(_backslashed, content)


def restore_fusion_tags(content: str) -> str:
    """Invert :func:`neutralize_fusion_tags`."""
    if "<\\" not in content:
        return content
    return _NEUTRAL_TAG.sub(_unbackslashed, content)


def find_fusion_tag(content: str) -> re.Match[str] | None:
    """The first opening or closing tag of a Fusion element (any case) in ``content``."""
    if "<" not in content:
        return None
    return _RAW_FUSION_TAG.search(content)
