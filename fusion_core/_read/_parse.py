r"""Reading the wire back: typed blocks and the view, from any Fusion response.

:func:`parse` accepts a :class:`~fusion_core.ToolResponse`, an ``mcp``
``CallToolResult``, the MCP wire dict, or its JSON text (``str`` or
``bytes``), and returns a :class:`ParsedResponse`: one typed block per
content block, in order, and the :class:`~fusion_core.ResponseView` the bytes
say. Every decoding step is the exact inverse of an encoding step in
``_text``/``_blocks``, so ``parse(r).view == view_of(r)`` for responses this
library builds (``ResponseView`` equality compares wire meaning).

How the blocks are read (the layout rule, shared with :func:`check`):

1. Block 0 is the data block, unless the response sets ``isError`` (true,
   or false for a ``severity="warning"`` envelope) and the block is a
   well-formed ``<tool_error>`` or ``<validation_error>`` envelope (then the
   view's ``data`` is ``None``). A block that starts like an envelope but is
   malformed is read as data, and ``check()`` reports it when ``isError`` is
   set.
2. Then a run of ``<ui_passthrough ...>`` blocks: the UI blocks.
3. The tail: if a top-level ``<llm_directives>`` block exists (child
   Presenters never emit one), the tail starts at the first such block;
   otherwise it is the longest suffix that reads as ``<domain_rules>?
   <action_suggestions>?`` in that order.
4. Everything between the UI run and the tail is an embed, verbatim — child
   Presenter blocks are legitimate repeats of UI, rules and suggestions —
   but for the writer's backslash (``<\domain_rules>``, ``_raw``), which
   its view loses again.

What bytes cannot say, and the parser's answer:

* **str or JSON.** The data text ``42`` is ``success(42)`` or ``success("42")``.
  The parser returns the JSON value when the text is JSON whose canonical
  encoding (``to_json``) is the text itself, and the text otherwise; a JSON
  *string* literal stays text (``success('"a"')`` writes ``"a"``), unless the
  response has ``structuredContent`` (then the block is always JSON). Views
  compare data by wire text, so both readings give equal views.
* **Parent or child.** A child Presenter's UI block directly after the
  parent's UI run, or a child's rules/suggestions block at the very end, read
  as the parent's own: the bytes are identical. Such views say the same
  thing on the wire but put those blocks in different fields.
* **TOON.** ``toon_success`` text is read as a str (TOON is not
  self-describing; ``a: 1`` is also plain text).
* **Suggestions.** ``- tool: reason`` splits at the first ``": "``; the
  writer puts ``": "`` in a tool name as ``:&#x20;``, so its output is
  unambiguous (another server's may not be).
* **Items.** An item's continuation lines (after LF, CR or CRLF, once
  references are decoded) lose their two-space indent and then one
  backslash, if any: the writer adds one before a line that would start a
  Markdown block or starts with a backslash (``_text.continue_lines``).
  A rule, directive or suggestion tool whose first line is a backslash and then hyphens
  among spaces and tabs loses that backslash: the writer adds it so
  that ``- --`` is not read as a thematic break.
* **Envelope or text.** Every envelope sets ``isError`` and no data
  response does, so that flag decides: ``success("<tool_error>...")`` (no
  ``isError``) reads back as its str data, whatever the text looks like.
  Block 0 is never read as UI, rules or any other block: data text that
  looks like one is data.

Input is bounded by the one size policy of ``_limits``: whatever the writer
writes (up to ``MAX_RESPONSE_SIZE`` characters of text) is read, from JSON
text of up to ``MAX_MESSAGE_SIZE``; beyond that, for a character reference
that names no character, and for anything that is not a Fusion response at
all, :class:`WireFormatError` (naming the block and offset where it can). No
other exception escapes :func:`parse`, on any input, in time linear in its
length.
"""

from __future__ import annotations

import gc
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, TypeVar

import orjson

from fusion_core._errors import CharacterReferenceError, FusionError, WireFormatError
from fusion_core._kinds import (
    DIRECTIVES,
    SUGGESTIONS,
    TAIL,
    TOOL_ERROR,
    UI,
    VALIDATION_ERROR,
    BlockKind,
    kind_of,
)
from fusion_core._limits import MAX_MESSAGE_SIZE, MAX_RESPONSE_SIZE
from fusion_core._read._parsed_blocks import (
    Block,
    DataBlock,
    DirectivesBlock,
    EmbedBlock,
    ParsedResponse,
    RulesBlock,
    SuggestionsBlock,
    ToolErrorBlock,
    UiBlockText,
    ValidationErrorBlock,
    ValidationField,
)
from fusion_core._read._raw import restore_raw
from fusion_core._write._json import is_canonical_json, to_json
from fusion_core._write._numbers import read_json
from fusion_core._write._response import ToolResponse, json_data_of
from fusion_core._write._text import (
    decode_item,
    has_lone_surrogate,
    restore_fusion_tags,
    unescape,
    unlead_first_item,
    unlead_item,
)
from fusion_core._write._ui import UiBlock
from fusion_core._write._view import ErrorEnvelope, ResponseView, Suggestion, ValidationFailure

__all__ = ["parse"]

_ATTRS: Final = r'((?:[ \t\n]+[A-Za-z_][\w.:-]*="[^"<]*")*)'
_ATTR: Final = re.compile(r'([A-Za-z_][\w.:-]*)="([^"<]*)"')
_UI_OPEN: Final = re.compile(UI.opening + _ATTRS + r"[ \t]*>\n")
_UI_CLOSE: Final = "\n" + UI.closing
# The reference writes attribute values unescaped; this reads its known
# attribute order with quotes inside values. Only tried on short headers,
# because lazy groups over quotes are quadratic.
_UI_OPEN_LENIENT: Final = re.compile(
    UI.opening + r' type="(.*?)"(?: title="(.*?)")?(?: width="([^"\n]*)")?'
    r'(?: priority="([^"\n]*)")?>\n',
    re.DOTALL,
)
_LENIENT_HEADER_MAX: Final = 4096
_ERROR_OPEN: Final = re.compile(TOOL_ERROR.opening + _ATTRS + r"[ \t]*>\n")
_ERROR_ELEMENT: Final = re.compile(
    r"<(message|recovery|retry_after)>([^<]*)</\1>\n"
    r"|<available_actions>([^<]*)</available_actions>\n"
    r"|<available_actions>\n((?:  <action>[^<]*</action>\n)*)</available_actions>\n"
    r'|<details>\n((?:  <detail key="[^"<]*">[^<]*</detail>\n)*)</details>\n'
)
_ACTION: Final = re.compile(r"  <action>([^<]*)</action>\n")
_DETAIL: Final = re.compile(r'  <detail key="([^"<]*)">([^<]*)</detail>\n')
_VALIDATION_OPEN: Final = re.compile(VALIDATION_ERROR.opening + _ATTRS + r"[ \t]*>\n")
_VALIDATION_ELEMENT: Final = re.compile(
    r'<field name="([^"<]*)">([^<]*)</field>\n|<recovery>([^<]*)</recovery>\n'
)
_JSON_START: Final = frozenset('{["-0123456789tfn')
# A numeric reference _text.unescape would decode that names no character:
# past leading zeros (possessive, so a long run is read once), more than six
# hex digits or seven decimal ones, or six and seven above 10FFFF and 1114111.
_BAD_REF: Final = re.compile(
    r"&#(?:x0*+(?:[0-9A-Fa-f]{7}|[2-9A-Fa-f][0-9A-Fa-f]{5}|1[1-9A-Fa-f][0-9A-Fa-f]{4})"
    r"[0-9A-Fa-f]*+|0*+(?:[0-9]{8}|[2-9][0-9]{6}|1[2-9][0-9]{5}|11[2-9][0-9]{4}"
    r"|111[5-9][0-9]{3}|1114[2-9][0-9]{2}|11141[2-9][0-9]|111411[2-9])[0-9]*+);"
)
_RETRY_SUFFIX: Final = " seconds"


# ---------------------------------------------------------------- the input


def _wire_of(source: object) -> Mapping[str, Any]:
    """The MCP wire dict of any accepted input."""
    if isinstance(source, Mapping):
        return source
    if isinstance(source, str | bytes | bytearray | memoryview):
        return _load_wire(source)
    mcp_types = sys.modules.get("mcp.types")
    # A CallToolResult can only exist once mcp.types is imported, so looking
    # it up there keeps the ~1 s import of mcp off this path.
    if mcp_types is not None and isinstance(source, mcp_types.CallToolResult):
        dumped: dict[str, Any] = source.model_dump(by_alias=True, exclude_unset=True)
        return dumped
    msg = (
        "parse() takes a ToolResponse, an mcp CallToolResult, the MCP wire dict or its "
        f"JSON text, got {type(source).__qualname__}"
    )
    raise WireFormatError(msg)


def _load_wire(source: str | bytes | bytearray | memoryview) -> Mapping[str, Any]:
    if len(source) > MAX_MESSAGE_SIZE:
        msg = f"the JSON text is {len(source):,} long; parse() reads at most {MAX_MESSAGE_SIZE:,}"
        raise WireFormatError(msg)
    if isinstance(source, memoryview):
        source = bytes(source)
    wire = _read_fast(source)
    if wire is _UNREAD:
        # The stdlib reads what orjson refuses or rounds: ints beyond 64 bits,
        # NaN, lone surrogates.
        try:
            wire = read_json(source)
        except (ValueError, RecursionError, UnicodeError) as exc:
            msg = f"the text is not JSON: {exc}"
            raise WireFormatError(msg) from None
    if not isinstance(wire, dict):
        msg = f"the JSON text is a {type(wire).__name__}, not a CallToolResult object"
        raise WireFormatError(msg)
    return wire


_UNREAD: Final[Any] = object()


def _read_fast(source: str | bytes | bytearray) -> Any:
    """The orjson reading of ``source``, or ``_UNREAD`` when it may be inexact."""
    try:
        raw = source.encode() if isinstance(source, str) else source
    except UnicodeEncodeError:
        return _UNREAD
    try:
        wire = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return _UNREAD
    if isinstance(wire, dict) and _has_rounded_int(wire.get("structuredContent")):
        return _UNREAD
    return wire


def _has_rounded_int(value: Any) -> bool:
    """Whether ``value`` holds a float orjson may have rounded from a huge int.

    orjson reads integers beyond 64 bits as floats; the stdlib reads them
    exactly. Only such integral floats of 2**63 or more are suspects.
    """
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float):
            if abs(item) >= 2**63 and item.is_integer():
                return True
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _texts(wire: Mapping[str, Any]) -> list[str]:
    content = wire.get("content")
    if not isinstance(content, list | tuple) or not content:
        msg = "a Fusion response has a non-empty 'content' list of text blocks"
        raise WireFormatError(msg)
    texts: list[str] = []
    size = 0
    for index, item in enumerate(content):
        if isinstance(item, Mapping):
            kind, text = item.get("type"), item.get("text")
        else:
            kind, text = getattr(item, "type", None), getattr(item, "text", None)
        if kind != "text" or not isinstance(text, str):
            msg = f"every Fusion content block is {{'type': 'text', 'text': str}}, got {item!r:.80}"
            raise WireFormatError(msg, block=index)
        size += len(text)
        if size > MAX_RESPONSE_SIZE:
            msg = (
                f"the response holds more than {MAX_RESPONSE_SIZE:,} characters of text, "
                "the most a Fusion response holds (fusion_core.MAX_RESPONSE_SIZE)"
            )
            raise WireFormatError(msg, block=index)
        texts.append(text)
    return texts


_Read = TypeVar("_Read")


# ------------------------------------------------------ character references


def require_references(text: str, end: int | None = None) -> None:
    """Raise :class:`CharacterReferenceError` at the first bad numeric reference.

    A bad reference, in ``text[:end]``, is one that names no character.
    The readers decode references with ``chr()``, which refuses code points
    beyond U+10FFFF, and ``int()``, which refuses more than 4,300 digits (and
    is quadratic below that). Leading zeros are legal and stripped first, so a
    reference is judged by at most seven digits, in time linear in its length.
    Surrogates and NUL are characters the writer references (XML 1.0 cannot
    carry them raw); they decode.
    """
    if "&#" not in text:
        return
    # One search in C for a reference past U+10FFFF: judging each reference
    # in Python cost microseconds a reference (seconds a megabyte).
    found = _BAD_REF.search(text, 0, len(text) if end is None else end)
    if found is not None:
        shown = found.group() if len(found.group()) <= 24 else found.group()[:20] + "...;"
        msg = (
            f"the character reference {shown} names no character (Unicode ends at "
            "&#x10FFFF;); write the character itself or a reference in range"
        )
        raise CharacterReferenceError(msg, offset=found.start())


# ------------------------------------------------------------ block readers


def _is_json_canonical(text: str, value: Any, raw: bytes | str) -> bool:
    """Whether ``to_json(value) == text``, without building the str when possible."""
    same = is_canonical_json(value, raw)
    if same is not None:
        return same
    try:
        return to_json(value) == text
    except (FusionError, RecursionError):
        return False


def read_data(text: str, *, structured: bool = False, orjson_wrote: bool = False) -> DataBlock:
    """Read a data block by the str-or-JSON rule (module docstring).

    ``orjson_wrote``: the writer says (``write_json``) that orjson wrote the
    text, so it is canonical JSON that orjson reads exactly; the check that
    re-encodes the value (a fifth of the time of a large read) is skipped.
    """
    if text[:1] in _JSON_START:
        raw: bytes | str = text  # ASCII: orjson reads the str in place, no UTF-8 copy
        if not text.isascii():
            try:
                raw = text.encode()
            except UnicodeEncodeError:  # a lone surrogate: to_json never writes one raw
                raw = b""
        if raw:
            value, ok = _load_json(raw, text)
            if ok and (structured or not isinstance(value, str)):
                if orjson_wrote or _is_json_canonical(text, value, raw):
                    return DataBlock(text, value, is_json=True)
                # Only when the text is not canonical can orjson's rounding
                # of a huge int be why: then read it exactly and try again.
                if _has_rounded_int(value):
                    value, ok = _load_exact(text)
                    if ok and _is_json_canonical(text, value, raw):
                        return DataBlock(text, value, is_json=True)
    return DataBlock(text, text, is_json=False)


def _load_json(raw: bytes | str, text: str) -> tuple[Any, bool]:
    # Reading a large data block makes many containers at once; the cyclic
    # collector would walk them again and again while they are made (they
    # cannot form cycles), which turns a linear read superlinear.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return orjson.loads(raw), True
    except orjson.JSONDecodeError:
        pass
    finally:
        if collecting:
            gc.enable()
    return _load_exact(text)


def _load_exact(text: str) -> tuple[Any, bool]:
    try:
        return read_json(text), True
    except (ValueError, RecursionError):
        return None, False


def _attributes(
    group: str, unescape: Callable[[str], str] = unescape
) -> tuple[tuple[str, str], ...]:
    return tuple((name, unescape(value)) for name, value in _ATTR.findall(group))


def read_ui(text: str) -> UiBlockText | None:
    """A ``<ui_passthrough>`` block, or ``None`` if the text is not one."""
    if not text.startswith(UI.opening) or not text.endswith(_UI_CLOSE):
        return None
    end = len(text) - len(_UI_CLOSE)
    match = _UI_OPEN.match(text)
    if match is not None:
        require_references(text, match.end(1))
        attributes = _attributes(match.group(1))
    else:
        header_end = text.find(">\n")
        if header_end < 0 or header_end > _LENIENT_HEADER_MAX:
            return None
        match = _UI_OPEN_LENIENT.fullmatch(text, 0, header_end + 2)
        if match is None:
            return None
        attributes = tuple(
            (name, value)
            for name, value in zip(UI.attributes, match.groups(), strict=True)
            if value is not None
        )
    # The header's line break must not be the closing tag's: a UI block
    # always has a content line, even an empty one.
    if match.end() > end or not any(name == "type" for name, _ in attributes):
        return None
    content = text[match.end() : end]
    return UiBlockText(text, attributes, restore_fusion_tags(content))


def _item_body(text: str, kind: BlockKind) -> str | None:
    opening, closing = kind.opening + "\n", "\n" + kind.closing
    if (
        text.startswith(opening)
        and text.endswith(closing)
        and len(text) >= len(opening) + len(closing) + 2
        and text.startswith("- ", len(opening))
    ):
        return text[len(opening) + 2 : len(text) - len(closing)]
    return None


def split_items(body: str) -> list[str]:
    """The encoded items of a bullet body (without the first ``- ``)."""
    return body.split("\n- ")


def read_items(
    text: str,
) -> DirectivesBlock | RulesBlock | SuggestionsBlock | None:
    """A directives, rules or suggestions block, or ``None``.

    References are judged only in a block that is one of these: a raw block
    (verbatim text) may hold ``&#x110000;`` and begin like one.
    """
    for kind in TAIL:
        if not text.startswith(kind.opening):
            continue
        body = _item_body(text, kind)
        if body is None:
            return None
        require_references(text)
        items = split_items(body)
        if kind is SUGGESTIONS:
            return SuggestionsBlock(
                text, tuple(_suggestion(item, first=i == 0) for i, item in enumerate(items))
            )
        # The first item is led apart: its line follows the opening tag.
        first, *rest = items
        led = unlead_first_item(decode_item(first))
        texts = (led, *[unlead_item(decode_item(item)) for item in rest])
        block = DirectivesBlock if kind is DIRECTIVES else RulesBlock
        return block(text, texts)
    return None


def _suggestion(item: str, *, first: bool = False) -> Suggestion:
    tool, separator, reason = item.partition(": ")
    decoded = decode_item(tool if separator else item)
    led = unlead_first_item(decoded, tool=True) if first else unlead_item(decoded)
    return Suggestion(led, decode_item(reason) if separator else "")


def _lenient(text: str) -> str:
    """``unescape``, with a reference that names no character read as nothing.

    Only to decide whether a block has an element's structure: references
    are judged (:func:`require_references`) once it does.
    """
    try:
        return unescape(text)
    except (ValueError, OverflowError):
        return ""


def _judged(text: str, read: Callable[[str, Callable[[str], str]], _Read | None]) -> _Read | None:
    """``read(text, unescape)``; a bad reference is an error only in a block of that kind.

    A block that only begins like an envelope is not one (``None``), whatever
    references it holds.
    """
    if "&#" in text:
        try:
            require_references(text)
        except CharacterReferenceError:
            if read(text, _lenient) is None:
                return None
            raise
    return read(text, unescape)


def read_tool_error(text: str) -> ToolErrorBlock | None:
    """A ``<tool_error>`` envelope, or ``None`` if the text is not a well-formed one."""
    return _judged(text, _tool_error)


def _tool_error(text: str, unescape: Callable[[str], str]) -> ToolErrorBlock | None:
    match = _ERROR_OPEN.match(text)
    if match is None:
        return None
    attributes = _attributes(match.group(1), unescape)
    found: dict[str, Any] = {}
    position = match.end()
    while not text.startswith(TOOL_ERROR.closing, position):
        element = _ERROR_ELEMENT.match(text, position)
        if element is None:
            return None
        name, value, actions_text, actions, details = element.groups()
        if name is None:
            name = "details" if details is not None else "available_actions"
        if name in found:
            return None
        if name == "available_actions":
            if actions is not None:
                found[name] = tuple(unescape(a) for a in _ACTION.findall(actions))
            else:
                # The reference pipeline writes the list as text: "a, b".
                found[name] = tuple(unescape(actions_text).split(", ")) if actions_text else ()
        elif name == "details":
            found[name] = tuple(
                (unescape(key), unescape(value)) for key, value in _DETAIL.findall(details)
            )
        else:
            found[name] = unescape(value)
        position = element.end()
    if position + len(TOOL_ERROR.closing) != len(text) or "message" not in found:
        return None
    retry = found.get("retry_after")
    if retry is not None and retry.endswith(_RETRY_SUFFIX):
        retry = retry[: -len(_RETRY_SUFFIX)]
    named = dict(attributes)
    envelope = ErrorEnvelope(
        message=found["message"],
        code=named.get("code"),
        severity=named.get("severity"),
        recovery=found.get("recovery"),
        available_actions=found.get("available_actions", ()),
        details=found.get("details", ()),
        retry_after=retry,
    )
    return ToolErrorBlock(text, envelope, attributes)


def read_validation_error(text: str) -> ValidationErrorBlock | None:
    """A ``<validation_error>`` envelope, or ``None`` if the text is not a well-formed one."""
    return _judged(text, _validation_error)


def _validation_error(text: str, unescape: Callable[[str], str]) -> ValidationErrorBlock | None:
    match = _VALIDATION_OPEN.match(text)
    if match is None:
        return None
    attributes = _attributes(match.group(1), unescape)
    fields: list[ValidationField] = []
    recovery: str | None = None
    position = match.end()
    while not text.startswith(VALIDATION_ERROR.closing, position):
        element = _VALIDATION_ELEMENT.match(text, position)
        if element is None:
            return None
        name, message, recovery_text = element.groups()
        if name is not None:
            fields.append(ValidationField(unescape(name), unescape(message)))
        elif recovery is None:
            recovery = unescape(recovery_text)
        else:
            return None
        position = element.end()
    if position + len(VALIDATION_ERROR.closing) != len(text):
        return None
    return ValidationErrorBlock(
        text, dict(attributes).get("action"), tuple(fields), recovery, attributes
    )


def read_envelope(text: str) -> ToolErrorBlock | ValidationErrorBlock | None:
    """The envelope in block 0, or ``None`` when the block is data."""
    if text.startswith(TOOL_ERROR.opening):
        return read_tool_error(text)
    if text.startswith(VALIDATION_ERROR.opening):
        return read_validation_error(text)
    return None


# ------------------------------------------------------------------- layout


def _at(index: int, read: Callable[[str], _Read], texts: Sequence[str]) -> _Read:
    """``read(texts[index])``, with a reader's error located in block ``index``."""
    try:
        return read(texts[index])
    except WireFormatError as exc:
        raise exc.in_block(index) from None


def read_first(
    texts: Sequence[str], *, enveloped: bool, structured: bool, written: str | None = None
) -> Block:
    """Block 0: an envelope only in a response that sets ``isError``, else data.

    Every envelope the library (and the reference) writes sets ``isError``
    (``false`` for a ``severity="warning"`` one), and no data response does,
    so a str data that is itself envelope text reads back as data.
    ``written`` is the text orjson wrote for block 0, if the response says so
    (``json_data_of``): trusted only if block 0 is that very str.
    """
    envelope = _at(0, read_envelope, texts) if enveloped else None
    first = texts[0]
    return envelope or read_data(first, structured=structured, orjson_wrote=first is written)


def _layout(
    texts: Sequence[str], *, structured: bool, enveloped: bool = True, written: str | None = None
) -> tuple[list[Block], int, int]:
    """Type every block by the layout rule; return blocks, UI end, tail start."""
    first = read_first(texts, enveloped=enveloped, structured=structured, written=written)
    blocks: list[Block] = [first]
    count = len(texts)
    index = 1
    while index < count:
        ui = _at(index, read_ui, texts)
        if ui is None:
            break
        blocks.append(ui)
        index += 1
    ui_end = index
    items: dict[int, DirectivesBlock | RulesBlock | SuggestionsBlock | None] = {}
    tail_start = count
    for position in range(ui_end, count):
        if texts[position].startswith(DIRECTIVES.opening):
            items[position] = _at(position, read_items, texts)
            if isinstance(items[position], DirectivesBlock):
                tail_start = position
                break
    else:
        # No directives: the last blocks may still be rules and suggestions,
        # read from the end in the tail's order.
        for kind in reversed(TAIL[1:]):
            if tail_start > ui_end:
                candidate = _at(tail_start - 1, read_items, texts)
                if candidate is not None and kind_of(candidate) is kind:
                    tail_start -= 1
                    items[tail_start] = candidate
    for position in range(ui_end, count):
        block: Block | None = None
        if position >= tail_start:
            block = items[position] if position in items else _at(position, read_items, texts)
        blocks.append(block if block is not None else EmbedBlock(texts[position]))
    return blocks, ui_end, tail_start


def _read_ui(block: UiBlockText) -> UiBlock:
    """The view's :class:`UiBlock` for ``block``, holding whatever content arrived.

    A reader reads what arrives: the writers refuse a lone surrogate in UI
    content, but a response another server wrote may hold one, and parse()
    never raises on content (check() reports it). The block is made with
    empty content, which the writer's check accepts, then given the content.
    """
    if not has_lone_surrogate(block.content):
        return block.ui_block
    ui = UiBlockText(block.text, block.attributes, "").ui_block
    object.__setattr__(ui, "content", block.content)
    return ui


def _view(blocks: Sequence[Block], structured_content: Any) -> ResponseView:
    data: Any = None
    error: ErrorEnvelope | None = None
    validation: ValidationFailure | None = None
    ui: list[UiBlock] = []
    embeds: list[str] = []
    directives: list[str] = []
    rules: list[str] = []
    suggestions: list[Suggestion] = []
    for block in blocks:
        if isinstance(block, DataBlock):
            data = block.value
        elif isinstance(block, ToolErrorBlock):
            error = block.envelope
        elif isinstance(block, ValidationErrorBlock):
            validation = ValidationFailure(block.action, block.fields, block.recovery)
        elif isinstance(block, UiBlockText):
            ui.append(_read_ui(block))
        elif isinstance(block, EmbedBlock):
            embeds.append(restore_raw(block.text))
        elif isinstance(block, DirectivesBlock):
            directives.extend(block.items)
        elif isinstance(block, RulesBlock):
            rules.extend(block.items)
        elif isinstance(block, SuggestionsBlock):
            suggestions.extend(block.items)
    return ResponseView(
        data=data,
        ui_blocks=tuple(ui),
        embeds=tuple(embeds),
        directives=tuple(directives),
        rules=tuple(rules),
        suggestions=tuple(suggestions),
        error=error,
        structured_content=structured_content,
        validation=validation,
    )


def parse(source: object) -> ParsedResponse:
    """Read a Fusion response back into typed blocks and its view.

    ``source`` is a :class:`~fusion_core.ToolResponse`, an ``mcp``
    ``CallToolResult``, the MCP wire dict, or its JSON text (``str`` or
    ``bytes``); a :class:`ParsedResponse` is returned as it is (so
    :func:`~fusion_core.check` and the snapshot writer can share one read).
    Raises :class:`WireFormatError` — and nothing else, on any input — when
    ``source`` is not a response of text blocks or exceeds the size bounds.
    Content that breaks the contract is read as well as it can
    be; :func:`fusion_core.check` reports it.
    """
    if isinstance(source, ParsedResponse):
        return source
    try:
        wire = _wire_of(source)
        texts = _texts(wire)
        is_error = wire.get("isError")
        if is_error is not None and not isinstance(is_error, bool):
            msg = f"isError must be true, false or absent, got {is_error!r:.40}"
            raise WireFormatError(msg)
        structured = "structuredContent" in wire
        structured_content = wire.get("structuredContent")
        # A response this library built may say orjson wrote its data block.
        written = json_data_of(source) if isinstance(source, ToolResponse) else None
        blocks, ui_end, tail_start = _layout(
            texts, structured=structured, enveloped=is_error is not None, written=written
        )
        view = _view(blocks, structured_content)
    except WireFormatError:
        raise
    except (RecursionError, MemoryError):  # pragma: no cover - defensive
        msg = "the response is too deeply nested or too large to read"
        raise WireFormatError(msg) from None
    return ParsedResponse(
        blocks=tuple(blocks),
        view=view,
        is_error=is_error,
        structured_content=structured_content,
        has_structured_content=structured,
        ui_end=ui_end,
        tail_start=tail_start,
    )
