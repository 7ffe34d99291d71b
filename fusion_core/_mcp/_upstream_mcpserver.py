"""What ``fusion_core.mcpserver`` uses of the ``mcp`` SDK's ``MCPServer`` beyond its public API.

Checked against **mcp 2.3.0** (the version pinned in the ``dev`` extra).

``MCPServer.call_tool`` converts a tool's result before anyone sees it (a
``ToolResponse`` becomes one text block of JSON), and no public hook sits
between the tool and that conversion. So the integration replaces the
server's ``call_tool`` (the low-level handler calls it) and runs the tool
itself through the server's private tool manager, unconverted. Each such
reach is one function here; :func:`shape_problems` says what of it is missing,
and a test fails loudly on any (tests/fusion_core/_mcp/test_upstream.py).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any, Final

__all__ = [
    "CHECKED_AGAINST",
    "context_for",
    "converted",
    "crash_of",
    "replace_call_tool",
    "run_unconverted",
    "shape_problems",
    "tool_named",
]

CHECKED_AGAINST: Final = "mcp 2.3.0"


def tool_named(server: Any, name: str) -> Any | None:
    """The registered tool ``name`` (private: ``MCPServer._tool_manager``), or ``None``."""
    return server._tool_manager.get_tool(name)


def context_for(server: Any) -> Any:
    """The ``Context`` ``MCPServer.call_tool`` makes when it is called without one."""
    from mcp.server.mcpserver import Context  # noqa: PLC0415 - mcp is slow to import

    # Private: the server's subscription bus, which its own call_tool hands on.
    return Context(mcp_server=server, subscriptions=getattr(server, "_subscriptions", None))


async def run_unconverted(tool: Any, arguments: dict[str, Any], context: Any) -> Any:
    """The tool's own return value (``Tool.run(..., convert_result=False)``)."""
    return await tool.run(arguments, context, convert_result=False)


def crash_of(error: BaseException) -> BaseException | None:
    """What a tool raised when ``error`` says it crashed (``UnexpectedToolError``), else ``None``.

    ``Tool.run`` raises ``UnexpectedToolError`` (a ``ToolError``) from any
    exception but ``ToolError``, ``ResourceError`` and ``MCPError``: a crash of
    the tool, of a validator or of a default factory; its ``__cause__`` is
    what was raised.
    """
    from mcp.server.mcpserver.exceptions import UnexpectedToolError  # noqa: PLC0415

    if not isinstance(error, UnexpectedToolError):
        return None
    return error.__cause__ if error.__cause__ is not None else error


def converted(tool: Any, raw: Any) -> Any:
    """``raw`` as ``MCPServer`` would have sent it (``fn_metadata.convert_result``)."""
    return tool.fn_metadata.convert_result(raw)


def replace_call_tool(server: Any, call_tool: Callable[..., Awaitable[Any]]) -> None:
    """Put ``call_tool`` where the low-level handler calls ``MCPServer.call_tool``."""
    server.call_tool = call_tool


def shape_problems() -> list[str]:
    """What this module relies on and the installed ``mcp`` no longer has (``[]``: all there)."""
    from mcp.server.mcpserver import Context, MCPServer, exceptions  # noqa: PLC0415
    from mcp.server.mcpserver.tools import Tool  # noqa: PLC0415
    from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata  # noqa: PLC0415

    problems: list[str] = []
    unexpected = getattr(exceptions, "UnexpectedToolError", None)
    if not (isinstance(unexpected, type) and issubclass(unexpected, exceptions.ToolError)):
        problems.append("mcp.server.mcpserver.exceptions.UnexpectedToolError(ToolError)")
    server = MCPServer("shape")
    if not callable(getattr(getattr(server, "_tool_manager", None), "get_tool", None)):
        problems.append("MCPServer._tool_manager.get_tool")
    if not hasattr(server, "_subscriptions"):
        problems.append("MCPServer._subscriptions")
    if "subscriptions" not in inspect.signature(Context).parameters:
        problems.append("Context(subscriptions=...)")
    if "convert_result" not in inspect.signature(Tool.run).parameters:
        problems.append("Tool.run(..., convert_result=...)")
    if not callable(getattr(FuncMetadata, "convert_result", None)):
        problems.append("FuncMetadata.convert_result")
    if list(inspect.signature(MCPServer.call_tool).parameters) != [
        "self",
        "name",
        "arguments",
        "context",
    ]:
        problems.append("MCPServer.call_tool(name, arguments, context)")
    return problems
