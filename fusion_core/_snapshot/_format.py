"""Wire snapshots: a byte-exact, lossless file format that reads well in review.

A snapshot holds one response: its ``isError`` and ``structuredContent`` when
present, then every content block, each under a header naming its index and
kind and giving its length, so any content — CRs, lines that look like
headers, a missing final newline — round-trips exactly::

    fusion-wire-snapshot 1
    isError: true
    ── block 0 · tool_error · 84 chars
    <tool_error code="NOT_FOUND" severity="error">
    ...
    </tool_error>

Lengths count characters (code points), so a file mangled by newline
conversion is detected, not silently misread. The file is UTF-8, written as
bytes (lone surrogates with ``surrogatepass``). ``_snapshot/_changes``
explains a mismatch block by block, naming each block's kind and showing
CR and invisible characters visibly (``␍``, ``⟨U+200B⟩``).

A foreign server's ``structuredContent`` may hold what our own writers
refuse, such as an int of more than 4,300 digits (past CPython's default
conversion limit): the snapshot stores it digit for digit all the same,
converting in chunks below the limit, and reads it back exactly. Data nested
too deep for the JSON module raises :class:`~fusion_core.SerializationError`.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Mapping
from typing import Any, Final

from fusion_core._errors import SerializationError, WireFormatError
from fusion_core._kinds import UI, kind_of
from fusion_core._read._parse import parse
from fusion_core._read._parsed_blocks import ParsedResponse, UiBlockText
from fusion_core._snapshot._suffixes import PENDING_SUFFIX, SNAPSHOT_SUFFIX
from fusion_core._terminal import show_invisible
from fusion_core._write._numbers import SHORT_INT_BITS, int_digits, read_json

__all__ = [
    "PENDING_SUFFIX",
    "SNAPSHOT_SUFFIX",
    "block_kinds",
    "dump_snapshot",
    "load_snapshot",
    "show_invisible",
    "visible_lines",
]

MAGIC: Final = "fusion-wire-snapshot 1"
# Counts have at most 12 digits (a snapshot is far below a terabyte): int()
# is then cheap, and a header of thousands of digits is damage, not a count.
_HEADER: Final = re.compile(r"── block (\d{1,12}) · ([^·\n]+) · (\d{1,12}) chars\n")
_STRUCTURED: Final = re.compile(r"structuredContent · (\d{1,12}) chars\n")


def block_kinds(wire: Mapping[str, Any] | ParsedResponse) -> list[str]:
    """The kind of every block, as the parser reads them (``text`` if unreadable).

    ``wire`` may be the response already parsed (``parse(wire)``).
    """
    try:
        blocks = parse(wire).blocks
    except WireFormatError:
        content = wire.get("content", []) if isinstance(wire, Mapping) else ()
        return ["text"] * len(content)
    kinds = []
    for block in blocks:
        kind = kind_of(block).name
        if isinstance(block, UiBlockText):
            kind = f"{UI.name}({_header_safe(block.ui_block.type)})"
        kinds.append(kind)
    return kinds


# A kind goes on a block's header line: a line break or a "·" in a UI block's
# type would end or split that line, and the file could not be read back. They
# are shown as marks, as are CR and invisible characters (show_invisible).
def _header_safe(text: str) -> str:
    return show_invisible(text).replace("\n", "⟨U+000A⟩").replace("·", "⟨U+00B7⟩")


def dump_snapshot(wire: Mapping[str, Any], kinds: list[str] | None = None) -> str:
    """The snapshot text of a response (a ``ToolResponse`` or any MCP wire dict).

    ``kinds`` are the blocks' kinds when the caller has them (``block_kinds``).
    """
    lines = [MAGIC + "\n"]
    if "isError" in wire:
        lines.append(f"isError: {json.dumps(wire['isError'])}\n")
    if "structuredContent" in wire:
        body = _dump_json(wire["structuredContent"])
        lines.append(f"structuredContent · {len(body)} chars\n{body}\n")
    texts = [block.get("text", "") for block in wire.get("content", [])]
    kinds = block_kinds(wire) if kinds is None else kinds
    for index, (kind, text) in enumerate(zip(kinds, texts, strict=True)):
        lines.append(f"── block {index} · {kind} · {len(text)} chars\n{text}\n")
    return "".join(lines)


def load_snapshot(text: str) -> dict[str, Any]:
    """The MCP wire dict a snapshot holds; ``WireFormatError`` if it is damaged.

    No other exception escapes, and reading is linear in the text's length.
    """
    if not text.startswith(MAGIC + "\n"):
        msg = f"not a wire snapshot: the first line must be {MAGIC!r}"
        raise WireFormatError(msg)
    position = len(MAGIC) + 1
    wire: dict[str, Any] = {"content": []}
    if text.startswith("isError: ", position):
        end = text.find("\n", position)
        if end < 0:
            msg = f"snapshot damaged near character {position}: the isError line never ends"
            raise WireFormatError(msg)
        wire["isError"] = _json_at(text, position + len("isError: "), end, "isError")
        position = end + 1
    structured = _STRUCTURED.match(text, position)
    if structured is not None:
        start = structured.end()
        end = start + int(structured.group(1))
        wire["structuredContent"] = _json_at(text, start, end, "structuredContent")
        position = _expect_newline(text, end)
    while position < len(text):
        header = _HEADER.match(text, position)
        if header is None or int(header.group(1)) != len(wire["content"]):
            msg = f"snapshot damaged near character {position}: expected a block header"
            raise WireFormatError(msg)
        start = header.end()
        end = start + int(header.group(3))
        wire["content"].append({"type": "text", "text": text[start:end]})
        position = _expect_newline(text, end)
    return wire


def _huge_ints(value: Any, found: list[int]) -> Any:
    """``value`` with every int too long to print at once replaced by a ``_Marker``.

    Containers on the way are copied (the caller's data is never changed);
    iterative, so depth costs no recursion here.
    """
    if not has_huge_int(value):
        return value
    root: list[Any] = [value]
    stack: list[tuple[Any, Any]] = [(root, 0)]
    seen: set[int] = set()  # a cycle is left in place: json then names it
    while stack:
        parent, key = stack.pop()
        item = parent[key]
        if isinstance(item, dict | list | tuple):
            if id(item) in seen:
                continue
            seen.add(id(item))
        if isinstance(item, int) and not isinstance(item, bool):
            if item.bit_length() > SHORT_INT_BITS:
                found.append(item)
                parent[key] = _Marker(len(found) - 1)
        elif isinstance(item, dict):
            parent[key] = copy = dict(item)
            stack.extend((copy, child) for child in copy)
        elif isinstance(item, list | tuple):
            parent[key] = listed = list(item)
            stack.extend((listed, index) for index in range(len(listed)))
    return root[0]


def has_huge_int(value: Any) -> bool:
    """Whether ``value`` holds a long int (a container met twice is not walked again)."""
    stack, seen = [value], set()
    while stack:
        item = stack.pop()
        if isinstance(item, int) and not isinstance(item, bool):
            if item.bit_length() > SHORT_INT_BITS:
                return True
        elif isinstance(item, dict | list | tuple) and id(item) not in seen:
            seen.add(id(item))
            stack.extend(item.values() if isinstance(item, dict) else item)
    return False


class _Marker:
    """Where ``found[index]`` goes; json hands it to ``default``."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index


def _dump_json(value: Any) -> str:
    """``json.dumps(value, ensure_ascii=False, indent=2)``, for ints of any length too.

    Long ints are written as placeholder strings, then replaced by their
    digits; a placeholder holds a NUL (which JSON always escapes, so no
    string of the data prints as it) and a random token, and is checked to
    occur exactly once.
    """
    found: list[int] = []
    replaced = _huge_ints(value, found)
    token = secrets.token_hex(8)

    def placeholder(item: object) -> str:
        if isinstance(item, _Marker):
            return f"\0{token}:{item.index}"
        msg = f"a {type(item).__qualname__} has no JSON form"
        raise SerializationError(msg, path="$.structuredContent", value=item)

    try:
        body = json.dumps(replaced, ensure_ascii=False, indent=2, default=placeholder)
    except RecursionError:
        msg = "structuredContent is nested too deep to store in a snapshot"
        raise SerializationError(msg, path="$.structuredContent", value=None) from None
    except ValueError as error:  # a container that contains itself
        msg = f"structuredContent cannot be stored: {error}"
        raise SerializationError(msg, path="$.structuredContent", value=None) from None
    for index, number in enumerate(found):
        quoted = json.dumps(f"\0{token}:{index}", ensure_ascii=False)
        if body.count(quoted) != 1:  # pragma: no cover - a 64-bit random token collided
            return _dump_json(value)
        body = body.replace(quoted, int_digits(number))
    return body


def _json_at(text: str, start: int, end: int, what: str) -> Any:
    """The JSON value of ``text[start:end]``, or ``WireFormatError`` saying where."""
    try:
        return read_json(text[start:end], max_digits=None)
    except (ValueError, RecursionError):
        msg = f"snapshot damaged near character {start}: {what} is not JSON"
        raise WireFormatError(msg) from None


def _expect_newline(text: str, position: int) -> int:
    if text[position : position + 1] != "\n":
        msg = (
            f"snapshot damaged near character {position}: a block's length does not match "
            "its content (was the file's newline style converted?)"
        )
        raise WireFormatError(msg)
    return position + 1


_LINE: Final = re.compile(r"[^\n]*\n|[^\n]+\Z")


def visible_lines(text: str, *, mark_end: bool) -> list[str]:
    """Diff lines with CR and invisible characters shown; a missing final newline marked.

    Every line ends with one line feed; with ``mark_end``, a last line without
    one ends in ``⏎ (no newline at end)``.
    """
    lines = _LINE.findall(text)
    shown = [show_invisible(line[:-1] if line.endswith("\n") else line) + "\n" for line in lines]
    if mark_end and lines and not lines[-1].endswith("\n"):
        shown[-1] = shown[-1][:-1] + "⏎ (no newline at end)\n"
    return shown
