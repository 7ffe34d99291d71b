"""What ``fusion_core.fastmcp`` uses of FastMCP beyond its documented extension points.

Checked against **fastmcp 4.2.3** (the version pinned in the ``dev`` extra).

The integration uses FastMCP's public extension points (a server transform,
a middleware), but FastMCP gives no hook between a tool's return value and
``Tool.convert_result``: the transform replaces that method on each tool it
hands out (tools are frozen pydantic models, so through ``object.__setattr__``).
That reach is one function here; :func:`shape_problems` says what of it is
missing, and a test fails loudly on any (tests/fusion_core/_mcp/test_upstream.py).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Final

__all__ = ["CHECKED_AGAINST", "replace_convert_result", "shape_problems"]

CHECKED_AGAINST: Final = "fastmcp 4.2.3"


def replace_convert_result(tool: Any, convert_result: Callable[[Any], Any]) -> None:
    """Make ``tool.convert_result`` (FastMCP's result conversion) ``convert_result``."""
    object.__setattr__(tool, "convert_result", convert_result)


def shape_problems() -> list[str]:
    """What the integration relies on and FastMCP no longer has (``[]``: all there)."""
    from fastmcp.server.middleware import Middleware  # noqa: PLC0415
    from fastmcp.server.transforms import Transform  # noqa: PLC0415
    from fastmcp.tools.base import Tool, ToolResult  # noqa: PLC0415

    problems: list[str] = []
    if list(inspect.signature(Tool.convert_result).parameters) != ["self", "raw_value"]:
        problems.append("Tool.convert_result(raw_value)")
    if not callable(getattr(ToolResult, "from_mcp_result", None)):
        problems.append("ToolResult.from_mcp_result")
    if "version" not in inspect.signature(Transform.get_tool).parameters:
        problems.append("Transform.get_tool(name, call_next, *, version)")
    if not callable(getattr(Middleware, "on_call_tool", None)):
        problems.append("Middleware.on_call_tool")
    return problems
