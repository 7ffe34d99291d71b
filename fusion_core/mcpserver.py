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
pydantic's messages, not the values sent) instead of pydantic's text, and a
name no tool has with its ``UNKNOWN_TOOL`` envelope. A tool
that raises (a crash: not ``ToolError``) is answered with the ``INTERNAL_ERROR``
envelope a ``FusionApp`` writes for a handler, as much of the exception as
``expose_errors`` allows (``"none"`` by default: ``MCPServer`` never shows a
crash's text either), and logged with its traceback.
Everything else (plain values, ``CallToolResult``, a ``ToolError`` the tool
raised on purpose) is answered by ``MCPServer`` as before.

Without it, ``MCPServer`` would send a ``ToolResponse`` as one text block
holding its JSON: a Fusion response reaching its serializer is an error
naming this function (see :func:`use_fusion`).

This module is the only one of fusion_core that imports ``mcp.server.mcpserver``
(what it needs of ``MCPServer``'s private parts is checked against mcp 2.3.0).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, TypeVar

from fusion_core._mcp import _upstream_mcpserver as upstream
from fusion_core._mcp._adapter import Answers, Integration, adopt

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from fusion_core._present._redact import ErrorExposure

__all__ = ["use_fusion"]

_S = TypeVar("_S", bound="MCPServer[Any]")


def use_fusion(server: _S, *, expose_errors: ErrorExposure | None = None) -> _S:
    """Let ``server``'s tools return Fusion responses and answer failures in the format.

    Applies to every tool, registered before or after; calling it again does
    nothing but set ``expose_errors`` when given. Returns ``server``, so it can
    wrap the constructor. ``expose_errors`` (``"message"``, ``"type"`` or
    ``"none"``, as ``FusionApp``'s; docs/errors.md): how much of a crash's
    exception the client sees; by default ``"none"``, as ``MCPServer`` does.
    """
    return adopt(server, _MCPSERVER, expose_errors)


def _install(server: Any, answers: Answers) -> None:
    """``call_tool`` runs the tool unconverted and answers Fusion results itself."""
    from mcp import MCPError  # noqa: PLC0415 - mcp is slow to import
    from mcp.server.mcpserver.exceptions import ToolError  # noqa: PLC0415

    async def call_tool(name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        tool = upstream.tool_named(server, name)
        if tool is None:  # MCPServer would answer "Unknown tool: <name>" as plain text
            return answers.unknown(name)
        if context is None:
            context = upstream.context_for(server)
        record, recording = answers.recording()
        try:
            with recording:
                raw = await upstream.run_unconverted(tool, arguments, context)
                convert = functools.partial(upstream.converted, tool)
                schema = convert if tool.output_schema is not None else None
                return answers.result(raw, convert, schema=schema)
        except ToolError as exc:
            crash = upstream.crash_of(exc)
            if crash is not None:
                return answers.crashed(name, crash, record)
            refused = answers.refused(name, exc, tool.parameters)
            if refused is None:
                raise
            return refused
        except MCPError:
            raise  # a protocol error, as MCPServer answers it
        except Exception as exc:  # noqa: BLE001 - converting the result crashed: as Tool.run's
            # A builder whose build() raises: MCPServer's handler would send str(exc) as is.
            return answers.crashed(name, exc, record)

    upstream.replace_call_tool(server, call_tool)


_MCPSERVER = Integration(
    kind="MCPServer",
    needs="an MCPServer",
    install=_install,
    result_of=lambda result: result,
    exposure_of=lambda _server: "none",
    logs_crashes=False,  # MCPServer's handler logs only what call_tool raises: fusion_core logs it
)
