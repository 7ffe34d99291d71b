"""A server on MCPServer or FastMCP under ``use_fusion``, and the decorator that adds its tools."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastmcp import FastMCP
from mcp.server.mcpserver import MCPServer

from fusion_core import fastmcp as fusion_fastmcp
from fusion_core import mcpserver as fusion_mcpserver

__all__ = ["hooked_server"]


def hooked_server(
    kind: str, name: str, **options: Any
) -> tuple[Any, Callable[[Callable[..., Any]], Any]]:
    """``(server, decorate)`` on ``kind`` (MCPServer or FastMCP), hooked with ``options``."""
    if kind == "MCPServer":
        server: Any = fusion_mcpserver.use_fusion(MCPServer(name), **options)
        return server, server.tool()
    server = fusion_fastmcp.use_fusion(FastMCP(name), **options)
    return server, server.tool
