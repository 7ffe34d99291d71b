"""Fusion answers from a standalone ``fastmcp`` server (FastMCP 4.x): :func:`use_fusion`.

::

    from fastmcp import FastMCP
    from fusion_core import Presenter
    from fusion_core.fastmcp import use_fusion

    mcp = use_fusion(FastMCP("helpdesk"))

    @mcp.tool
    def get_ticket(id: int):
        return TICKET.make(TICKETS[id])   # a builder: no .build().to_mcp()

Once :func:`use_fusion` is applied, a tool may return a ``ToolResponse`` or a
builder (``response(...)``, a Presenter's ``make(...)``) and the client gets
its blocks exactly (FastMCP copies no JSON of it into ``structuredContent``),
and arguments its input schema refuses are answered with the
``<validation_error>`` envelope a ``FusionApp`` writes (field names and
pydantic's messages, not the values sent). Both go through FastMCP's public
extension points: a server transform (the tools' results) and a middleware
(argument validation). Everything else is answered by FastMCP as before.

This module is the only one of fusion_core that imports ``fastmcp``
(``pip install 'pytest-mcpfusion[fastmcp]'``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, TypeVar

from pydantic import ValidationError as PydanticValidationError

from fusion_core._mcp._frameworks import fusion_answer, server_kind, validation_answer

if TYPE_CHECKING:
    from fastmcp import FastMCP

__all__ = ["use_fusion"]

_S = TypeVar("_S", bound="FastMCP[Any]")
_MARK: Final = "_fusion_answers"


def use_fusion(server: _S) -> _S:
    """Let ``server``'s tools return Fusion responses and answer bad arguments in the format.

    Applies to every tool, registered before or after; calling it again does
    nothing. Returns ``server``, so it can wrap the constructor.
    """
    from fastmcp.exceptions import ValidationError  # noqa: PLC0415 - with the integration only
    from fastmcp.server.middleware import Middleware  # noqa: PLC0415
    from fastmcp.server.transforms import Transform  # noqa: PLC0415
    from fastmcp.tools.base import ToolResult  # noqa: PLC0415
    from mcp_types import CallToolResult  # noqa: PLC0415

    if server_kind(server) != "FastMCP":  # a runtime check of what typing says
        msg = f"use_fusion() needs a fastmcp.FastMCP, got {type(server).__qualname__}"
        raise TypeError(msg)
    if getattr(server, _MARK, False):
        return server

    def result(answer: Any) -> Any:
        return ToolResult.from_mcp_result(CallToolResult.model_validate(dict(answer)))

    class FusionResults(Transform):
        """Each tool's ``convert_result`` builds Fusion answers first."""

        async def get_tool(self, name: str, call_next: Any, *, version: Any = None) -> Any:
            tool = await call_next(name, version=version)
            if tool is not None and not getattr(tool, _MARK, False):
                convert = tool.convert_result

                def convert_result(raw: Any) -> Any:
                    answer = fusion_answer(raw)
                    return result(answer) if answer is not None else convert(raw)

                object.__setattr__(tool, "convert_result", convert_result)
                object.__setattr__(tool, _MARK, True)
            return tool

    class FusionValidation(Middleware):
        """Arguments the input schema refuses: the ``<validation_error>`` envelope."""

        async def on_call_tool(self, context: Any, call_next: Any) -> Any:
            try:
                return await call_next(context)
            except ValidationError as exc:
                cause = exc.__cause__
                if not isinstance(cause, PydanticValidationError):
                    raise
                return result(validation_answer(context.message.name, cause))

    server.add_transform(FusionResults())
    server.add_middleware(FusionValidation())
    setattr(server, _MARK, True)
    return server
