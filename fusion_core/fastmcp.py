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
arguments its input schema refuses are answered with the
``<validation_error>`` envelope a ``FusionApp`` writes (field names and
pydantic's messages, not the values sent), a name no tool has (or one this
server hides from the caller: disabled, filtered out by tags) with its
``UNKNOWN_TOOL`` envelope, and a tool that raises (a crash:
not a ``ToolError`` of its own) with the ``INTERNAL_ERROR`` envelope a
``FusionApp`` writes for a handler: as much of the exception as
``expose_errors`` allows (by default what FastMCP shows: its message), every
value a Presenter hid during the call replaced by ``***`` (FastMCP alone sends
the message as raised), and nothing of it where FastMCP masked it
(``mask_error_details`` on this server or on a mounted one). These go
through FastMCP's public extension points: a server transform (the tools'
results) and a middleware (argument validation, crashes). Everything else is
answered by FastMCP as before.

This module is the only one of fusion_core that imports ``fastmcp``
(``pip install 'pytest-mcpfusion[fastmcp]'``); its one reach past FastMCP's
public API is checked against fastmcp 4.2.3.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, TypeVar

from fusion_core._mcp import _upstream_fastmcp as upstream
from fusion_core._mcp._adapter import MARK, Answers, Integration, adopt

if TYPE_CHECKING:
    from fastmcp import FastMCP

    from fusion_core._present._redact import ErrorExposure

__all__ = ["use_fusion"]

_ANSWERING: ContextVar[bool] = ContextVar("fusion_core_fastmcp_answering", default=False)
"""Set while a hooked server's middleware runs a call: a server mounted on it, hooked or
not, lets its refusals and crashes through, to be answered under the name the client
called and with the outer server's ``expose_errors`` and masking."""
_MOUNTED_MARK = "_fusion_mounted_results"
"""Set on a server mounted on a hooked one once it converts results too."""

_S = TypeVar("_S", bound="FastMCP[Any]")


def use_fusion(server: _S, *, expose_errors: ErrorExposure | None = None) -> _S:
    """Let ``server``'s tools return Fusion responses and answer failures in the format.

    Applies to every tool, registered before or after, and to the tools of
    servers mounted on ``server`` and transformed tools, whose values another
    server or tool converts (docs/fastmcp.md); calling it again does
    nothing but set ``expose_errors`` when given. Returns ``server``, so it can
    wrap the constructor. ``expose_errors`` (``"message"``, ``"type"`` or
    ``"none"``, as ``FusionApp``'s; docs/errors.md): how much of a crash's
    exception the client sees; by default ``"none"`` when the server masks
    error details (``mask_error_details``), else ``"message"``. A crash FastMCP
    masked (this server's or a mounted server's setting) shows nothing of its
    exception, whatever ``expose_errors`` says.
    """
    return adopt(server, _FASTMCP, expose_errors)


def _install(server: Any, answers: Answers) -> None:
    """A transform (each tool's results) and a middleware (unknown tools, arguments, crashes)."""
    from fastmcp.exceptions import (  # noqa: PLC0415 - with the integration only
        DisabledError,
        NotFoundError,
        ValidationError,
    )
    from fastmcp.server.middleware import Middleware  # noqa: PLC0415

    schemas: dict[str, Any] = {}  # each tool's input schema, by the name it is called by

    class FusionValidation(Middleware):
        """Unknown tools, refused arguments, crashes: their ``FusionApp`` envelopes.

        The tool runs inside a record of what its Presenters do (a sync tool
        in FastMCP's worker thread, which gets a copy of this context).
        """

        async def on_call_tool(self, context: Any, call_next: Any) -> Any:
            if _ANSWERING.get():  # mounted on a hooked server, which answers (its name, its rules)
                return await call_next(context)
            record, recording = answers.recording()
            answering = _ANSWERING.set(True)
            try:
                with recording:
                    return await call_next(context)
            except (NotFoundError, DisabledError):
                # FastMCP's word for a name it has no tool by, or hides from this caller
                # (disabled, filtered by tags, unauthorized); it answers "Unknown tool: 'name'".
                # What a tool's body raises reaches here as a crash's ToolError, never as these.
                return answers.unknown(context.message.name)
            except ValidationError as exc:
                name = context.message.name
                refused = answers.refused(name, exc, schemas.get(name))
                if refused is None:
                    raise
                return refused
            except Exception as exc:
                crash = upstream.crash_of(exc)
                if crash is None:
                    raise  # FastMCP's own answers (a ToolError raised on purpose...)
                raised, masked = crash
                # What FastMCP masked (this server's or a mounted one's setting) stays hidden.
                hidden: ErrorExposure | None = "none" if masked else None
                return answers.crashed(context.message.name, raised, record, hidden)
            finally:
                _ANSWERING.reset(answering)

    class FusionUnknown(Middleware):
        """A name hidden by a middleware that runs before ``FusionValidation``: unknown too.

        Outermost, so a middleware the user added before ``use_fusion`` that
        hides a tool (raising ``NotFoundError``, as FastMCP's own hiding
        does) is answered as FastMCP's unknown tools are: the envelope.
        """

        async def on_call_tool(self, context: Any, call_next: Any) -> Any:
            if _ANSWERING.get():  # mounted on a hooked server, which answers
                return await call_next(context)
            try:
                return await call_next(context)
            except (NotFoundError, DisabledError):
                return answers.unknown(context.message.name)

    server.add_transform(_results(answers, schemas))
    server.add_middleware(FusionValidation())
    upstream.add_outermost_middleware(server, FusionUnknown())


def _results(answers: Answers, schemas: dict[str, Any]) -> Any:
    """The transform that makes each tool's ``convert_result`` build Fusion answers first.

    A tool may not convert its own value: a transformed tool (``Tool.from_tool``)
    forwards to its parent tool, which converts it, and a mounted server's tool
    runs on that server, which converts it with its own transforms. Both are
    reached: the parent tools are hooked too, and a mounted server gets this
    transform (its results only: its validation and crashes reach this
    server's middleware, as FastMCP passes them on).
    """
    from fastmcp.server.transforms import Transform  # noqa: PLC0415 - with the integration only

    class FusionResults(Transform):
        """Each tool's ``convert_result`` builds Fusion answers first."""

        async def get_tool(self, name: str, call_next: Any, *, version: Any = None) -> Any:
            tool = await call_next(name, version=version)
            if tool is None:
                return None
            schemas[name] = tool.parameters  # what a refusal's paths are read against
            for each in upstream.converted_by(tool):
                _hook(each, answers)
            mounted = upstream.mounted_server(tool)
            if (
                mounted is not None
                and not hasattr(mounted, MARK)
                and not hasattr(mounted, _MOUNTED_MARK)
            ):
                object.__setattr__(mounted, _MOUNTED_MARK, True)
                mounted.add_transform(_results(answers, {}))
            return tool

    return FusionResults()


def _hook(tool: Any, answers: Answers) -> None:
    """``tool.convert_result`` answers a Fusion response with its blocks (once per tool)."""
    if getattr(tool, MARK, False):
        return
    convert = tool.convert_result
    schema = upstream.schema_conversion(tool, convert)
    upstream.replace_convert_result(tool, lambda raw: answers.result(raw, convert, schema=schema))
    object.__setattr__(tool, MARK, True)


def _result_of(result: Any) -> Any:
    from fastmcp.tools.base import ToolResult  # noqa: PLC0415 - with the integration only

    return ToolResult.from_mcp_result(result)


_FASTMCP = Integration(
    kind="FastMCP",
    needs="a fastmcp.FastMCP",
    install=_install,
    result_of=_result_of,
    exposure_of=lambda server: "none" if upstream.masks_error_details(server) else "message",
    logs_crashes=True,  # FastMCP.call_tool logs a crash with its traceback before raising
)
