"""Serving an app over MCP with the official ``mcp`` SDK, byte for byte.

The SDK's low-level ``Server`` is used rather than ``MCPServer``: it hands
``tools/list`` and ``tools/call`` to us untouched, so the wire carries exactly
what the app built. ``MCPServer`` would validate arguments against its own
model of the function signature (the app validates, with Fusion envelopes)
and re-wrap return values.

Two details keep the bytes exact:

- ``tools/call`` answers with the response's wire *dict*, not
  ``CallToolResult``: the model's ``is_error`` defaults to ``False``, so dumping
  it would add ``"isError": false`` to every success. The dict is validated and
  sieved by the SDK against the negotiated protocol version as usual;
  ``resultType`` (required on 2026-07-28 sessions) is the only key added, and
  older versions drop it.
- Before 2026-07-28, MCP restricts ``structuredContent`` to a JSON object; the
  SDK answers a response carrying any other value on such a session with a
  JSON-RPC ``INTERNAL_ERROR`` ("Handler returned an invalid result").

A server keeps serving (WIRE.md 12.9): an app that raises, or a result the
SDK could not encode (a lone surrogate, an object with no JSON form), is
answered with an ``INTERNAL_ERROR`` envelope instead of reaching the
transport, where one bad message would end a stdio server. The HTTP security
model (Host/Origin checks, bearer token) is in :mod:`fusion_core._mcp._server_http_guard`.

``mcp`` is imported inside the functions only: it takes about a second to
import, and ``import fusion_core`` must stay fast.
"""

from __future__ import annotations

import gc
import importlib
import inspect
import logging
import re
from collections.abc import Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any, Final, Protocol, runtime_checkable

from fusion_core._errors import AppLoadError
from fusion_core._mcp._frameworks import ServerSource, runner_of, source_of
from fusion_core._tools._pipeline import RETRY_HINT
from fusion_core._write._one_call import tool_error

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext
    from mcp.server.lowlevel import Server
    from mcp_types import CallToolRequestParams, ListToolsResult, PaginatedRequestParams

    from fusion_core._write._response import ToolResponse

__all__ = [
    "DEFAULT_SERVER_NAME",
    "AppLoadError",
    "ContextFactory",
    "ToolApp",
    "build_server",
    "load_app",
    "load_target",
    "serve_stdio",
]

logger = logging.getLogger("fusion_core.server")

DEFAULT_SERVER_NAME: Final = "fusion"
"""The ``serverInfo.name`` of an app that has no ``name``."""

_UNSENDABLE_RECOVERY: Final = (
    "The result cannot be sent; the same call will most likely fail the same way. "
    "Tell the user which call failed."
)
_SURROGATE: Final = re.compile("[\ud800-\udfff]")


@runtime_checkable
class ToolApp(Protocol):
    """What the server needs from an app: its tool definitions and a call pipeline.

    ``definitions()`` returns the MCP tool definitions in wire form (``name``,
    ``description``, ``inputSchema``, ``annotations``, optional
    ``outputSchema``); ``call()`` runs one tool and returns its response. The
    app validates arguments and turns every failure into an error envelope.

    Optional: a ``name`` attribute (the server's ``serverInfo.name``), and a
    ``tool_input_schema(name)`` method answering one tool's ``inputSchema``
    without building every definition (``FusionApp`` has both).
    """

    def definitions(self) -> list[dict[str, Any]]:
        """The MCP tool definitions, in wire form."""
        ...

    async def call(
        self, name: str, arguments: Mapping[str, Any] | None, ctx: Any = None
    ) -> ToolResponse:
        """Run tool ``name`` with ``arguments`` and return its response."""
        ...


ContextFactory = Callable[["ServerRequestContext[Any, Any]"], Any]
"""Builds the ``ctx`` handed to ``app.call`` from the SDK's request context.

It may return the context or an awaitable of it. Without a factory the app
gets ``ctx=None``, exactly as an in-process ``await app.call(name, args)``.
"""


def _server_identity(
    app: ToolApp, name: str | None = None, version: str | None = None
) -> tuple[str, str]:
    """``serverInfo``'s ``(name, version)``: as given, else the app's name and our version."""
    if name is None:
        app_name = getattr(app, "name", None)
        name = app_name if isinstance(app_name, str) and app_name else DEFAULT_SERVER_NAME
    if version is None:
        from fusion_core import __version__  # noqa: PLC0415 - the package imports this module lazily

        version = __version__
    for label, value in (("name", name), ("version", version)):
        if _SURROGATE.search(value):
            msg = f"the server {label} {value!r} contains a lone surrogate: it cannot be sent"
            raise ValueError(msg)
    return name, version


def build_server(
    app: ToolApp,
    *,
    name: str | None = None,
    version: str | None = None,
    instructions: str | None = None,
    context_factory: ContextFactory | None = None,
) -> Server[Any]:
    """An ``mcp`` low-level ``Server`` exposing ``app``'s tools unchanged.

    ``tools/list`` returns ``app.definitions()``; ``tools/call`` returns the
    wire dict of ``await app.call(name, arguments, ctx)``. Arguments reach the
    app unvalidated (the app's validation envelopes reach the client). If the
    app itself raises, or returns a result that cannot be encoded, the
    exception is logged and the client gets an ``INTERNAL_ERROR`` envelope
    without its text, and the server keeps serving. ``serverInfo`` carries
    ``name`` (default: the app's ``name``) and ``version`` (default: this
    package's version). The SDK's OpenTelemetry span of a request is made
    when a tracer provider is set or the request carries trace context.
    """
    from mcp.server.lowlevel import Server  # noqa: PLC0415 - mcp costs ~1 s to import
    from mcp_types import (  # noqa: PLC0415
        CallToolRequestParams,
        ListToolsResult,
        PaginatedRequestParams,
    )

    from fusion_core._mcp._server_tracing import spans_when_traced  # noqa: PLC0415 - imports opentelemetry, as mcp

    server_name, server_version = _server_identity(app, name, version)

    async def list_tools(
        _ctx: ServerRequestContext[Any, Any], _params: PaginatedRequestParams | None
    ) -> ListToolsResult:
        return ListToolsResult.model_validate({"tools": app.definitions()})

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: CallToolRequestParams
    ) -> dict[str, Any]:
        if context_factory is None:
            return await answer(app, params.name, params.arguments)
        try:
            app_ctx = context_factory(ctx)
            if inspect.isawaitable(app_ctx):
                app_ctx = await app_ctx
        except Exception:
            logger.exception("serving tool %r raised", params.name)
            return _wire(_internal_error(params.name, "failed to run this tool", RETRY_HINT))
        return await answer(app, params.name, params.arguments, app_ctx)

    server: Server[Any] = Server(server_name, version=server_version, instructions=instructions)
    server.add_request_handler("tools/list", PaginatedRequestParams, list_tools)
    # Registered directly rather than as on_call_tool: that signature demands a
    # CallToolResult, and only a dict keeps an absent isError absent.
    server.add_request_handler("tools/call", CallToolRequestParams, call_tool)
    server.get_tool_input_schema = _schema_lookup(app)
    spans_when_traced(server)
    return server


async def answer(
    app: ToolApp, name: str, arguments: Mapping[str, Any] | None, app_ctx: Any = None
) -> dict[str, Any]:
    """The wire dict answering ``tools/call`` of ``name``: the app's, or an ``INTERNAL_ERROR``.

    What the server's ``tools/call`` handler returns (and the stdio fast
    path, :mod:`fusion_core._mcp._server_fastcall`, writes): an app that
    raises, or a result that cannot be encoded, is logged and answered with
    an envelope without its text.
    """
    try:
        result: Mapping[str, Any] = await app.call(name, arguments, app_ctx)
        problem = _unencodable(result)
        if problem is not None:
            logger.error("the result of tool %r cannot be sent: %s", name, problem)
            result = _internal_error(
                name, "could not encode this tool's result", _UNSENDABLE_RECOVERY
            )
    except Exception:
        # A pipeline bug, not a handler failure (the app envelopes those):
        # keep its text off the wire, keep serving.
        logger.exception("serving tool %r raised", name)
        result = _internal_error(name, "failed to run this tool", RETRY_HINT)
    return _wire(result)


def _wire(result: Mapping[str, Any]) -> dict[str, Any]:
    """``result`` in plain dicts and lists, with ``resultType`` (the SDK drops it before 2026).

    A ``ToolResponse``'s content is a read-only list of read-only dicts
    (subclasses); the SDK validates plain ones in C and subclasses through
    their Python protocol, 10 to 25 µs more per call for the same bytes.
    """
    wire = dict(result)
    content = wire.get("content")
    if isinstance(content, list):
        wire["content"] = [dict(block) if isinstance(block, dict) else block for block in content]
    wire["resultType"] = "complete"
    return wire


def _internal_error(tool: str, what: str, recovery: str) -> ToolResponse:
    """The server's own ``INTERNAL_ERROR`` envelope; the tool name in ASCII, so it can be sent."""
    shown = tool.encode("ascii", "backslashreplace").decode("ascii")
    return tool_error("INTERNAL_ERROR", f"[{shown}] the server {what}", suggestion=recovery)


def _unencodable(result: Mapping[str, Any]) -> str | None:
    """Why the SDK could not encode ``result`` as JSON, or ``None`` when it can.

    A lone surrogate in a text block (the common case, checked in O(1) for
    ASCII text and by a UTF-8 encode otherwise, three times faster than a
    regex), and anything else outside ``content`` texts through the SDK's
    own serializer. The SDK would raise while *writing* the message, where a
    stdio server dies.
    """
    import pydantic_core  # noqa: PLC0415 - comes with pydantic, already loaded when serving

    rest: dict[str, Any] = {}
    for key, value in result.items():
        if key != "content" or not isinstance(value, list):
            if key != "isError" or not isinstance(value, bool):
                rest[key] = value
            continue
        for index, block in enumerate(value):
            text = block.get("text") if isinstance(block, Mapping) else None
            if not isinstance(text, str) or len(block) > 2:
                rest[f"content[{index}]"] = block
            elif not text.isascii():
                try:
                    text.encode("utf-8")
                except UnicodeEncodeError as exc:
                    return f"content[{index}].text has a lone surrogate at offset {exc.start}"
    if not rest:
        return None
    try:
        pydantic_core.to_json(rest)
    except (pydantic_core.PydanticSerializationError, ValueError, TypeError) as exc:
        return str(exc)
    return None


def _schema_lookup(app: ToolApp) -> Callable[[str], Mapping[str, Any] | None]:
    """The input schema of one tool, for the SDK's ``Mcp-Param-*`` header check.

    Without it, the SDK would run the whole ``tools/list`` handler on every
    2026-07-28 HTTP call just to find one schema. An app's own
    ``tool_input_schema`` answers in O(1); other apps are scanned.
    """
    direct: Callable[[str], Mapping[str, Any] | None] | None = getattr(
        app, "tool_input_schema", None
    )
    if callable(direct):
        return direct

    def lookup(name: str) -> Mapping[str, Any] | None:
        for definition in app.definitions():
            if definition.get("name") == name:
                schema: Mapping[str, Any] | None = definition.get("inputSchema")
                return schema
        return None

    return lookup


def settle_heap() -> None:
    """Collect once, then freeze what survives (``gc.freeze``): the start-up heap.

    The app, its pydantic models and the SDK are some 85,000 tracked
    objects that live as long as the server; a full collection walked them
    all (27 ms, a stall of every call in flight). Frozen, the collector
    skips them, and a full collection while serving walks only what calls
    created. Objects that are garbage later are still freed by reference
    counting; only cycles among frozen objects are never collected.
    """
    gc.collect()
    gc.freeze()


async def serve_stdio(
    app: ToolApp,
    *,
    name: str | None = None,
    version: str | None = None,
    context_factory: ContextFactory | None = None,
) -> None:
    """Serve ``app`` over this process's stdin and stdout until stdin closes.

    Run it with ``anyio.run(serve_stdio, app)``, or from the command line:
    ``python -m fusion_core serve pkg.module:app``. When stdin and stdout are
    pipes or sockets they are read and written on the event loop, otherwise
    by the SDK's own transport; a handler's stray output goes to stderr.
    Over pipes, without a ``context_factory``, a plain ``tools/call`` is
    answered beside the SDK's dispatcher, with the bytes the SDK writes
    ("Fast on every call" in docs/serving.md). Before serving, the
    process's heap is collected and frozen (``gc.freeze()``), so that full
    collections skip what start-up built.
    """
    import anyio  # noqa: PLC0415 - loaded with mcp
    from mcp.server.stdio import stdio_server  # noqa: PLC0415 - mcp costs ~1 s to import

    from fusion_core._mcp._server_fastcall import fast_calls_for  # noqa: PLC0415 - imports mcp
    from fusion_core._mcp._server_stdio import (  # noqa: PLC0415 - with the SDK's transport
        MessageReader,
        MessageWriter,
        served_pipes,
    )

    server = build_server(app, name=name, version=version, context_factory=context_factory)
    settle_heap()
    with served_pipes() as pipes:
        if pipes is not None:
            reader, writer = pipes
            fast = None
            if context_factory is None:
                fast = fast_calls_for(server, partial(answer, app), writer)
            async with anyio.create_task_group() as group:
                if fast is not None:
                    await group.start(fast.serve)
                await server.run(
                    MessageReader(reader, fast),
                    MessageWriter(writer, fast),
                    server.create_initialization_options(),
                )
                if fast is not None:
                    fast.close()
            return
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())


def load_app(spec: str) -> ToolApp:
    """Import ``"pkg.module:attr"`` and return the app it names.

    ``attr`` may be dotted (``module:holder.app``). Raises :class:`AppLoadError`
    saying what is missing: the colon, the module, the attribute, or the
    app's ``definitions()`` and ``call()``. A framework's server (``MCPServer``,
    ``FastMCP``, the SDK's ``Server``) is not an app: :func:`load_target` loads it.
    """
    target = load_target(spec)
    if isinstance(target, ServerSource):
        msg = (
            f"app spec {spec!r} names a server on {target.kind}, which serves itself: run "
            f"it with its own runner, {runner_of(target.kind, target.label)}, in its module; "
            "`fusion list|call|check` and the pytest plugin drive it in process"
        )
        raise AppLoadError(msg, spec=spec)
    return target


def load_target(spec: str) -> ToolApp | ServerSource:
    """Import ``"pkg.module:attr"``: an app, or a framework server (or its factory).

    A ``FusionApp`` (any :class:`ToolApp`) is returned as is; an ``MCPServer``,
    a ``FastMCP``, the SDK's low-level ``Server``, or a zero-argument function
    returning one of them, as a :class:`ServerSource`. Raises
    :class:`AppLoadError` saying what is missing, as :func:`load_app` does.
    """
    target = _named(spec)
    if isinstance(target, ToolApp):
        return target
    try:
        source = source_of(target, spec.partition(":")[2])
    except TypeError as exc:
        raise AppLoadError(f"app spec {spec!r}: {exc}", spec=spec) from None
    if source is not None:
        return source
    missing = [method for method in ("definitions", "call") if not hasattr(target, method)]
    msg = (
        f"app spec {spec!r} names a {type(target).__qualname__}, not an app: "
        f"it has no {' or '.join(f'{method}()' for method in missing)}, and it is not an "
        "MCPServer, a FastMCP, the MCP SDK's Server or a function returning one"
    )
    raise AppLoadError(msg, spec=spec)


def _named(spec: str) -> Any:
    """The object ``"pkg.module:attr"`` names (the module imported)."""
    module_name, colon, attr_path = spec.partition(":")
    if not colon or not module_name or not attr_path:
        msg = f"app spec {spec!r} must look like 'package.module:app' (module, colon, attribute)"
        raise AppLoadError(msg, spec=spec)
    try:
        target: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is None or not module_name.startswith(exc.name):
            raise  # a module the app's own code imports is missing: not a spec error
        msg = (
            f"app spec {spec!r}: no module named {exc.name!r} "
            "(is the current directory or PYTHONPATH set so it can be imported?)"
        )
        raise AppLoadError(msg, spec=spec) from exc
    for part in attr_path.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            msg = f"app spec {spec!r}: {module_name!r} has no attribute {attr_path!r}"
            raise AppLoadError(msg, spec=spec) from None
    return target
