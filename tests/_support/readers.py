"""Independent readers of Fusion blocks, none of them fusion_core's own parser.

The no-forgery property asks each of them what a block contains and compares
with what was built:

* :func:`lxml_structure` — lxml with ``recover=False`` (a strict XML parser);
* :func:`regex_structure` — the naive regex a script would use (``<name ...>``
  and ``- `` lines);
* :func:`html_structure` — Python's ``html.parser``, which folds case and
  decodes character references like a browser;
* :func:`markdown_items` — markdown-it-py (CommonMark), which says where list
  items and other blocks start;
* :func:`markdown_outside_envelope` — markdown-it-py on a whole error
  envelope: the blocks it reads that are not the envelope's own;
* :func:`markdown_whole_block` — markdown-it-py on a whole item block, tag
  lines included (the line after the opening tag continues its paragraph).

Each returns the Fusion elements it sees, in order, as ``("start"|"end",
name)`` pairs, and the number of ``- `` items (for item blocks).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Final

from lxml import etree
from markdown_it import MarkdownIt

from fusion_core._kinds import FUSION_ELEMENTS

__all__ = [
    "html_structure",
    "lxml_structure",
    "markdown_blocks",
    "markdown_items",
    "markdown_outside_envelope",
    "markdown_table",
    "markdown_whole_block",
    "regex_structure",
]

_NAMES: Final = frozenset(FUSION_ELEMENTS)
_CHAR_REF: Final = re.compile(r"&#(x[0-9A-Fa-f]+|[0-9]+);")
_LINE_END: Final = re.compile("\r\n|\r|\n")
_REGEX_TAG: Final = re.compile(r"<(/?)([A-Za-z_][\w.-]*)\b[^>]*>")
_MARKDOWN: Final = MarkdownIt("commonmark").enable("table")


def _xml_char(code: int) -> bool:
    return (
        code in (9, 10, 13)
        or 0x20 <= code <= 0xD7FF
        or 0xE000 <= code <= 0xFFFD
        or (0x10000 <= code <= 0x10FFFF)
    )


def _legal(match: re.Match[str]) -> str:
    ref = match.group(1)
    code = int(ref[1:], 16) if ref[0] == "x" else int(ref)
    return match.group() if _xml_char(code) else "&#xFFFD;"


def _items_in(text: str) -> int:
    """``- `` lines of text, split on the CommonMark line endings."""
    return sum(1 for line in _LINE_END.split(text) if line.startswith("- "))


def lxml_structure(text: str) -> tuple[list[tuple[str, str]], int, str] | None:
    """(Fusion elements, ``- `` items in the root's text, root text) or ``None`` if not XML.

    References to characters XML 1.0 cannot carry (written for XML 1.1
    readers) become U+FFFD first, as any XML 1.0 reader would need.
    """
    parser = etree.XMLParser(recover=False, resolve_entities=False, no_network=True)
    try:
        root = etree.fromstring(_CHAR_REF.sub(_legal, text).encode("utf-8"), parser)
    except (etree.XMLSyntaxError, ValueError):
        return None
    found = [
        ("start", element.tag.lower())
        for element in root.iter()
        if isinstance(element.tag, str) and element.tag.lower() in _NAMES
    ]
    return found, _items_in(root.text or ""), root.text or ""


def regex_structure(text: str) -> tuple[list[tuple[str, str]], int]:
    r"""What ``re.findall(r"<(/?)(\\w+)...>")`` and ``^- `` lines see."""
    found = [
        ("end" if slash else "start", name.lower())
        for slash, name in _REGEX_TAG.findall(text)
        if name.lower() in _NAMES
    ]
    return found, len(re.findall(r"^- ", text, re.MULTILINE))


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, str]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _NAMES:
            self.found.append(("start", tag))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _NAMES:
            self.found.append(("start", tag))
            self.found.append(("end", tag))

    def handle_endtag(self, tag: str) -> None:
        if tag in _NAMES:
            self.found.append(("end", tag))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def html_structure(text: str) -> tuple[list[tuple[str, str]], int, bool]:
    """(Fusion elements, ``- `` items in the data, whether raw-text mode hid the rest).

    ``html.parser`` reads ``<script>``/``<style>`` content as raw text up to
    the matching end tag; when such an element is left open the block's own
    end tag is hidden in it (not a forgery: nothing more is read).
    """
    parser = _Collector()
    parser.feed(text)
    hidden = parser.cdata_elem is not None
    parser.close()
    return parser.found, _items_in("".join(parser.text)), hidden


def markdown_items(body: str) -> tuple[int, list[tuple[str, int]]]:
    """(top-level list items, [(token type, line)] of every block opened off the item lines).

    ``body`` is an item block's text between its tag lines. A list item, or
    any block but a paragraph, that starts on a line which is not one of our
    ``- `` item lines is structure the text forged.
    """
    tokens = _MARKDOWN.parse(body)
    lines = _LINE_END.split(body)
    item_lines = {index for index, line in enumerate(lines) if line.startswith("- ")}
    top = sum(1 for t in tokens if t.type == "list_item_open" and t.level == 1)
    forged = [
        (t.type, t.map[0])
        for t in tokens
        if t.map is not None
        and t.nesting >= 0
        and t.type not in ("inline", "paragraph_open")
        and t.map[0] not in item_lines
    ]
    return top, forged


def markdown_outside_envelope(text: str) -> list[tuple[str, int]]:
    """(token type, line) of each block markdown-it reads in an envelope that is not its own.

    To CommonMark an error envelope is a paragraph (``tool_error`` is no tag
    name: ``_`` is not allowed), from a ``<details>`` line on an HTML block
    (type 6). Each starts on one of the envelope's element lines (``<...``,
    ``  <action>``) and the blocks cover every line, one after the other. A
    block of another type (a heading, a list...), one that starts on a line
    of text, or a gap between blocks (a blank line ended one: ``("gap",
    line)``) is structure the text forged.
    """
    lines = _LINE_END.split(text)
    forged: list[tuple[str, int]] = []
    covered = 0
    for token in _MARKDOWN.parse(text):
        if token.level or token.nesting < 0 or token.map is None or token.type == "inline":
            continue
        start, end = token.map
        own = token.type in ("paragraph_open", "html_block")
        if not own or not lines[start].lstrip(" \t").startswith("<"):
            forged.append((token.type, start))
        if start != covered:
            forged.append(("gap", covered))
        covered = end
    if covered != len(lines):
        forged.append(("gap", covered))
    return forged


def markdown_whole_block(text: str) -> tuple[int, list[tuple[str, int]]]:
    """(top-level list items, [(token type, line)] of forged blocks) of a whole item block.

    ``text`` is an item block (``<domain_rules>``...) or a ``ui.list()`` block,
    tag lines included. To CommonMark the tags are text (``domain_rules`` is no
    tag name: ``_`` is not allowed): the opening tag must read as a one-line
    paragraph, which the first ``- `` line interrupts; a heading there (the
    tag over a setext underline ``- ``) is forged. Further blocks are judged
    as :func:`markdown_items` judges them: one that is not a paragraph and
    starts on a line which is not a ``- `` item line is forged.
    """
    lines = _LINE_END.split(text)
    item_lines = {index for index, line in enumerate(lines) if line.startswith("- ")}
    tokens = _MARKDOWN.parse(text)
    top = sum(1 for t in tokens if t.type == "list_item_open" and t.level == 1)
    forged = []
    for token in tokens:
        if token.level or token.nesting < 0 or token.map is None or token.type == "inline":
            continue
        start = token.map[0]
        if start == 0:
            own = token.type == "paragraph_open" and token.map == [0, 1]
        else:
            own = token.type == "paragraph_open" or start in item_lines
        if not own:
            forged.append((token.type, start))
    return top, forged


def markdown_blocks(content: str) -> list[tuple[str, str, str]]:
    """(type, info, content) of the top-level block tokens of Markdown ``content``."""
    return [
        (t.type, t.info, t.content)
        for t in _MARKDOWN.parse(content)
        if t.level == 0 and t.nesting >= 0 and t.type != "inline"
    ]


def markdown_table(content: str) -> list[list[str]] | None:
    """The cells (inline source) of each row of the one table in ``content``, or ``None``."""
    tokens = _MARKDOWN.parse(content)
    if not tokens or tokens[0].type != "table_open":
        return None
    rows: list[list[str]] = []
    for token in tokens:
        if token.type == "tr_open":
            rows.append([])
        elif token.type == "inline" and rows:
            rows[-1].append(token.content)
    return rows
