"""A black-box MCP client: any server's tool definitions and results, in wire form.

The server may be a command line (stdio), a URL (streamable HTTP) or, in
tests, an app or SDK ``Server`` in this process. Whatever language the server
is written in, :meth:`FusionClient.call` returns the tool result as the MCP
wire dict it arrived as (``content``, and ``isError`` / ``structuredContent``
when the server sent them) — the same shape as a :class:`~fusion_core.ToolResponse`,
so ``parse()`` and ``check()`` read both.

The result is taken from the JSON-RPC message before the SDK models it: the
``CallToolResult`` model defaults ``isError`` to ``False`` (so a dump could
not tell "absent" from "false"), and the SDK's own client would raise when
structured content does not match the tool's ``outputSchema`` — a test client
must report what the server sent instead. Only what the protocol layer adds
(``resultType``, cache hints, the ``serverInfo`` stamp in ``_meta``) is
removed; see :func:`tool_result_wire`.

:class:`~fusion_core.BlockingFusionClient` (:mod:`fusion_core._mcp._client_blocking`)
wraps it for plain code; what counts as losing the server is decided in
:mod:`fusion_core._mcp._connection_loss`.
"""

from __future__ import annotations

import json
import shlex
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Self, TextIO, TypeVar, cast, final

from fusion_core._errors import ServerConnectionError, ServerLimitError, ServerResultError, leaves
from fusion_core._mcp._arguments import check_arguments
from fusion_core._mcp._call_limits import describe_call, json_size_over
from fusion_core._mcp._client_raw import RawAnswers
from fusion_core._mcp._client_stdio import Overflow, ProcessExit, bounded_stdio
from fusion_core._mcp._connection_loss import Faults, connection_lost, reason
from fusion_core._mcp._frameworks import ServerSource
from fusion_core._read._parse import parse
from fusion_core._read._parsed_blocks import ParsedResponse
from fusion_core._terminal import one_line, terminal_safe

if TYPE_CHECKING:
    from types import ModuleType, TracebackType

    from mcp import Client
    from mcp.client import Transport
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import MCPError
    from mcp_types import CallToolResult
    from pydantic import RootModel, ValidationError

    from fusion_core._mcp._server import ToolApp

    Target = str | Server[Any] | Transport | Any  # Any: an MCPServer or a FastMCP

__all__ = [
    "FusionClient",
    "ServerConnectionError",
    "ServerLimitError",
    "ServerResultError",
    "tool_result_wire",
]

# The client's limits, defined once here (the pytest plugin's option defaults
# read them too). The shared size policy of fusion_core (_limits) may take
# DEFAULT_MAX_RESPONSE_BYTES over; it bounds what one answer may cost us.
DEFAULT_TIMEOUT: Final = 30.0
"""Seconds to wait for any one answer from the server."""
DEFAULT_MAX_RESPONSE_BYTES: Final = 8 * 1024 * 1024
"""The largest answer (one JSON-RPC message, in bytes) read from a server: 8 MiB,
some two million tokens, far beyond what a model can use from one tool call."""

_PROTOCOL_KEYS: Final = frozenset({"resultType", "ttlMs", "cacheScope"})
_SERVER_INFO_META: Final = "io.modelcontextprotocol/serverInfo"
_T = TypeVar("_T")
_MAX_PAGES: Final = 1000  # a server whose tools/list cursor never ends cannot hang us


def _shown_safely(error: MCPError) -> None:
    """Make a server's JSON-RPC error message terminal-safe, in place (the code is kept).

    Its text is the server's and ends up in tracebacks and the CLI's error line.
    """
    message = terminal_safe(error.error.message, multiline=True)
    if message != error.error.message:
        error.error = error.error.model_copy(update={"message": message})
        error.args = (error.code, message, error.data)


def tool_result_wire(result: Mapping[str, Any]) -> dict[str, Any]:
    """The tool's own result from a ``tools/call`` result dict.

    Drops what the protocol layer adds — ``resultType``, ``ttlMs``,
    ``cacheScope`` and the ``serverInfo`` entry of ``_meta`` (``_meta`` goes
    when nothing else is left in it) — and keeps everything else as sent.
    """
    wire = {key: value for key, value in result.items() if key not in _PROTOCOL_KEYS}
    meta = wire.get("_meta")
    if isinstance(meta, Mapping) and _SERVER_INFO_META in meta:
        rest = {key: value for key, value in meta.items() if key != _SERVER_INFO_META}
        if rest:
            wire["_meta"] = rest
        else:
            del wire["_meta"]
    return wire


def _named(named: str | Callable[[], str]) -> str:
    return named if isinstance(named, str) else named()


@final
class _RequestSdk:
    """What :meth:`FusionClient._request` uses of anyio, pydantic and the SDK, imported once."""

    __slots__ = (
        "CONNECTION_CLOSED",
        "MCPError",
        "REQUEST_TIMEOUT",
        "ValidationError",
        "anyio",
        "result_model",
    )

    def __init__(self) -> None:
        import anyio  # noqa: PLC0415 - only the connected path needs it
        from mcp.shared.exceptions import MCPError  # noqa: PLC0415
        from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT  # noqa: PLC0415
        from pydantic import RootModel, ValidationError  # noqa: PLC0415

        self.anyio: ModuleType = anyio
        self.MCPError: type[MCPError] = MCPError
        self.CONNECTION_CLOSED: int = CONNECTION_CLOSED
        self.REQUEST_TIMEOUT: int = REQUEST_TIMEOUT
        self.ValidationError: type[ValidationError] = ValidationError
        self.result_model: type[RootModel[dict[str, Any]]] = RootModel[dict[str, Any]]


@cache
def _request_sdk() -> _RequestSdk:
    # Six imports and a generic model's parametrisation per request were a
    # tenth of an in-memory call: resolved once.
    return _RequestSdk()


@final
class FusionClient:
    """An async MCP client returning tool definitions and results as wire dicts.

    Build one with :meth:`stdio`, :meth:`http` or :meth:`in_memory`, then::

        async with FusionClient.stdio("python -m billing.server") as client:
            tools = await client.list_tools()
            result = await client.call("invoices", {"action": "list"})

    ``mode`` is the SDK's protocol negotiation: ``"auto"`` (the newest version
    both sides speak), ``"legacy"`` (the initialize handshake) or a version.
    Protocol failures (unknown method, a dead server) raise the SDK's
    ``MCPError``.

    Every request is bounded: ``timeout`` seconds for its answer and
    ``max_response_bytes`` for its size (``None`` lifts a limit). Going over
    either raises :class:`~fusion_core.ServerLimitError` naming the call; over
    stdio the oversized answer is not even read to its end. After that error
    the connection may be unusable (the server can still be busy): open a new
    client.
    """

    __slots__ = (
        "_client",
        "_ended",
        "_fastmcp",
        "_faults",
        "_in_memory",
        "_label",
        "_lost",
        "_max_bytes",
        "_mode",
        "_overflow",
        "_overflow_marks",
        "_raw",
        "_target",
        "_timeout",
    )

    def __init__(
        self,
        target: Target,
        *,
        mode: str = "auto",
        timeout: float | None = DEFAULT_TIMEOUT,
        max_response_bytes: int | None = DEFAULT_MAX_RESPONSE_BYTES,
    ) -> None:
        if timeout is not None and not timeout > 0:
            msg = f"timeout must be a positive number of seconds or None, got {timeout!r}"
            raise ValueError(msg)
        if max_response_bytes is not None and not max_response_bytes > 0:
            msg = f"max_response_bytes must be a positive int or None, got {max_response_bytes!r}"
            raise ValueError(msg)
        self._target = target
        self._label = target if isinstance(target, str) else type(target).__qualname__
        self._mode = mode
        self._timeout = timeout
        self._max_bytes = max_response_bytes
        self._overflow: Overflow | None = None
        # Over HTTP the session outlives an overflow: the error names the answer that
        # tripped (how a JSON body's error begins, how a server-sent event's does).
        self._overflow_marks: tuple[str, str] | None = None
        self._ended: ProcessExit | None = None
        self._raw = RawAnswers()  # the transport's record of the bytes (stdio, bounded HTTP)
        self._client: Client | None = None
        self._lost: str | None = None
        self._faults: Faults = Faults()
        self._fastmcp = False  # a FastMCP server, reached through its low-level SDK Server
        self._in_memory = False  # a server in this process: no bytes parsed

    @classmethod
    def stdio(
        cls,
        command: str | Sequence[str],
        *,
        cwd: str | Path | None = None,
        env: Mapping[str, str] | None = None,
        errlog: TextIO | None = None,
        mode: str = "auto",
        timeout: float | None = DEFAULT_TIMEOUT,
        max_response_bytes: int | None = DEFAULT_MAX_RESPONSE_BYTES,
    ) -> FusionClient:
        """A client for a server launched as a subprocess speaking MCP on stdio.

        ``command`` is a list of arguments, or one string split like a POSIX
        shell would (``shlex``); no shell runs. ``env`` is added to the SDK's
        minimal default environment (``PATH``, ``HOME``...), not to this
        process's environment: pass ``env=os.environ`` for all of it. The
        server's stderr goes to ``errlog`` (a file with a descriptor), by
        default this process's stderr.
        """
        from mcp.client.stdio import get_default_environment  # noqa: PLC0415 - slow import

        argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not argv or not all(isinstance(arg, str) for arg in argv):
            msg = f"a stdio server command needs a program and str arguments, got {command!r}"
            raise ValueError(msg)
        # The limit applies to the bytes as they arrive, before any is parsed.
        overflow = Overflow(max_response_bytes if max_response_bytes is not None else sys.maxsize)
        ended = ProcessExit()
        raw = RawAnswers()
        transport = bounded_stdio(
            argv,
            env={**get_default_environment(), **(env or {})},
            cwd=cwd,
            errlog=sys.stderr if errlog is None else errlog,
            overflow=overflow,
            ended=ended,
            raw=raw,
        )
        client = cls(transport, mode=mode, timeout=timeout, max_response_bytes=max_response_bytes)
        client._label = shlex.join(argv)
        client._overflow = overflow
        client._ended = ended
        client._raw = raw
        return client

    @classmethod
    def http(
        cls,
        url: str,
        *,
        mode: str = "auto",
        timeout: float | None = DEFAULT_TIMEOUT,
        max_response_bytes: int | None = DEFAULT_MAX_RESPONSE_BYTES,
    ) -> FusionClient:
        """A client for a streamable HTTP server, e.g. ``http://127.0.0.1:8000/mcp``.

        An answer stops at ``max_response_bytes`` as it arrives, whether it
        comes as one JSON body or as a server-sent event; a JSON answer must
        then come uncompressed (the client asks for that), since a compressed
        one cannot be bounded before it is inflated. With ``None`` the SDK's
        transport reads answers of any size, compressed or not.
        """
        from fusion_core._mcp._client_http import (  # noqa: PLC0415 - imports httpx
            OVERFLOW_MARK,
            SSE_OVERFLOW_MARK,
            bounded_http,
        )

        if not url.startswith(("http://", "https://")):
            msg = f"a streamable HTTP server needs an http:// or https:// URL, got {url!r}"
            raise ValueError(msg)
        if max_response_bytes is None:
            from mcp.client.streamable_http import streamable_http_client  # noqa: PLC0415

            unbounded = streamable_http_client(url, max_sse_event_size=None)
            client = cls(unbounded, mode=mode, timeout=timeout, max_response_bytes=None)
            client._label = url
            return client
        overflow = Overflow(max_response_bytes)
        raw = RawAnswers()
        transport = bounded_http(
            url, overflow=overflow, max_sse_event_size=max_response_bytes, raw=raw
        )
        client = cls(transport, mode=mode, timeout=timeout, max_response_bytes=max_response_bytes)
        client._label = url
        client._overflow = overflow
        client._raw = raw
        client._overflow_marks = (OVERFLOW_MARK, SSE_OVERFLOW_MARK)
        return client

    @classmethod
    def in_memory(
        cls,
        server: ToolApp | Server[Any] | ServerSource | object,
        *,
        mode: str = "auto",
        timeout: float | None = DEFAULT_TIMEOUT,
        max_response_bytes: int | None = DEFAULT_MAX_RESPONSE_BYTES,
    ) -> FusionClient:
        """A client for a server in this process: an app, or a framework's server.

        An app is served with ``build_server``. An ``MCPServer`` or the SDK's
        ``Server`` is reached through the SDK's own in-memory client
        (``mcp.Client(server)``); a ``FastMCP`` through the same client on the
        SDK ``Server`` it is built on, which ``fastmcp.Client(server)`` drives
        too (FastMCP's lifespan entered as that client enters it, every request
        through FastMCP's whole dispatch, without that client's JSON-RPC over
        memory streams). The results are those the framework sends over stdio.
        What a spec naming a server's factory loads gives its server (a fresh one).

        ``mode="auto"`` calls an SDK server directly (2026-07-28, no JSON);
        ``mode="legacy"`` goes through JSON-RPC messages in memory.
        """
        from fusion_core._mcp._frameworks import server_kind  # noqa: PLC0415
        from fusion_core._mcp._server import build_server  # noqa: PLC0415 - imports mcp

        if isinstance(server, ServerSource):
            server = server.server()
        kind = server_kind(server)
        client = cls(
            server if kind is not None else build_server(cast("ToolApp", server)),
            mode=mode,
            timeout=timeout,
            max_response_bytes=max_response_bytes,
        )
        client._fastmcp = kind == "FastMCP"
        client._in_memory = True
        return client

    async def __aenter__(self) -> Self:
        from mcp import Client  # noqa: PLC0415 - mcp is slow to import

        if self._client is not None:
            msg = "this FusionClient is already connected; make a new one for a second connection"
            raise RuntimeError(msg)
        target = self._target
        if self._fastmcp:  # the SDK Server under it, whose lifespan is FastMCP's own
            from fusion_core._mcp._upstream_fastmcp import lowlevel_server  # noqa: PLC0415

            target = lowlevel_server(target)
        client = Client(
            target,
            mode=self._mode,
            # In memory this is the only deadline (see _request): the SDK's
            # dispatcher bounds the whole request, the server's work included.
            read_timeout_seconds=self._timeout,
            message_handler=self._faults.handle,
        )
        try:
            await client.__aenter__()
        except Exception as exc:
            # The SDK reports a dead peer as an exception group from its task
            # groups; one error naming the server, how it ended and what it
            # last wrote to stderr says more.
            msg = f"could not connect to the MCP server {self._label!r}: {self._unstarted(exc)}"
            raise self._lost_error(msg) from exc
        self._client = client
        return self

    def _unstarted(self, exc: Exception) -> str:
        """Why connecting failed: how a stdio server ended, else the transport's errors."""
        reasons = "; ".join(reason(leaf) for leaf in leaves(exc))
        if self._ended is None:
            return reasons
        ended = self._ended.describe()
        if not connection_lost(exc):  # something else went wrong too: say it
            how = f"it {ended}" if ended is not None else "it stopped answering"
            return f"{how} before answering ({reasons})"
        if ended is None:  # stdout closed, the process still there
            return "it closed its stdout before answering"
        return f"it {ended} before answering"

    def _lost_error(self, message: str) -> ServerConnectionError:
        """The error for a server gone: a stdio server's status and stderr tail appended."""
        if self._ended is None:
            return ServerConnectionError(message)
        tail = self._ended.stderr_tail()
        return ServerConnectionError(
            message + tail, returncode=self._ended.returncode, stderr=tail.lstrip("\n")
        )

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        client, self._client = self._client, None
        if client is None:
            return
        try:
            await client.__aexit__(exc_type, exc, traceback)
        except BaseException as error:
            if exc is not None and all(leaf is exc for leaf in leaves(error)):
                # The block's own exception, wrapped in exception groups by the
                # transport's task groups on its way out: let it go on as raised.
                return
            # The transport failed under the connection (an HTTP server that went
            # away): the calls say so; closing does not raise it a second time.
            if not isinstance(error, Exception) or not connection_lost(error):
                raise
            self._lost = "; ".join(reason(leaf) for leaf in leaves(error))

    @property
    def sdk_client(self) -> Client:
        """The connected ``mcp.Client``, for anything this class does not cover.

        For a ``FastMCP`` server in this process it is connected to the server's
        low-level SDK ``Server`` (see :meth:`in_memory`).
        """
        client = self._client
        if client is None:
            if self._lost is not None:
                msg = f"the connection to the MCP server {self._label!r} ended: {self._lost}"
                raise self._lost_error(msg)
            msg = "the FusionClient is not connected: use it in 'async with'"
            raise RuntimeError(msg)
        return client

    @property
    def protocol_version(self) -> str:
        """The MCP protocol version negotiated with the server."""
        return self.sdk_client.protocol_version or ""

    async def list_tools(self) -> list[dict[str, Any]]:
        """Every tool definition the server lists, as sent (all pages)."""
        from mcp_types import ListToolsRequest, PaginatedRequestParams  # noqa: PLC0415

        tools: list[dict[str, Any]] = []
        cursor: str | None = None
        for _ in range(_MAX_PAGES):
            params = PaginatedRequestParams(cursor=cursor) if cursor is not None else None
            page = await self._request(ListToolsRequest(params=params), "tools/list")
            tools.extend(page.get("tools", []))
            cursor = page.get("nextCursor")
            if cursor is None:
                return tools
        msg = f"tools/list still had a next page after {_MAX_PAGES} pages"
        raise ServerResultError(msg, result=page)

    async def call(self, name: str, arguments: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Call tool ``name`` and return its result as the MCP wire dict.

        ``content`` and ``isError`` / ``structuredContent`` are exactly as the
        server sent them (see :func:`tool_result_wire`). An ``isError`` result
        is returned, not raised.
        """
        from mcp_types import CallToolRequest, CallToolRequestParams  # noqa: PLC0415

        if arguments:
            check_arguments(arguments)  # a NaN the SDK would write as null: refused
        request = CallToolRequest(
            params=CallToolRequestParams(
                name=name, arguments=dict(arguments) if arguments is not None else None
            )
        )
        # Named lazily: only an error message needs the call's description (a
        # JSON dump of the arguments was a twentieth of an in-memory call).
        result = await self._request(request, lambda: describe_call(name, arguments))
        if result.get("resultType", "complete") != "complete" or not isinstance(
            result.get("content"), list
        ):
            msg = (
                f"tools/call {name!r} answered with a {result.get('resultType')!r} result, "
                "not a tool result with content"
            )
            raise ServerResultError(msg, result=result)
        return tool_result_wire(result)

    async def call_raw(
        self, name: str, arguments: Mapping[str, Any] | None = None
    ) -> tuple[dict[str, Any], str]:
        """Call tool ``name``: its wire dict, and its result as the text the server sent.

        Over stdio and HTTP the text is the JSON-RPC response's ``result``
        member exactly as it arrived: the server's key order, number spelling,
        escapes and whitespace, protocol keys (``_meta``, ``resultType``)
        included. A server in this process sends no bytes: the text is then
        ``json.dumps`` of the wire dict (the server's key order, non-ASCII as
        is), as it is for an HTTP client built with ``max_response_bytes=None``.
        """
        self._raw.enabled, self._raw.last = True, None
        try:
            wire = await self.call(name, arguments)
        finally:
            self._raw.enabled = False
        text, self._raw.last = self._raw.last, None
        return wire, json.dumps(wire, ensure_ascii=False) if text is None else text

    async def call_parsed(
        self, name: str, arguments: Mapping[str, Any] | None = None
    ) -> ParsedResponse:
        """Call tool ``name`` and read its result back: typed blocks and the view.

        For a server built with fusion_core the view equals the one the
        in-process call attaches (``view_of``); any other server's text is
        read by the same rules (``fusion_core.parse``).
        """
        return parse(await self.call(name, arguments))

    async def call_result(
        self, name: str, arguments: Mapping[str, Any] | None = None
    ) -> CallToolResult:
        """Call tool ``name`` and return the SDK's ``CallToolResult`` model of its result."""
        from mcp_types import CallToolResult  # noqa: PLC0415 - mcp is slow to import

        return CallToolResult.model_validate(await self.call(name, arguments), by_name=False)

    async def _request(self, request: Any, named: str | Callable[[], str]) -> dict[str, Any]:
        """Send one request; return its result dict as received (after protocol checks).

        ``named`` names the request (or gives its name) in the error raised
        when it goes over a limit.
        """
        sdk = _request_sdk()
        call = named if isinstance(named, str) else None
        session = self.sdk_client.session
        try:
            # A root model of a plain dict: the SDK checks the result against
            # the protocol version's schema, then hands the JSON over unmodelled.
            sent = session.send_request(request, sdk.result_model)
            raw: RootModel[dict[str, Any]] | None
            if self._in_memory:
                # No message is parsed, so none can fail to be (no race), and the
                # SDK's read timeout bounds the whole request: a second timer of
                # our own was a twentieth of an in-memory call. A tool that holds
                # the event loop (a sync MCPServer tool) outruns that timer: its
                # late answer is refused once it comes.
                start = time.monotonic()
                raw = await sent
                took = time.monotonic() - start
                if self._timeout is not None and took > self._timeout:
                    raise self._timed_out(call or _named(named), took)
            else:
                # Our own deadline as well as the SDK's read timeout: it covers the
                # whole request, whatever the transport does in rounds.
                with sdk.anyio.fail_after(self._timeout):
                    raw = await self._faults.race(sent)
        except TimeoutError:
            raise self._timed_out(call or _named(named)) from None
        except sdk.ValidationError as exc:  # a result the SDK's protocol models refuse
            method = getattr(request, "method", "the request")
            msg = f"{self._label!r} answered {method} with a result the MCP SDK refuses: "
            raise ServerResultError(msg + one_line(exc), result={}) from None
        except sdk.MCPError as exc:
            over, received = self._overflow_in(exc)
            if over:
                raise self._too_large(call or _named(named), received) from exc
            if exc.code == sdk.REQUEST_TIMEOUT:
                raise self._timed_out(call or _named(named)) from exc
            if exc.code == sdk.CONNECTION_CLOSED:
                raise self._closed(call or _named(named)) from exc
            _shown_safely(exc)
            raise
        except Exception as exc:
            # The transport's own error for a peer that went away (a closed
            # stream, a reset socket, a group of those): the one error class
            # every caller knows, naming the call.
            if not connection_lost(exc):
                raise
            raise self._closed(call or _named(named)) from exc
        if raw is None:
            method = getattr(request, "method", "the request")
            msg = (
                f"{self._label!r} answered {method} with a message the MCP SDK cannot parse "
                f"(not a JSON-RPC message of this protocol): {self._faults.last}"
            )
            raise ServerResultError(msg, result={})
        if self._max_bytes is not None:
            size = json_size_over(raw.root, self._max_bytes)
            if size is not None:
                raise self._too_large(call or _named(named), size)
        return raw.root

    def _overflow_in(self, error: Exception) -> tuple[bool, int | None]:
        """Whether ``error`` ended a request whose answer went over the size limit.

        And how many bytes had arrived (``None`` when the SDK's own event
        limit stopped a server-sent event, which does not say).
        """
        overflow, marks, text = self._overflow, self._overflow_marks, str(error)
        if overflow is not None and overflow.tripped and (marks is None or marks[0] in text):
            return True, overflow.received
        if marks is not None and marks[1] in text:
            return True, None
        return False, None

    def _closed(self, call: str) -> ServerConnectionError:
        """The connection ended during ``call``: a stdio server says how it ended."""
        ended = self._ended.describe() if self._ended is not None else None
        how = f"it {ended}" if ended is not None else "it closed the connection"
        self._lost = self._lost or how
        msg = f"{call} on {self._label!r} got no answer: {how}"
        if self._ended is None or not self._ended.stderr:
            log = "its stderr" if self._ended is not None else "the server's log"
            msg += f"; {log} may say why"
        return self._lost_error(msg)

    def _timed_out(self, call: str, took: float | None = None) -> ServerLimitError:
        limit = self._timeout or 0.0
        what = (
            f"got no answer within {limit:g} s"
            if took is None
            else f"answered after {took:.1f} s, past the {limit:g} s limit (a tool that holds "
            "the event loop cannot be cut short in process)"
        )
        msg = (
            f"{call} on {self._label!r} {what}; "
            "if the server needs longer, raise timeout= (None waits forever)"
        )
        return ServerLimitError(msg, call=call, kind="timeout", limit=limit, took=took)

    def _too_large(self, call: str, received: int | None) -> ServerLimitError:
        limit = self._max_bytes or 0
        read = f" ({received:,} read)" if received is not None else ""
        msg = (
            f"{call} on {self._label!r} answered with more than {limit:,} bytes{read}; "
            "if such answers are intended, raise max_response_bytes= (None reads any size)"
        )
        return ServerLimitError(msg, call=call, kind="size", limit=limit, received=received)

    def __repr__(self) -> str:
        state = "connected" if self._client is not None else "not connected"
        return f"FusionClient({self._label!r}, mode={self._mode!r}, {state})"
