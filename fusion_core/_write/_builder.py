"""ResponseBuilder: collect blocks in any order, emit them in the canonical one.

``build()`` always emits data, UI blocks, raw (embedded) blocks, directives,
rules, suggestions — whatever order the methods were called in.

A Presenter *seals* the builders it makes (:func:`seal`): their data block is
written when the data is masked, and ``data`` returns a copy, so nothing done
to the data afterwards reaches the wire (WIRE.md 12.4).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final, final

from fusion_core._write._blocks import EMPTY_DATA_TEXT, render_rest, write_data
from fusion_core._write._response import ToolResponse, with_json_data
from fusion_core._write._text import require_unicode
from fusion_core._write._ui import UiBlock, UiMeta
from fusion_core._write._view import ResponseView, Suggestion

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler
    from pydantic_core import core_schema

__all__ = ["ResponseBuilder", "after_data", "response", "seal", "sealed"]

SuggestionLike = Suggestion | Mapping[str, Any] | tuple[str, str]


@final
class ResponseBuilder:
    """A response under construction. Methods return the builder, for chaining."""

    __slots__ = (
        "_data",
        "_directives",
        "_orjson",
        "_raw",
        "_rules",
        "_sealed",
        "_suggestions",
        "_ui",
    )

    def __init__(self, data: Any) -> None:
        self._data = data
        self._sealed: str | None = None  # the data block, fixed by seal()
        self._orjson = False  # whether orjson wrote the sealed block (write_json)
        self._ui: list[UiBlock] = []
        self._raw: list[str] = []
        self._directives: list[str] = []
        self._rules: list[str] = []
        self._suggestions: list[Suggestion] = []

    @property
    def data(self) -> Any:
        """The payload this builder was created with (a copy when a Presenter made it)."""
        return copy.deepcopy(self._data) if self._sealed is not None else self._data

    def ui_block(
        self,
        block: UiBlock | Mapping[str, Any] | str,
        content: str | None = None,
        meta: UiMeta | Mapping[str, Any] | None = None,
    ) -> ResponseBuilder:
        """Add a UI block: a ``UiBlock``, or a type and its content (and meta).

        A mapping ``{"type": ..., "content": ..., "meta"?: ...}`` is a block too:
        the reference's UiBlock is such a plain object (a Presenter's ``ui``
        callback may return one).
        """
        if isinstance(block, Mapping):
            block = _block_of(block)
        if isinstance(block, UiBlock):
            if content is not None or meta is not None:
                msg = "ui_block(UiBlock) takes no content or meta: the block has its own"
                raise TypeError(msg)
            self._ui.append(block)
        else:
            if content is None:
                msg = "ui_block(type, content): content is missing"
                raise TypeError(msg)
            self._ui.append(UiBlock(block, content, UiMeta.of(meta)))
        return self

    def ui_blocks(self, blocks: Iterable[UiBlock | Mapping[str, Any]]) -> ResponseBuilder:
        """Add several UI blocks, in order."""
        for block in blocks:
            self.ui_block(block)
        return self

    def raw_block(self, text: str) -> ResponseBuilder:
        """Add a block verbatim (child Presenter blocks), after the UI blocks."""
        _require_str(text, "raw_block")
        self._raw.append(require_unicode(text, "the raw block"))
        return self

    def llm_hint(self, text: str) -> ResponseBuilder:
        """Add one item to ``<llm_directives>``."""
        _require_str(text, "llm_hint")
        self._directives.append(text)
        return self

    def system_rules(self, rules: Iterable[str]) -> ResponseBuilder:
        """Add items to ``<domain_rules>``."""
        if isinstance(rules, str):
            msg = "system_rules() takes a list of rules, not one str"
            raise TypeError(msg)
        for rule in rules:
            _require_str(rule, "system_rules")
            self._rules.append(rule)
        return self

    def system_hint(self, suggestions: Iterable[SuggestionLike]) -> ResponseBuilder:
        """Add items to ``<action_suggestions>``."""
        self._suggestions.extend(Suggestion.of(item) for item in suggestions)
        return self

    def view(self) -> ResponseView:
        """The structured view ``build()`` will attach."""
        data = self._data
        if data == "" and isinstance(data, str):
            data = EMPTY_DATA_TEXT
        return ResponseView(
            data=data,
            ui_blocks=tuple(self._ui),
            embeds=tuple(self._raw),
            directives=tuple(self._directives),
            rules=tuple(self._rules),
            suggestions=tuple(self._suggestions),
        )

    def texts(self) -> list[str]:
        """The text of every block, in the canonical order."""
        return [self._data_block()[0], *after_data(self)]

    def build(self) -> ToolResponse:
        """The finished response: blocks in canonical order, view attached."""
        data, orjson_wrote = self._data_block()
        response = ToolResponse([data, *after_data(self)], view=self.view())
        return with_json_data(response, data) if orjson_wrote else response

    def _data_block(self) -> tuple[str, bool]:
        """The data block (sealed, or written now) and whether orjson wrote it."""
        if self._sealed is not None:
            return self._sealed, self._orjson
        return write_data(self._data)

    @classmethod
    def __get_pydantic_core_schema__(
        cls, _source: Any, _handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        """Pydantic accepts builders and serializes them as their built wire dict.

        So a framework deriving its tools' return types from ``-> ResponseBuilder``
        (``MCPServer`` wraps a union in a model) registers the tool.
        """
        from pydantic_core import core_schema  # noqa: PLC0415 - only pydantic asks for it

        return core_schema.is_instance_schema(
            cls,
            serialization=core_schema.plain_serializer_function_ser_schema(
                lambda builder: dict(builder.build()), when_used="always"
            ),
        )

    __get_pydantic_json_schema__ = ToolResponse.__get_pydantic_json_schema__

    def __repr__(self) -> str:
        return (
            f"ResponseBuilder(data={self._data!r:.60}, ui={len(self._ui)}, raw={len(self._raw)}, "
            f"directives={len(self._directives)}, rules={len(self._rules)}, "
            f"suggestions={len(self._suggestions)})"
        )


def seal(builder: ResponseBuilder, written: tuple[str, bool] | None = None) -> str:
    """Write the data block now; later changes to the data never reach it.

    ``written`` is the data block already written by the caller (exactly what
    ``render_data`` gives for the data, by a faster route it can vouch for),
    and whether orjson wrote it, as ``write_data`` says.
    """
    builder._sealed, builder._orjson = write_data(builder._data) if written is None else written
    return builder._sealed


def after_data(builder: ResponseBuilder) -> list[str]:
    """The text of every block but the data block, in the canonical order.

    What an embedding Presenter adds of a child's response: the child's data
    is already in the parent's data block, so it is never written twice.
    """
    return render_rest(
        builder._ui, builder._raw, builder._directives, builder._rules, builder._suggestions
    )


def sealed(builder: ResponseBuilder) -> tuple[Any, str] | None:
    """``(data, data block)`` of a sealed builder, else ``None``."""
    return None if builder._sealed is None else (builder._data, builder._sealed)


def _require_str(value: object, method: str) -> None:
    if not isinstance(value, str):
        msg = f"{method}() takes str, got {type(value).__qualname__}: {value!r:.80}"
        raise TypeError(msg)


@final
class _ResponseFactory:
    """``response(data)`` and its shortcuts ``response.ok`` / ``response.with_rules``."""

    __slots__ = ()

    def __call__(self, data: Any) -> ResponseBuilder:
        """Start a response whose data block is ``data``."""
        return ResponseBuilder(data)

    def ok(self, data: Any) -> ToolResponse:
        """A response with only a data block."""
        return ResponseBuilder(data).build()

    def with_rules(self, data: Any, rules: Iterable[str]) -> ToolResponse:
        """A response with a data block and ``<domain_rules>``."""
        return ResponseBuilder(data).system_rules(rules).build()

    def __repr__(self) -> str:
        return "fusion_core.response"


response: _ResponseFactory = _ResponseFactory()
"""Start a response: ``response(data)`` is a :class:`ResponseBuilder` whose data block is ``data``.

``response.ok(data)`` is a built response with only the data block, and
``response.with_rules(data, rules)`` one with ``<domain_rules>`` too.
"""


_BLOCK_KEYS: Final = frozenset({"type", "content", "meta"})


def _block_of(mapping: Mapping[str, Any]) -> UiBlock:
    """The ``UiBlock`` a ``{"type", "content", "meta"?}`` mapping describes (else a TypeError)."""
    keys = set(mapping)
    if not {"type", "content"} <= keys or not keys <= _BLOCK_KEYS:
        missing = sorted({"type", "content"} - keys)
        unknown = sorted(keys - _BLOCK_KEYS, key=repr)
        said = "; ".join(
            part
            for part in (
                f"missing {', '.join(missing)}" if missing else "",
                f"unknown keys {', '.join(map(repr, unknown))}" if unknown else "",
            )
            if part
        )
        msg = f'a UI block mapping holds "type", "content" and optionally "meta" ({said})'
        raise TypeError(msg)
    return UiBlock(mapping["type"], mapping["content"], UiMeta.of(mapping.get("meta")))
