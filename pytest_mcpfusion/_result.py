"""FusionResult: what a tool call answered, as blocks, values and bytes.

The same object comes out of every transport: in process it reads the
response's hidden view, over stdio or HTTP it reads the view parsed from the
bytes — and the two are equal for every response fusion_core builds. A
transport may leave the view to be read from the bytes when first needed (the
in-memory client of a framework's server does): a test that checks only the
wire, ``is_error`` or a snapshot then never pays for reading it.

An error answered without an envelope (``isError`` with plain text: a server
not under ``use_fusion``, an uncaught exception) has neither data nor an
envelope: ``data``, ``error`` and ``validation`` raise ``WireFormatError``
saying so (and, when the server lists no tool by the name called, which tools
it lists) rather than give the text as data or ``None`` as the envelope. The
view itself (``view``, ``parsed``) reads such an answer as ``parse()`` does,
its text as data, for the checks and the report.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, final

from fusion_core._errors import WireFormatError
from fusion_core._snapshot._inline import InlineWire, inline_of
from fusion_core._write._view import ErrorEnvelope, ResponseView, Suggestion, ValidationFailure

if TYPE_CHECKING:
    from mcp.types import CallToolResult

    from fusion_core import ParsedResponse, UiBlock

__all__ = ["FusionResult"]

_QUOTED: Final = 160
"""Characters of a bare error's text its message quotes."""
_LISTED: Final = 20
"""Tool names a bare error's message lists."""
_NAME: Final = 80
"""Characters of a tool name a bare error's message quotes."""


def _quoted(name: str) -> str:
    """A tool name as the message quotes it: its repr, terminal-safe, cut to :data:`_NAME`."""
    from fusion_core._terminal import terminal_safe  # noqa: PLC0415 - only on a bare error

    text = repr(name)
    return terminal_safe(text if len(text) <= _NAME else f"{text[: _NAME - 1]}…")


@final
class FusionResult:
    """One tool call's answer. Made by the ``fusion_call`` fixture, not by hand.

    Attributes read the structured view (``data``, ``system_rules``,
    ``ui_blocks``, ``directives``, ``suggestions``, ``embeds``, ``error``) or
    the wire itself (``content``, ``wire``, ``raw``, ``is_error``).
    """

    __slots__ = ("_parsed", "_tools", "_view", "_wire", "arguments", "tool")

    def __init__(
        self,
        wire: Mapping[str, Any],
        view: ResponseView | None,
        *,
        tool: str,
        arguments: Mapping[str, Any],
        tools: Callable[[], Sequence[str]] | None = None,
    ) -> None:
        self._wire = dict(wire)
        self._view = view
        self._parsed: ParsedResponse | WireFormatError | None = None
        self._tools = tools
        """The names the server lists (``tools/list``), asked only to explain a bare error."""
        self.tool = tool
        self.arguments = dict(arguments)

    @property
    def view(self) -> ResponseView:
        """The structured view of the response, as ``parse()`` reads it.

        Read from the wire on first use when the transport gave none; bytes
        that are not a Fusion response raise ``WireFormatError`` here, naming
        the block, as ``parse()`` does. An error without an envelope reads as
        ``parse()`` reads it (its text as data); :attr:`data`, :attr:`error`
        and :attr:`validation` refuse it instead.
        """
        view = self._view
        if view is None:
            view = self._view = self.parsed.view
        return view

    @property
    def parsed(self) -> ParsedResponse:
        """The response read back from its bytes (``fusion_core.parse``), once.

        Typed blocks in order, with the layout's indices and the view the
        bytes say: what ``check()`` and the wire snapshot read. Bytes that are
        not a Fusion response raise ``WireFormatError``, naming the block (the
        same error each time: they are read once either way).
        """
        parsed = self._parsed
        if parsed is None:
            from fusion_core._read._parse import parse  # noqa: PLC0415 - only when needed

            try:
                parsed = self._parsed = parse(self._wire)
            except WireFormatError as exc:  # read once: the next reader gets the same error
                self._parsed = exc
                raise
        if isinstance(parsed, WireFormatError):
            raise parsed.with_traceback(None)
        return parsed

    @property
    def data(self) -> Any:
        """The data block's value (``None`` for an error envelope).

        An error without an envelope raises ``WireFormatError`` (module docstring).
        """
        return self._answer().data

    @property
    def system_rules(self) -> tuple[str, ...]:
        """The items of ``<domain_rules>``."""
        return self.view.rules

    @property
    def ui_blocks(self) -> tuple[UiBlock, ...]:
        """The ``<ui_passthrough>`` blocks, as ``UiBlock`` values."""
        return self.view.ui_blocks

    @property
    def directives(self) -> tuple[str, ...]:
        """The items of ``<llm_directives>``."""
        return self.view.directives

    @property
    def suggestions(self) -> tuple[Suggestion, ...]:
        """The items of ``<action_suggestions>``."""
        return self.view.suggestions

    @property
    def embeds(self) -> tuple[str, ...]:
        """Embedded child blocks, verbatim."""
        return self.view.embeds

    @property
    def error(self) -> ErrorEnvelope | None:
        """The parsed ``<tool_error>`` envelope: code, message, recovery, ...

        ``error.details`` is an :class:`~fusion_core.ErrorDetails` (a read-only
        mapping, equal to a ``dict`` with the same items). An error without an
        envelope raises ``WireFormatError`` (module docstring).
        """
        return self._answer().error

    @property
    def validation(self) -> ValidationFailure | None:
        """The parsed ``<validation_error>`` envelope: action and ``ValidationField`` objects.

        An error without an envelope raises ``WireFormatError`` (module docstring).
        """
        return self._answer().validation

    def _answer(self) -> ResponseView:
        """The view, for the accessors that keep data and errors apart: a bare error has neither."""
        view = self.view
        if view.error is None and view.validation is None and self.is_error:
            raise WireFormatError(self._bare_error(), block=0 if self.content else None)
        return view

    def _bare_error(self) -> str:
        """What an error without an envelope is, and where its text is."""
        from fusion_core._terminal import terminal_safe  # noqa: PLC0415 - only on a bare error

        texts = self.content
        line = texts[0].strip().partition("\n")[0] if texts else ""
        if len(line) > _QUOTED:
            line = f"{line[: _QUOTED - 1]}…"
        said = f"plain text, {terminal_safe(repr(line))}" if texts else "no content"
        message = (
            f"the call of {_quoted(self.tool)} was answered with an error "
            f"without an envelope (isError is true; {said}), so it has no .data, .error or "
            ".validation: read its text in .content"
        )
        names = self._listed_names()
        if names is not None and self.tool not in names:
            shown = ", ".join(_quoted(name) for name in sorted(names)[:_LISTED])
            more = f" and {len(names) - _LISTED} more" if len(names) > _LISTED else ""
            listed = f"tools/list names {shown}{more}" if names else "tools/list names none"
            return f"{message}. The server has no tool {_quoted(self.tool)}: {listed}"
        return (
            f"{message}. A Fusion server answers every error with a <tool_error> or "
            "<validation_error> envelope (on MCPServer or FastMCP: use_fusion(server), and "
            "return tool_error(...) rather than raise ToolError)"
        )

    def _listed_names(self) -> Sequence[str] | None:
        """The names ``tools/list`` gives, or ``None`` when they cannot be had."""
        if self._tools is None:
            return None
        try:
            return list(self._tools())
        except Exception:  # noqa: BLE001 - an explanation, never a second failure
            return None

    @property
    def is_error(self) -> bool:
        """``isError`` as MCP reads it (absent means ``False``)."""
        return bool(self._wire.get("isError", False))

    @property
    def structured_content(self) -> Any:
        """``structuredContent``, or ``None`` when the response has none."""
        return self._wire.get("structuredContent")

    @property
    def content(self) -> list[str]:
        """The text of every content block, in order."""
        return [block.get("text", "") for block in self._wire.get("content", [])]

    @property
    def wire(self) -> str:
        """The exact JSON text of the MCP result, as it travels in JSON-RPC."""
        return json.dumps(self._wire, ensure_ascii=False, separators=(",", ":"))

    @property
    def wire_dict(self) -> dict[str, Any]:
        """The MCP result as a dict (``content``, ``isError``, ``structuredContent``)."""
        return dict(self._wire)

    @property
    def inline(self) -> InlineWire:
        """The response as ``(kind, text)`` pairs, for ``assert result.inline == snapshot()``.

        A plain ``list`` (with ``("isError", ...)`` and ``("structuredContent", ...)``
        first when present) that inline-snapshot stores in the test's source; it
        holds the exact text of every block (``docs/plugin.md#inline-snapshots``).
        """
        return inline_of(self._wire)

    @property
    def raw(self) -> CallToolResult:
        """The ``mcp`` SDK's ``CallToolResult`` with exactly these fields."""
        from mcp.types import CallToolResult  # noqa: PLC0415 - mcp costs ~1 s to import

        return CallToolResult.model_validate(self._wire)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FusionResult):
            return self._wire == other._wire
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        flag = ", is_error=True" if self.is_error else ""
        return f"<FusionResult {self.tool} blocks={len(self.content)}{flag}>"
