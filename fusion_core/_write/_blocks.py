"""The text of each kind of block (WIRE.md sections 1, 3, 4 and 10).

Cache: the encoding of a bullet item (a rule, a directive) and of a
suggestion's tool and reason is remembered per exact text, in bounded dicts
(4,096 texts of at most 512 characters each; a full dict is emptied, never
grown). Encoding is a pure function of the text, so nothing invalidates an
entry: static rules and suggestion tools repeat on every call and cost a
dict lookup. A str subclass is always encoded afresh.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Final

from fusion_core._kinds import DIRECTIVES, RULES, SUGGESTIONS, TOOL_ERROR, UI, BlockKind
from fusion_core._write._json import write_json
from fusion_core._write._text import (
    encode_item,
    encode_tool,
    escape_attr,
    escape_envelope,
    lead_first_item,
    lead_item,
    neutralize_fusion_tags,
    require_unicode,
)
from fusion_core._write._ui import UiBlock
from fusion_core._write._view import ErrorEnvelope, Suggestion

__all__ = [
    "render_blocks",
    "render_data",
    "render_directives",
    "render_error",
    "render_rest",
    "render_rules",
    "render_suggestions",
    "render_ui",
    "write_data",
]

EMPTY_DATA_TEXT: Final = "OK"


def render_data(data: object) -> str:
    """The data block: a str verbatim (``""`` → ``OK``), anything else as JSON."""
    return write_data(data)[0]


def write_data(data: object) -> tuple[str, bool]:
    """:func:`render_data`, and whether orjson wrote the JSON (``write_json``)."""
    if isinstance(data, str):
        return require_unicode(data, "the data str") or EMPTY_DATA_TEXT, False
    return write_json(data)


def render_ui(block: UiBlock) -> str:
    """``<ui_passthrough type=".." ...>`` + content + closing tag."""
    attributes = f'type="{escape_attr(block.type)}"'
    if block.meta is not None:
        attributes += block.meta.attributes()
    content = neutralize_fusion_tags(block.content)
    return f"{UI.opening} {attributes}>\n{content}\n{UI.closing}"


# Item texts repeat from call to call (static rules, suggestion tools and
# reasons): their encodings are remembered, by exact str, in bounded dicts
# (emptied when full; encoding is a pure function, so a hit is exact).
_MEMO_ENTRIES: Final = 4096
_MEMO_LENGTH: Final = 512  # longer texts are encoded every time
_LED_ITEMS: dict[str, str] = {}
_FIRST_ITEMS: dict[str, str] = {}
_TOOLS: dict[str, str] = {}
_FIRST_TOOLS: dict[str, str] = {}
_REASONS: dict[str, str] = {}


def _led_item(text: str) -> str:
    return encode_item(lead_item(text))


def _memo(memo: dict[str, str], encode: Callable[[str], str], text: str) -> str:
    """``encode(text)``, remembered in ``memo`` for a short plain str."""
    if type(text) is not str or len(text) > _MEMO_LENGTH:  # a subclass may hash as it likes
        return encode(text)
    encoded = memo.get(text)
    if encoded is None:
        encoded = encode(text)
        if len(memo) >= _MEMO_ENTRIES:
            memo.clear()
        memo[text] = encoded
    return encoded


def _led_first_item(text: str) -> str:
    return encode_item(lead_first_item(text))


def _first_tool(text: str) -> str:
    return encode_tool(text, first=True)


def _bullets(kind: BlockKind, items: Iterable[str]) -> str:
    lines: list[str] = []
    for item in items:
        if lines:
            lines.append("- " + _memo(_LED_ITEMS, _led_item, item))
        else:  # its line follows the opening tag: led apart (lead_first_item)
            lines.append("- " + _memo(_FIRST_ITEMS, _led_first_item, item))
    body = "\n".join(lines)
    return f"{kind.opening}\n{body}\n{kind.closing}"


def render_directives(directives: Iterable[str]) -> str:
    """``<llm_directives>`` with one ``- `` item per hint."""
    return _bullets(DIRECTIVES, directives)


def render_rules(rules: Iterable[str]) -> str:
    """``<domain_rules>`` with one ``- `` item per rule."""
    return _bullets(RULES, rules)


def render_suggestions(suggestions: Iterable[Suggestion]) -> str:
    """``<action_suggestions>`` with ``- tool: reason`` items."""
    lines: list[str] = []
    for item in suggestions:
        tool = (
            _memo(_TOOLS, encode_tool, item.tool)
            if lines
            else _memo(_FIRST_TOOLS, _first_tool, item.tool)  # led apart, as a first item
        )
        lines.append(f"- {tool}: {_memo(_REASONS, encode_item, item.reason)}")
    body = "\n".join(lines)
    return f"{SUGGESTIONS.opening}\n{body}\n{SUGGESTIONS.closing}"


def render_error(envelope: ErrorEnvelope) -> str:
    """A ``<tool_error>`` envelope, one element per line, as the reference writes it."""
    attributes = ""
    if envelope.code is not None:
        attributes += f' code="{escape_attr(envelope.code)}"'
    if envelope.severity is not None:
        attributes += f' severity="{escape_attr(envelope.severity)}"'
    lines = [
        f"{TOOL_ERROR.opening}{attributes}>",
        f"<message>{escape_envelope(envelope.message)}</message>",
    ]
    if envelope.recovery:
        lines.append(f"<recovery>{escape_envelope(envelope.recovery)}</recovery>")
    if envelope.available_actions:
        lines.append("<available_actions>")
        lines.extend(
            f"  <action>{escape_envelope(action)}</action>" for action in envelope.available_actions
        )
        lines.append("</available_actions>")
    if envelope.details:
        lines.append("<details>")
        lines.extend(
            f'  <detail key="{escape_attr(key)}">{escape_envelope(value)}</detail>'
            for key, value in envelope.details.pairs
        )
        lines.append("</details>")
    if envelope.retry_after is not None:
        lines.append(f"<retry_after>{escape_envelope(envelope.retry_after)} seconds</retry_after>")
    lines.append(TOOL_ERROR.closing)
    return "\n".join(lines)


def render_rest(
    ui: Iterable[UiBlock],
    raw: Iterable[str],
    directives: Sequence[str],
    rules: Sequence[str],
    suggestions: Sequence[Suggestion],
) -> list[str]:
    """Every block after the data block, in the canonical order (WIRE.md section 1).

    UI blocks, then raw (or embedded) blocks, then directives, rules and
    suggestions, each only when it has items. A raw block is verbatim, but
    for one backslash where it would read back as another block
    (``_read/_raw``).
    """
    raw = raw if isinstance(raw, list | tuple) else list(raw)
    texts = render_blocks(ui, raw, directives, rules, suggestions)
    if not any(text[:1] == "<" for text in raw):
        return texts
    first = len(texts) - len(raw) - bool(directives) - bool(rules) - bool(suggestions)
    end = first + len(raw)
    texts[first:end] = _guard()(texts[:first], raw, texts[end:])
    return texts


_GUARD: list[Callable[[Sequence[str], Sequence[str], Sequence[str]], list[str]]] = []


def _guard() -> Callable[[Sequence[str], Sequence[str], Sequence[str]], list[str]]:
    """``_read._raw.guard_raw``, imported on first use (the reader imports this module)."""
    if not _GUARD:
        from fusion_core._read._raw import guard_raw  # noqa: PLC0415 - see above

        _GUARD.append(guard_raw)
    return _GUARD[0]


def render_blocks(
    ui: Iterable[UiBlock],
    raw: Iterable[str],
    directives: Sequence[str],
    rules: Sequence[str],
    suggestions: Sequence[Suggestion],
) -> list[str]:
    """:func:`render_rest` with every raw block as it is given."""
    texts = [render_ui(block) for block in ui]
    texts.extend(raw)
    if directives:
        texts.append(render_directives(directives))
    if rules:
        texts.append(render_rules(rules))
    if suggestions:
        texts.append(render_suggestions(suggestions))
    return texts
