"""Fusion answers from an ``mcp`` SDK ``MCPServer`` (mcp 2.x): :func:`use_fusion`.

::

    from mcp.server.mcpserver import MCPServer
    from fusion_core import Presenter
    from fusion_core.mcpserver import use_fusion

    mcp = use_fusion(MCPServer("helpdesk"))

    @mcp.tool()
    def get_ticket(id: int):
        return TICKET.make(TICKETS[id])   # a builder: no .build().to_mcp()

Once :func:`use_fusion` is applied, a tool may return a ``ToolResponse``, a
builder (``response(...)``, a Presenter's ``make(...)``) and the client gets its
blocks exactly, and arguments its input schema refuses are answered with the
``<validation_error>`` envelope a ``FusionApp`` writes (field names and
pydantic's messages, not the values sent) instead of pydantic's text.
Everything else (plain values, ``CallToolResult``, a tool's own errors) is
answered by ``MCPServer`` as before.

Without it, ``MCPServer`` would send a ``ToolResponse`` as one text block
holding its JSON: a Fusion response reaching its serializer is an error
naming this function (see :func:`use_fusion`).

This module is the only one of fusion_core that imports ``mcp.server.mcpserver``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, TypeVar

from pydantic import ValidationError

from fusion_core._mcp._frameworks import fusion_answer, server_kind, validation_answer

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

__all__ = ["use_fusion"]

_S = TypeVar("_S", bound="MCPServer[Any]")
_MARK: Final = "_fusion_answers"


def use_fusion(server: _S) -> _S:
    """Let ``server``'s tools return Fusion responses and answer bad arguments in the format.

    Applies to every tool, registered before or after; calling it again does
    nothing. Returns ``server``, so it can wrap the constructor.
    """
    from mcp.server.mcpserver import Context  # noqa: PLC0415 - mcp is slow to import
    from mcp.server.mcpserver.exceptions import ToolError  # noqa: PLC0415
    from mcp_types import CallToolResult  # noqa: PLC0415

    if server_kind(server) != "MCPServer":  # a runtime check of what typing says
        msg = f"use_fusion() needs an MCPServer, got {type(server).__qualname__}"
        raise TypeError(msg)
    if getattr(server, _MARK, False):
        return server
    manager = server._tool_manager  # private: the one place results exist unconverted
    original = server.call_tool

    async def call_tool(
        name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> Any:
        tool = manager.get_tool(name)
        if tool is None:  # the server's own answer to an unknown tool
            return await original(name, arguments, context)
        if context is None:
            context = Context(mcp_server=server)
        try:
            raw = await tool.run(arguments, context, convert_result=False)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                return _result(CallToolResult, validation_answer(name, exc.__cause__))
            raise
        answer = fusion_answer(raw)
        if answer is not None:
            return _result(CallToolResult, answer)
        return tool.fn_metadata.convert_result(raw)

    server.call_tool = call_tool  # type: ignore[method-assign]  # the low-level handler calls it
    setattr(server, _MARK, True)
    return server


def _result(model: Any, answer: Any) -> Any:
    """``answer`` (a ``ToolResponse``) as the SDK's ``CallToolResult``, its blocks as built."""
    return model.model_validate(dict(answer))
