"""The typed blocks :func:`fusion_core.parse` returns, and the parsed response.

Each content block of a Fusion response reads as one of these frozen values;
:class:`ParsedResponse` holds them in order, with the view they add up to.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Final, TypeAlias, final

from fusion_core._write._numbers import MAX_INT_DIGITS, read_int
from fusion_core._write._ui import UiBlock, UiMeta
from fusion_core._write._view import ErrorEnvelope, ResponseView, Suggestion, ValidationField

__all__ = [
    "Block",
    "DataBlock",
    "DirectivesBlock",
    "EmbedBlock",
    "ParsedResponse",
    "RulesBlock",
    "SuggestionsBlock",
    "ToolErrorBlock",
    "UiBlockText",
    "ValidationErrorBlock",
    "ValidationField",
    "read_priority",
]

_WIDTHS: Final = frozenset({"full", "half", "third"})
_JS_NUMBER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")


def read_priority(text: str | None) -> int | float | None:
    """A ``priority`` attribute as a number; ``None`` if unset or not a finite number."""
    if text is None or not _JS_NUMBER.fullmatch(text):
        return None
    if not text.lstrip("-").isdigit():
        number = float(text)
        return number if math.isfinite(number) else None
    if len(text.lstrip("-")) > MAX_INT_DIGITS:  # the writer's limit (UiMeta refuses more)
        return None
    return read_int(text)  # whatever digit limit this process sets


@final
@dataclass(frozen=True, slots=True)
class DataBlock:
    """The data block: its text, and the value it is read as.

    ``value`` is the JSON value when ``is_json`` (see the module docstring for
    the rule), else the text itself.
    """

    text: str
    value: Any
    is_json: bool


@final
@dataclass(frozen=True, slots=True)
class UiBlockText:
    """A ``<ui_passthrough>`` block: attributes (unescaped, in order) and content.

    ``content`` has its neutralized closing tags restored. :attr:`ui_block`
    is the :class:`UiBlock` the view holds; attribute values the view types
    cannot hold (an unknown width, a priority that is not a finite number,
    unknown attributes) stay here only, and ``check()`` reports them.
    """

    text: str
    attributes: tuple[tuple[str, str], ...]
    content: str

    def attribute(self, name: str) -> str | None:
        """The first value of attribute ``name``, or ``None``."""
        for key, value in self.attributes:
            if key == name:
                return value
        return None

    @property
    def type(self) -> str:
        """The block's ``type`` attribute."""
        return self.attribute("type") or ""

    @property
    def ui_block(self) -> UiBlock:
        """The view's :class:`UiBlock` for this block."""
        width = self.attribute("width")
        meta = UiMeta(
            title=self.attribute("title") or None,
            width=width if width in _WIDTHS else None,  # type: ignore[arg-type]
            priority=read_priority(self.attribute("priority")),
        )
        return UiBlock(self.type, self.content, meta)


@final
@dataclass(frozen=True, slots=True)
class EmbedBlock:
    """A raw block between the UI blocks and the tail, kept verbatim."""

    text: str


@final
@dataclass(frozen=True, slots=True)
class DirectivesBlock:
    """``<llm_directives>``: its decoded items."""

    text: str
    items: tuple[str, ...]


@final
@dataclass(frozen=True, slots=True)
class RulesBlock:
    """``<domain_rules>``: its decoded items."""

    text: str
    items: tuple[str, ...]


@final
@dataclass(frozen=True, slots=True)
class SuggestionsBlock:
    """``<action_suggestions>``: its decoded ``tool: reason`` items."""

    text: str
    items: tuple[Suggestion, ...]


@final
@dataclass(frozen=True, slots=True)
class ToolErrorBlock:
    """A ``<tool_error>`` envelope, as the view's :class:`ErrorEnvelope`.

    ``attributes`` keeps every attribute (``check()`` reports unknown ones).
    """

    text: str
    envelope: ErrorEnvelope
    attributes: tuple[tuple[str, str], ...] = ()


@final
@dataclass(frozen=True, slots=True)
class ValidationErrorBlock:
    """The ``<validation_error action="..">`` envelope of argument validation."""

    text: str
    action: str | None
    fields: tuple[ValidationField, ...]
    recovery: str | None
    attributes: tuple[tuple[str, str], ...] = ()


Block: TypeAlias = (
    DataBlock
    | UiBlockText
    | EmbedBlock
    | DirectivesBlock
    | RulesBlock
    | SuggestionsBlock
    | ToolErrorBlock
    | ValidationErrorBlock
)
"""Any block :func:`parse` returns."""


@final
@dataclass(frozen=True, slots=True)
class ParsedResponse:
    """A response read back from its wire form.

    ``blocks`` holds one typed block per content block, in order;
    ``ui_end``/``tail_start`` are the block indices where the UI run ends and
    the tail begins (the layout rule); ``view`` is what the bytes say.
    """

    blocks: tuple[Block, ...]
    view: ResponseView
    is_error: bool | None
    structured_content: Any
    has_structured_content: bool
    ui_end: int
    tail_start: int

    @property
    def texts(self) -> list[str]:
        """The text of every block, in order."""
        return [block.text for block in self.blocks]
