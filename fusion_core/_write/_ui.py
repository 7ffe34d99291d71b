"""UI blocks: the value type, its meta, the one fence, and the helpers.

A UI block is ``type`` + ``content`` (+ optional meta). The helpers build the
content the reference builds; :func:`fence` is the single place that wraps
code in a Markdown fence, so if MCP ever standardizes UI blocks only it
changes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, get_args

from fusion_core._errors import SerializationError, UIError
from fusion_core._write._json import to_json
from fusion_core._write._numbers import MAX_INT_DIGITS, js_string_of_number, require_int_digits
from fusion_core._write._text import (
    LINE_BREAK,
    continue_lines,
    escape_attr,
    lead_first_item,
    lead_item,
    require_unicode,
)

__all__ = [
    "UiBlock",
    "UiMeta",
    "Width",
    "code_block",
    "echarts",
    "fence",
    "json_block",
    "list_block",
    "markdown",
    "mermaid",
    "summary",
    "table",
]

Width = Literal["full", "half", "third"]
_WIDTHS: Final = frozenset(get_args(Width))
_LANGUAGE: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_+#.\-]*")
_BACKTICK_RUN: Final = re.compile(r"`+")
_LANGUAGES: Final = frozenset({"echarts", "mermaid", "json"})
SUMMARY_PREFIX: Final = "📊 **Summary**: "


_PRIORITY_RANGE: Final = (
    f"a finite float or an int of at most {MAX_INT_DIGITS:,} digits (0 included)"
)


def _check_priority(priority: object) -> None:
    """Raise :class:`UIError` unless ``priority`` is a number the wire writes exactly.

    The message never converts the value with ``repr`` when it is an int: one
    beyond this process's conversion limit would raise there.
    """
    if isinstance(priority, int) and not isinstance(priority, bool):
        try:
            require_int_digits(priority)
        except SerializationError:
            digits = math.floor(priority.bit_length() * math.log10(2)) + 1
            msg = f"UI priority must be {_PRIORITY_RANGE}, got an int of about {digits:,} digits"
            raise UIError(msg, value=priority) from None
        return
    if isinstance(priority, float) and math.isfinite(priority):
        return
    try:
        shown = repr(priority)
    except Exception:  # noqa: BLE001 - a hostile __repr__ must not hide the real problem
        shown = f"a {type(priority).__qualname__}"
    msg = f"UI priority must be {_PRIORITY_RANGE}, got {shown}"
    raise UIError(msg, value=priority)


@dataclass(frozen=True, slots=True, eq=False)
class UiMeta:
    """Optional presentation hints of a UI block.

    ``title`` and ``width`` given as ``""`` mean unset (as in the reference);
    ``width`` must otherwise be ``full``, ``half`` or ``third``; ``priority``
    must be a finite float or an int of at most ``MAX_INT_DIGITS`` digits
    (``0`` included): anything else is a :class:`UIError` naming the field and
    the range. Blocks are never re-sorted.
    """

    title: str | None = None
    width: Width | Literal[""] | None = None
    priority: int | float | None = None

    def __post_init__(self) -> None:
        # "" means unset, as in the reference; normalizing keeps views equal to
        # what parsing the bytes gives back.
        if self.title == "":
            object.__setattr__(self, "title", None)
        if self.width == "":
            object.__setattr__(self, "width", None)
        if self.title is not None and not isinstance(self.title, str):
            raise UIError(f"UI title must be a str, got {self.title!r}", value=self.title)
        if self.width not in (None, "") and self.width not in _WIDTHS:
            raise UIError(
                f"UI width must be 'full', 'half' or 'third', got {self.width!r}",
                value=self.width,
            )
        if self.priority is not None:
            _check_priority(self.priority)

    @classmethod
    def of(cls, meta: UiMeta | Mapping[str, Any] | None) -> UiMeta | None:
        """Accept a ``UiMeta``, a mapping with the same keys, or ``None``."""
        if meta is None or isinstance(meta, UiMeta):
            return meta
        if not isinstance(meta, Mapping):
            raise UIError(
                f"UI meta must be a UiMeta, a mapping or None, got {type(meta).__name__}",
                value=meta,
            )
        unknown = set(meta) - {"title", "width", "priority"}
        if unknown:
            raise UIError(
                f"unknown UI meta keys {sorted(unknown)}; use title, width, priority",
                value=meta,
            )
        return cls(**meta)

    @property
    def is_empty(self) -> bool:
        """Whether no attribute is set (such meta is dropped from blocks)."""
        return self.title is None and self.width is None and self.priority is None

    def __eq__(self, other: object) -> bool:
        """Meta compares as it is written: priority ``2`` equals ``2.0``."""
        if not isinstance(other, UiMeta):
            return NotImplemented
        return self.attributes() == other.attributes()

    def __hash__(self) -> int:
        return hash(self.attributes())

    def attributes(self) -> str:
        """The ``title``/``width``/``priority`` attributes, escaped, in order."""
        parts = []
        if self.title:
            parts.append(f' title="{escape_attr(self.title)}"')
        if self.width:
            parts.append(f' width="{self.width}"')
        if self.priority is not None:
            parts.append(f' priority="{js_string_of_number(self.priority)}"')
        return "".join(parts)


@dataclass(frozen=True, slots=True)
class UiBlock:
    """One ``<ui_passthrough>`` block: its type, its content, optional meta."""

    type: str
    content: str
    meta: UiMeta | None = None

    def __post_init__(self) -> None:
        if self.meta is not None and self.meta.is_empty:
            object.__setattr__(self, "meta", None)
        if not isinstance(self.type, str) or not isinstance(self.content, str):
            raise UIError(
                "a UI block's type and content must be str, got "
                f"{type(self.type).__name__} and {type(self.content).__name__}",
                value=self,
            )
        if not self.content.isascii():  # ASCII holds no surrogate: no message to build
            require_unicode(self.content, f"the content of the {self.type!r} UI block")


def _meta(title: str | None, width: Width | None, priority: int | float | None) -> UiMeta | None:
    if title is None and width is None and priority is None:
        return None
    return UiMeta(title=title, width=width, priority=priority)


def check_language(language: str) -> str:
    """Return ``language`` if it is a valid fence info string, else raise."""
    if type(language) is str and language in _LANGUAGES:  # the helpers' tags: no regex
        return language
    if language != "" and (not isinstance(language, str) or not _LANGUAGE.fullmatch(language)):
        raise UIError(
            f"invalid language tag {language!r}: use letters, digits and _ + # . - "
            "(starting with a letter or digit), or '' for none",
            value=language,
        )
    return language


def fence(language: str, body: str) -> str:
    """Wrap ``body`` in a CommonMark fence longer than any backtick run in it.

    A body ending with CR is closed after a CR, not an LF: CR then LF would
    read as one CRLF line ending, and the body's last line break would be lost.
    """
    check_language(language)
    longest = (
        max((len(run) for run in _BACKTICK_RUN.findall(body)), default=0) if "`" in body else 0
    )
    ticks = "`" * max(3, longest + 1)
    closing = "\r" if body.endswith("\r") else "\n"
    return f"{ticks}{language}\n{body}{closing}{ticks}"


def json_fence(language: str, json_text: str) -> str:
    """Pretty-printed JSON in a three-backtick fence, as the reference writes it.

    A fence closes only on a line that *starts* with a backtick run, and a line
    of :func:`~fusion_core.to_json` text starts with indentation and a JSON
    token (a quote, a bracket, a number, a literal), never with a string's
    content: a string holding backticks cannot close the fence, so it is not
    lengthened (``ui.json``, ``ui.echarts``). Content whose lines may start
    with anything (mermaid, code blocks) goes through :func:`fence`.
    """
    return f"```{language}\n{json_text}\n```"


def echarts(
    config: Any,
    *,
    title: str | None = None,
    width: Width | None = None,
    priority: int | float | None = None,
) -> UiBlock:
    """An ECharts chart: the JSON of ``config`` in an ``echarts`` fence."""
    return UiBlock("echarts", json_fence("echarts", to_json(config)), _meta(title, width, priority))


def mermaid(
    diagram: str,
    *,
    title: str | None = None,
    width: Width | None = None,
    priority: int | float | None = None,
) -> UiBlock:
    """A Mermaid diagram in a ``mermaid`` fence."""
    return UiBlock("mermaid", fence("mermaid", diagram), _meta(title, width, priority))


def markdown(
    text: str,
    *,
    title: str | None = None,
    width: Width | None = None,
    priority: int | float | None = None,
) -> UiBlock:
    """Markdown, verbatim (not fenced)."""
    return UiBlock("markdown", text, _meta(title, width, priority))


def code_block(
    language: str,
    code: str,
    *,
    title: str | None = None,
    width: Width | None = None,
    priority: int | float | None = None,
) -> UiBlock:
    """Source code in a fence tagged ``language``; the block's type is the language."""
    return UiBlock(language, fence(language, code), _meta(title, width, priority))


def _cell(value: Any, path: str = "$") -> str:
    if isinstance(value, str):
        text = value
    elif value is None:
        text = ""
    elif isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, int | float):
        text = js_string_of_number(value, path)
    else:
        text = str(value)
    if "|" in text:
        text = text.replace("|", "\\|")
    if "\n" in text or "\r" in text:  # LINE_BREAK, without a regex pass
        text = LINE_BREAK.sub("<br>", text)
    return text


_SMALL_INT: Final = 1 << 63  # far below the digit limits of int_text


def _row(cells: Iterable[Any], where: str) -> str:
    """``| a | b |``: one table line; ``where`` (``headers``, ``rows[r]``) names its cells.

    A str cell without ``|`` or a line break and a plain int are written
    here, as :func:`_cell` would write them, without building their path
    (which only names a cell that cannot be written).
    """
    texts = []
    for index, value in enumerate(cells):
        kind = type(value)
        if kind is str and "|" not in value and "\n" not in value and "\r" not in value:
            texts.append(value)
        elif kind is int and -_SMALL_INT < value < _SMALL_INT:
            texts.append(int.__repr__(value))
        else:
            texts.append(_cell(value, f"{where}[{index}]"))
    return "| " + " | ".join(texts) + " |"


def table(
    headers: Iterable[Any],
    rows: Iterable[Sequence[Any]],
    *,
    title: str | None = None,
    width: Width | None = None,
    priority: int | float | None = None,
) -> UiBlock:
    """A Markdown table; cells escape ``|`` and turn line breaks into ``<br>``.

    The header and separator lines are each followed by a line break, then
    the rows: a table without rows ends with that break, as the reference's.
    """
    if not isinstance(headers, list | tuple):
        headers = list(headers)  # an iterator is read once, for the header and the separator
    head = _row(headers, "headers")
    separator = "| " + " | ".join(["---"] * len(headers)) + " |"
    body = "\n".join([_row(row, f"rows[{r}]") for r, row in enumerate(rows)])
    return UiBlock("markdown", f"{head}\n{separator}\n{body}", _meta(title, width, priority))


def _list_item(item: Any, path: str, *, first: bool = False) -> str:
    """One ``- `` line; the first follows the opening tag, so it is led apart (lead_first_item)."""
    text = item if isinstance(item, str) else _cell(item, path)
    return "- " + continue_lines(lead_first_item(text) if first else lead_item(text))


def list_block(
    items: Iterable[Any],
    *,
    title: str | None = None,
    width: Width | None = None,
    priority: int | float | None = None,
) -> UiBlock:
    """A Markdown bullet list; continuation lines of an item are indented.

    A continuation line never starts a Markdown block of its own (a nested
    item, a heading...), as the wire format's item encoding says (docs: *The
    wire format*, *Escaping and item encoding*).
    """
    text = "\n".join(_list_item(item, f"items[{i}]", first=i == 0) for i, item in enumerate(items))
    return UiBlock("markdown", text, _meta(title, width, priority))


def json_block(
    value: Any,
    *,
    title: str | None = None,
    width: Width | None = None,
    priority: int | float | None = None,
) -> UiBlock:
    """The JSON of ``value`` in a ``json`` fence."""
    return UiBlock("json", json_fence("json", to_json(value)), _meta(title, width, priority))


def summary(
    text: str,
    *,
    title: str | None = None,
    width: Width | None = None,
    priority: int | float | None = None,
) -> UiBlock:
    """A one-line summary: ``📊 **Summary**: `` followed by ``text``."""
    return UiBlock("summary", SUMMARY_PREFIX + text, _meta(title, width, priority))
