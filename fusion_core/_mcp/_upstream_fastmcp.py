"""What ``fusion_core.fastmcp`` uses of FastMCP beyond its documented extension points.

Checked against **fastmcp 4.2.3** (the version pinned in the ``dev`` extra).

The integration uses FastMCP's public extension points (a server transform,
a middleware), but FastMCP gives no hook between a tool's return value and
``Tool.convert_result``: the transform replaces that method on each tool it
hands out (tools are frozen pydantic models, so through ``object.__setattr__``).
That reach is one function here; :func:`shape_problems` says what of it is
missing, and a test fails loudly on any (tests/fusion_core/_mcp/test_upstream.py).

A tool's value is not always converted by the tool the transform hands out:
a mounted server's tool (``FastMCPProviderTool``) runs on the mounted server,
whose private ``_server`` it keeps (:func:`mounted_server`: that server gets
the transform too), and a transformed tool forwards to its ``parent_tool``
(:func:`converted_by`: the whole chain is hooked).

A tool that crashed reaches the middleware as the ``ToolError`` FastMCP
made of it (``Error calling tool 'name'``, then ``: message`` unless the server
masks error details), raised from what the tool raised (a ``ValidationError``
of the tool's body through FastMCP's private ``_ToolBodyError``, whose text
quotes the input): :func:`crash_of` reads that, and :func:`masks_error_details`
the server's private setting.

A client in this process reaches a FastMCP server through the ``mcp`` SDK's
in-memory client on the server's low-level SDK ``Server`` (FastMCP's private
``_mcp_server``, the very attribute ``fastmcp.Client``'s in-memory transport
drives): :func:`lowlevel_server`. That ``Server``'s lifespan is FastMCP's own
(entered as ``fastmcp.Client`` enters it) and every request runs FastMCP's
whole dispatch; what is left out is ``fastmcp.Client``'s JSON-RPC over memory
streams (about a third of an in-memory call), not anything of the server's.

The pytest plugin also names one of FastMCP's log records:
:func:`refused_arguments_unlogged` drops its warning for a call whose
arguments it refused, while the contract tests' own calls run (the gate
sends such calls on purpose; FastMCP's rich handler spent ~1.5 ms rendering
each). Should FastMCP rename the logger or the message, the warnings come
back, nothing breaks.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import logging
from collections.abc import Callable, Iterator
from typing import Any, Final

__all__ = [
    "CHECKED_AGAINST",
    "REFUSED_ARGUMENTS_LOGGER",
    "converted_by",
    "crash_of",
    "lowlevel_server",
    "masks_error_details",
    "mounted_server",
    "refused_arguments_unlogged",
    "replace_convert_result",
    "schema_conversion",
    "shape_problems",
]

CHECKED_AGAINST: Final = "fastmcp 4.2.3"
REFUSED_ARGUMENTS_LOGGER: Final = "fastmcp.server.server"
"""The logger of ``FastMCP.call_tool``'s "Invalid arguments for tool" warning."""
_REFUSED_ARGUMENTS: Final = "Invalid arguments for tool"
_CHAIN_MAX: Final = 64  # transformed tools followed to the one they forward to
_CRASHED: Final = "Error calling tool "
"""How ``FastMCP.call_tool`` starts the ``ToolError`` it raises from a tool's crash."""


def _not_refused_arguments(record: logging.LogRecord) -> bool:
    return not (isinstance(record.msg, str) and record.msg.startswith(_REFUSED_ARGUMENTS))


@contextlib.contextmanager
def refused_arguments_unlogged() -> Iterator[None]:
    """FastMCP's warning for arguments it refused is dropped (only it) while the block runs.

    A filter on that logger, removed on the way out: every other record of
    FastMCP's, and that warning outside the block, is logged as before.
    """
    logger = logging.getLogger(REFUSED_ARGUMENTS_LOGGER)
    logger.addFilter(_not_refused_arguments)
    try:
        yield
    finally:
        logger.removeFilter(_not_refused_arguments)


def crash_of(error: BaseException) -> tuple[BaseException, bool] | None:
    """``(what the tool raised, masked)`` when ``error`` is how FastMCP passes on a crash.

    FastMCP raises a plain ``ToolError`` whose text starts ``Error calling
    tool`` from what the tool raised (not one of FastMCP's own errors), ending
    with ``: `` and its message unless the server that ran the tool masks error
    details: ``masked`` is read from that text, since that server may be a
    mounted one with its own ``mask_error_details``. When the text cannot be
    written (the tool's exception has a ``__str__`` that raises), FastMCP's own
    f-string raises instead, while it handles the crash: an exception that is
    none of FastMCP's, the SDK's or its lookups' (``NotFoundError``,
    ``DisabledError``), raised in the handling of another (``masked``: nothing
    of it could be shown). A ``ToolError`` the tool raised on purpose, FastMCP's
    texts for an upstream's 429 or time-out, and everything else, are not
    crashes (FastMCP answers them as before): ``None``.
    """
    from fastmcp.exceptions import (  # noqa: PLC0415
        DisabledError,
        FastMCPError,
        NotFoundError,
        ToolError,
    )
    from mcp import MCPError  # noqa: PLC0415

    if type(error) is ToolError:
        cause = error.__cause__
        message = error.args[0] if error.args else None
        if cause is None or isinstance(cause, FastMCPError) or not isinstance(message, str):
            return None
        if not message.startswith(_CRASHED):
            return None
        try:
            masked = not message.endswith(f": {cause}")
        except Exception:  # noqa: BLE001 - a __str__ that raises now: nothing of it is shown
            masked = True
        if type(cause) is _body_error() and cause.__cause__ is not None:
            cause = cause.__cause__  # the tool's own ValidationError, not its str() (input values)
        return cause, masked
    own = (FastMCPError, MCPError, NotFoundError, DisabledError)
    if isinstance(error, own) or not isinstance(error, Exception) or error.__context__ is None:
        return None
    return error, True


def _body_error() -> type | None:
    """FastMCP's wrapper of a ``ValidationError`` a tool's body raised (private), if any.

    ``_ToolBodyError(str(e)) from e`` tells it from a refusal of the
    arguments; its text is pydantic's ``str()``, which quotes the input: the
    crash answer reads the ``ValidationError`` itself.
    """
    from fastmcp.tools import function_tool  # noqa: PLC0415

    found = getattr(function_tool, "_ToolBodyError", None)
    return found if isinstance(found, type) else None


def masks_error_details(server: Any) -> bool:
    """Whether ``server`` hides a crash's text (private: ``FastMCP._mask_error_details``)."""
    return bool(getattr(server, "_mask_error_details", False))


def schema_conversion(
    tool: Any, convert_result: Callable[[Any], Any]
) -> Callable[[Any], Any] | None:
    """How FastMCP writes a value for ``tool``'s ``outputSchema``; ``None`` when it has none.

    ``convert_result`` serializes a value as the tool's return type: given the
    Presenter's JSON data (a dict) for ``-> Ticket``, pydantic warns on every
    call that a dict is not a ``Ticket``. The data is validated as the return
    type first (by alias or by name, as ``MCPServer`` does), which is also
    where data that does not fit the schema is refused.
    """
    if tool.output_schema is None:
        return None
    returns: Any = getattr(tool, "return_type", None)

    @functools.cache
    def adapter() -> Any:  # built on the first Fusion answer that needs it
        from pydantic import TypeAdapter  # noqa: PLC0415

        return TypeAdapter(returns)

    def convert(data: Any) -> Any:
        if returns is not None:
            data = adapter().validate_python(data, by_alias=True, by_name=True)
        return convert_result(data)

    return convert


def replace_convert_result(tool: Any, convert_result: Callable[[Any], Any]) -> None:
    """Make ``tool.convert_result`` (FastMCP's result conversion) ``convert_result``."""
    object.__setattr__(tool, "convert_result", convert_result)


def converted_by(tool: Any) -> list[Any]:
    """``tool`` and every tool whose ``convert_result`` runs when it runs, outermost first.

    A transformed tool (``Tool.from_tool``, a server's tool transforms)
    forwards to its ``parent_tool``, whose ``run`` converts the tool body's
    value with its own ``convert_result``: the whole chain (bounded).
    """
    from fastmcp.tools.tool_transform import TransformedTool  # noqa: PLC0415

    chain = [tool]
    while isinstance(chain[-1], TransformedTool) and len(chain) < _CHAIN_MAX:
        parent = getattr(chain[-1], "parent_tool", None)
        if parent is None or any(parent is seen for seen in chain):
            break
        chain.append(parent)
    return chain


def mounted_server(tool: Any) -> Any | None:
    """The FastMCP server a mounted tool runs on (it calls that server's ``call_tool``), if any.

    ``FastMCP.mount(child)`` hands out each of the child's tools as a
    ``FastMCPProviderTool`` that keeps the child in the private ``_server``:
    the child runs the tool and converts its value, with the child's own
    transforms.
    """
    from fastmcp import FastMCP  # noqa: PLC0415
    from fastmcp.server.providers.fastmcp_provider import FastMCPProviderTool  # noqa: PLC0415

    if not isinstance(tool, FastMCPProviderTool):
        return None
    server = getattr(tool, "_server", None)
    return server if isinstance(server, FastMCP) else None


def lowlevel_server(server: Any) -> Any:
    """The ``mcp`` SDK ``Server`` under a ``FastMCP`` server: what ``fastmcp.Client`` drives.

    A ``TypeError`` naming the FastMCP version when it is not there (a shape
    this module was not checked against).
    """
    from mcp.server import Server  # noqa: PLC0415 - mcp loads lazily

    lowlevel = getattr(server, "_mcp_server", None)
    if not isinstance(lowlevel, Server):
        msg = (
            f"{type(server).__qualname__} has no low-level MCP Server where FastMCP keeps it "
            f"(_mcp_server; checked against {CHECKED_AGAINST}): this FastMCP version is not "
            "supported in process (docs/fastmcp.md names the supported ones)"
        )
        raise TypeError(msg)
    return lowlevel


def add_outermost_middleware(server: Any, middleware: Any) -> None:
    """Run ``middleware`` before every other middleware of ``server``, added before or after.

    FastMCP runs ``server.middleware`` (its constructor's ``middleware=``)
    first to last, the first outermost; ``add_middleware`` appends.
    """
    server.middleware.insert(0, middleware)


def shape_problems() -> list[str]:
    """What the integration relies on and FastMCP no longer has (``[]``: all there)."""
    from fastmcp import FastMCP  # noqa: PLC0415
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
    from mcp.server import Server  # noqa: PLC0415

    shape = FastMCP("shape")
    if not isinstance(getattr(shape, "_mask_error_details", None), bool):
        problems.append("FastMCP._mask_error_details")
    if not isinstance(getattr(shape, "_mcp_server", None), Server):
        problems.append("FastMCP._mcp_server (an mcp.server.Server)")
    if not isinstance(getattr(shape, "middleware", None), list):
        problems.append("FastMCP.middleware (a list, the first outermost)")
    problems.extend(_delegate_problems())
    if _body_error() is None:
        problems.append("fastmcp.tools.function_tool._ToolBodyError")
    return problems


def _delegate_problems() -> list[str]:
    """What :func:`converted_by` and :func:`mounted_server` read of delegating tools."""
    from fastmcp import FastMCP  # noqa: PLC0415
    from fastmcp.server.providers.fastmcp_provider import FastMCPProviderTool  # noqa: PLC0415
    from fastmcp.tools import Tool  # noqa: PLC0415

    problems: list[str] = []
    child = FastMCP("child")
    probe = Tool.from_function(lambda: None, name="probe")
    if mounted_server(FastMCPProviderTool.wrap(child, probe)) is not child:
        problems.append("FastMCPProviderTool._server (a mounted tool's server)")
    if converted_by(Tool.from_tool(probe, name="transformed"))[1:] != [probe]:
        problems.append("TransformedTool.parent_tool")
    return problems
