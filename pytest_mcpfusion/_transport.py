"""How the plugin reaches the tools: in process, over stdio, or over HTTP.

Every transport answers a call with the MCP wire dict and the structured
view: in process the view is the response's hidden one, over a real
transport it is parsed from the bytes (``fusion_core.parse``), and the two
are equal for every response fusion_core builds. One transport is opened per
test session (per xdist worker) and closed at its end.

A server is started with the test process's environment (``fusion_server_env``
lists the variables to pass when not all of them should), its stderr goes to a
file whose last lines explain a server that does not start or dies, and every
call is bounded by :class:`Limits`. A call over a limit, or a server that died,
leaves the connection unusable: the next call starts the server again.
"""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import os
import socket
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Protocol, TextIO, TypeVar, cast

from fusion_core import (
    AppLoadError,
    ResponseView,
    ServerConnectionError,
    ServerLimitError,
    ToolResponse,
    parse,
    view_of,
)
from fusion_core._mcp._arguments import wire_arguments
from fusion_core._mcp._call_limits import describe_call, json_size_over
from fusion_core._mcp._frameworks import ServerSource
from fusion_core._mcp._server import load_target
from fusion_core._terminal import terminal_safe
from pytest_mcpfusion._options import DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT
from pytest_mcpfusion._watchdog import Watchdog, watch_call

if TYPE_CHECKING:
    from anyio.from_thread import BlockingPortal

    from fusion_core import BlockingFusionClient, ToolApp

__all__ = [
    "CONTRACT_SCOPE",
    "TESTS_SCOPE",
    "InProcess",
    "Limits",
    "Remote",
    "StartupError",
    "Transport",
    "load",
    "open_transport",
    "serve_command",
]

_T = TypeVar("_T")
_HTTP_START_TIMEOUT: Final = 30.0
_STDERR_TAIL: Final = 12  # lines of a server's stderr an error message repeats


class StartupError(Exception):
    """The app or server could not be reached; the message names it and says why."""


TESTS_SCOPE: Final = "tests"
"""The isolation scope of the user's own tests."""
CONTRACT_SCOPE: Final = "contract"
"""The isolation scope of the ``--fusion`` contract tests."""


@dataclass(frozen=True, slots=True)
class Limits:
    """What bounds a server: per-call time and size, and the environment it gets."""

    timeout: float | None = DEFAULT_TIMEOUT
    max_response_bytes: int | None = DEFAULT_MAX_RESPONSE_BYTES
    env: Sequence[str] = ("*",)
    """Names (``fnmatch`` patterns) of the variables passed to a server started by command."""
    stalled: Callable[[str, float], None] | None = None
    """Told ``(call, seconds)`` when a call in process holds its thread past ``timeout``."""

    def server_env(self) -> dict[str, str]:
        """The variables of this process that ``env`` names."""
        return {
            name: value
            for name, value in os.environ.items()
            if any(fnmatch.fnmatchcase(name, pattern) for pattern in self.env)
        }


class Transport(Protocol):
    """What the fixtures need from a transport."""

    name: str
    app: ToolApp | None

    def definitions(self) -> list[dict[str, Any]]:
        """The tools, as ``tools/list`` gives them."""

    def call(
        self, tool: str, arguments: Mapping[str, Any], ctx: Any
    ) -> tuple[dict[str, Any], ResponseView | None]:
        """One ``tools/call``: the wire dict and its view (``None``: read from the wire later)."""

    async def call_async(
        self, tool: str, arguments: Mapping[str, Any], ctx: Any
    ) -> tuple[dict[str, Any], ResponseView | None]:
        """The same, from inside a running event loop."""

    def close(self) -> None:
        """Release the event loop thread, the client and any server process."""


class InProcess:
    """Calls the app directly; one event loop thread serves every sync call.

    Every call is bounded by ``limits``: what awaits is cancelled at the
    deadline, an answer that comes past it (a sync handler held the thread:
    nothing in process can cut it short) is refused when it comes, and so is
    one larger than ``max_response_bytes`` as JSON.
    The contract tests' calls go through ``await app.call()`` (a sync handler
    in the app's worker threads), so a stuck handler is left at the deadline
    and the next call goes on; the user's own calls run inline (faster).
    """

    name = "inproc"

    def __init__(self, app: ToolApp, limits: Limits | None = None) -> None:
        from fusion_core import FusionApp  # noqa: PLC0415 - loaded with the app, not the plugin

        self.app: ToolApp | None = app
        self._app = app
        self._fusion = app if isinstance(app, FusionApp) else None
        limits = limits or Limits()
        self._timeout, self._max_bytes = limits.timeout, limits.max_response_bytes
        self._inline = True  # the user's tests; contract tests call as a server does
        self._watchdog = Watchdog.of(limits.stalled)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._portal: BlockingPortal | None = None
        self._portal_cm: contextlib.AbstractContextManager[BlockingPortal] | None = None

    def definitions(self) -> list[dict[str, Any]]:
        """The app's tool definitions."""
        return self._app.definitions()

    def enter_scope(self, scope: str, *, fresh: bool) -> None:
        """Contract tests (``CONTRACT_SCOPE``) call as a server does; others inline."""
        self._inline = scope != CONTRACT_SCOPE

    def call(
        self, tool: str, arguments: Mapping[str, Any], ctx: Any
    ) -> tuple[dict[str, Any], ResponseView]:
        """Run ``app.call`` on the session's event loop, within the timeout.

        From sync code (no loop running in this thread) the call runs right
        here: a ``FusionApp`` runs the user's calls with ``call_sync`` (a sync
        handler in this thread, no loop started for it; what needs a loop on
        the session's own loop), any other app and the contract tests' calls
        on the session's loop. From inside a running loop a portal thread
        runs it, since a loop cannot be re-entered.
        """
        arguments = wire_arguments(arguments)  # what a server would read: the same test anywhere
        start = time.monotonic()
        try:
            response: object
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                if self._loop is None:
                    self._loop = asyncio.new_event_loop()
                with watch_call(self._watchdog, self._timeout, tool, arguments):
                    if self._fusion is not None and self._inline:
                        response = self._fusion.call_sync(
                            tool, arguments, ctx, loop=self._loop, timeout=self._timeout
                        )
                    else:
                        response = self._loop.run_until_complete(
                            self._bounded(tool, arguments, ctx)
                        )
            else:
                if self._portal is None:
                    from anyio.from_thread import start_blocking_portal  # noqa: PLC0415 - lazy

                    self._portal_cm = start_blocking_portal()
                    self._portal = self._portal_cm.__enter__()
                response = self._portal.call(self._bounded, tool, arguments, ctx)
        except TimeoutError:
            raise self._timed_out(tool, arguments) from None
        return self._within_limits(tool, arguments, start, response)

    async def call_async(
        self, tool: str, arguments: Mapping[str, Any], ctx: Any
    ) -> tuple[dict[str, Any], ResponseView]:
        """Await ``app.call`` in the test's own event loop, within the timeout."""
        arguments = wire_arguments(arguments)
        start = time.monotonic()
        try:
            response = await self._bounded(tool, arguments, ctx)
        except TimeoutError:
            raise self._timed_out(tool, arguments) from None
        return self._within_limits(tool, arguments, start, response)

    async def _bounded(self, tool: str, arguments: Mapping[str, Any], ctx: Any) -> object:
        async with asyncio.timeout(self._timeout):
            return await self._app.call(tool, arguments, ctx)

    def _within_limits(
        self, tool: str, arguments: Mapping[str, Any], start: float, response: object
    ) -> tuple[dict[str, Any], ResponseView]:
        took = time.monotonic() - start
        if self._timeout is not None and took > self._timeout:
            raise self._timed_out(tool, arguments, took)
        wire, view = _answer(response)
        if self._max_bytes is not None:
            size = json_size_over(wire, self._max_bytes)
            if size is not None:
                call = describe_call(tool, arguments)
                msg = f"{call} answered with {size:,} bytes, past the {self._max_bytes:,} limit"
                raise ServerLimitError(
                    msg, call=call, kind="size", limit=self._max_bytes, received=size
                )
        return wire, view

    def _timed_out(
        self, tool: str, arguments: Mapping[str, Any], took: float | None = None
    ) -> ServerLimitError:
        call, limit = describe_call(tool, arguments), self._timeout or 0.0
        what = "got no answer" if took is None else f"answered after {took:.1f} s"
        msg = f"{call} {what}, past the {limit:g} s limit"
        return ServerLimitError(msg, call=call, kind="timeout", limit=limit, took=took)

    def close(self) -> None:
        """Close the session's loop, stop the portal thread and the watchdog."""
        if self._watchdog is not None:
            self._watchdog.close()
        if self._loop is not None:
            self._loop.run_until_complete(self._loop.shutdown_asyncgens())
            self._loop.close()
            self._loop = None
        if self._portal_cm is not None:
            self._portal_cm.__exit__(None, None, None)
            self._portal_cm = self._portal = None


class Remote:
    """Calls a server through the black-box client (stdio command or URL).

    ``connect`` makes a new client; the transport connects at once (so a
    server that cannot start is reported before any test runs) and again
    after a call that left the connection unusable.
    """

    def __init__(
        self,
        connect: Callable[[], BlockingFusionClient],
        *,
        name: str,
        target: str,
        process: subprocess.Popen[bytes] | None = None,
        errlog: TextIO | None = None,
    ) -> None:
        self.name = name
        self.app: ToolApp | None = None
        self._connect = connect
        self._target = target
        self._process = process
        self._errlog = errlog
        self._definitions: list[dict[str, Any]] | None = None
        self._client: BlockingFusionClient | None = None
        try:
            self._open()
        except BaseException:  # no one will close a transport that never was: do it now
            self.close()
            raise

    def _open(self) -> BlockingFusionClient:
        if self._client is None:
            client = self._connect()
            try:
                client.__enter__()
            except (ServerConnectionError, OSError) as exc:
                msg = f"could not start the MCP server {self._target!r}: {_reason(exc)}"
                raise StartupError(msg + self._tail_unless_quoted(exc)) from exc
            self._client = client
        return self._client

    def _drop(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            with contextlib.suppress(Exception):  # the connection is known to be broken
                client.__exit__(None, None, None)

    def stderr_tail(self) -> str:
        """The last lines the server wrote to stderr, as a message paragraph (or "")."""
        return "" if self._errlog is None else _tail(self._errlog)

    def _tail_unless_quoted(self, exc: Exception) -> str:
        """:meth:`stderr_tail`, unless the client's error quotes it (a stdio server's does)."""
        return "" if getattr(exc, "stderr", None) is not None else self.stderr_tail()

    def definitions(self) -> list[dict[str, Any]]:
        """The server's ``tools/list``, fetched once."""
        if self._definitions is None:
            self._definitions = self._guarded(lambda client: client.list_tools())
        return self._definitions

    def call(
        self, tool: str, arguments: Mapping[str, Any], ctx: Any
    ) -> tuple[dict[str, Any], None]:
        """One ``tools/call`` over the wire; the view is read from its bytes when first asked.

        Read once for everything that reads it (``FusionResult.parsed``: the
        view, the gate's check, the wire snapshot's kinds), not here as well.
        """
        del ctx  # the server process makes its own context
        return self._guarded(lambda client: client.call(tool, dict(arguments))), None

    def _guarded(self, request: Callable[[BlockingFusionClient], _T]) -> _T:
        """Run ``request``; after a limit or a dead server, reconnect on the next call."""
        client = self._open()
        try:
            return request(client)
        except ServerLimitError:
            self._drop()  # the server may still be busy with the call: start afresh
            raise
        except ServerConnectionError as exc:  # the client classifies every way a peer goes away
            self._drop()
            if exc.returncode is not None:
                msg = str(exc)  # the client named the server, the call and how it ended
            else:
                msg = f"the MCP server {self._target!r} closed the connection: {_reason(exc)}"
            raise ServerConnectionError(msg + self._tail_unless_quoted(exc)) from exc

    async def call_async(
        self, tool: str, arguments: Mapping[str, Any], ctx: Any
    ) -> tuple[dict[str, Any], None]:
        """The blocking client, run in a worker thread."""
        import anyio.to_thread  # noqa: PLC0415 - lazy

        return await anyio.to_thread.run_sync(self.call, tool, arguments, ctx)

    def close(self) -> None:
        """Close the client, then stop a server this transport started."""
        try:
            self._drop()
            if self._errlog is not None:
                self._errlog.close()
        finally:
            if self._process is not None:
                self._process.terminate()
                try:
                    self._process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self._process.kill()
                    self._process.wait()


def _answer(response: object) -> tuple[dict[str, Any], ResponseView]:
    """An app's answer and its view: a ``ToolResponse``'s own, else read from the wire dict.

    ``ToolApp.call`` may return any MCP wire dict (an adapter of another
    framework's results does): its view is what its bytes say.
    """
    if isinstance(response, ToolResponse):
        return dict(response), view_of(response)
    if not isinstance(response, Mapping):
        msg = (
            f"the app's call() returned a {type(response).__qualname__}: it must return a "
            "ToolResponse or an MCP tool-result dict ({'content': [...]})"
        )
        raise TypeError(msg)
    wire = dict(response)
    return wire, parse(wire).view


def serve_command(app_spec: str, *extra: str) -> list[str]:
    """The command that serves ``app_spec`` with this interpreter."""
    return [sys.executable, "-m", "fusion_core", "serve", app_spec, *extra]


def _errlog() -> TextIO:
    """A file for a server's stderr (the SDK needs a real descriptor), read back on failures."""
    return cast("TextIO", tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace"))


def _tail(errlog: TextIO) -> str:
    """The last lines written to ``errlog``, as a message paragraph (or "")."""
    with contextlib.suppress(OSError, ValueError):
        errlog.flush()
        errlog.seek(0)
        lines = [line.rstrip() for line in errlog.read().splitlines() if line.strip()]
        errlog.seek(0, os.SEEK_END)
        if lines:
            # The server's own words: shown on the terminal, not obeyed.
            shown = "\n".join(f"  | {terminal_safe(line)}" for line in lines[-_STDERR_TAIL:])
            return f"\nthe server's stderr (last lines):\n{shown}"
    return ""


def _reason(exc: BaseException) -> str:
    """What went wrong, without the class names of the SDK's task groups."""
    if isinstance(exc, FileNotFoundError):
        return f"no such program: {exc.filename or exc}"
    text = str(exc)
    return text.split(": ", 1)[1] if text.startswith("could not connect to the MCP") else text


def _import_path() -> dict[str, str]:
    """``PYTHONPATH`` for a server subprocess: this process's import path.

    The app spec was importable here (rootdir, conftest directories, ``-p``
    paths); the server must import the same modules.
    """
    return {"PYTHONPATH": os.pathsep.join(entry or os.getcwd() for entry in sys.path)}


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _wait_for_port(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + _HTTP_START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            msg = f"the HTTP server exited with code {process.returncode} before listening"
            raise StartupError(msg)
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    process.terminate()
    msg = f"the HTTP server did not listen on 127.0.0.1:{port} within {_HTTP_START_TIMEOUT:.0f} s"
    raise StartupError(msg)


def open_transport(
    kind: str, *, app_spec: str | None, server: str | None, limits: Limits | None = None
) -> Transport:
    """The transport ``--fusion-transport`` names, for an app spec or a server.

    Raises :class:`StartupError` when the app cannot be loaded or the server
    does not start (the message names it and repeats its stderr's last lines).
    """
    limits = limits or Limits()
    if kind == "inproc":
        if app_spec is None:
            msg = "--fusion-transport=inproc needs --fusion-app (or the fusion_app ini key)"
            raise StartupError(msg)
        target = load(app_spec)
        if isinstance(target, ServerSource):  # MCPServer, FastMCP, Server: their own client
            from pytest_mcpfusion._inmemory import InMemory  # noqa: PLC0415 - it builds on Remote

            return InMemory(target, limits)
        return InProcess(target, limits)
    if kind == "stdio":
        if server is None and app_spec is None:
            msg = "--fusion-transport=stdio needs --fusion-server=COMMAND or --fusion-app"
            raise StartupError(msg)
        command: str | list[str]
        if server is not None:
            command, env = server, limits.server_env()
        else:
            spec = _checked(str(app_spec))
            command, env = serve_command(spec), limits.server_env() | _import_path()
        errlog = _errlog()
        return Remote(
            lambda: _stdio_client(command, env, errlog, limits),
            name="stdio",
            target=server or f"--fusion-app={app_spec}",
            errlog=errlog,
        )
    if kind == "http":
        if server is not None:
            return Remote(lambda: _http_client(server, limits), name="http", target=server)
        if app_spec is None:
            msg = "--fusion-transport=http needs --fusion-server=URL or --fusion-app"
            raise StartupError(msg)
        return _served_over_http(_checked(app_spec), limits)
    msg = f"--fusion-transport must be inproc, stdio or http, not {kind!r}"
    raise StartupError(msg)


def load(app_spec: str) -> ToolApp | ServerSource:
    """The app (or framework server) ``app_spec`` names; :class:`StartupError` says why not."""
    try:
        return load_target(app_spec)
    except AppLoadError as exc:
        msg = f"--fusion-app={app_spec}: {exc}"
        raise StartupError(msg) from exc
    except Exception as exc:  # the app's own module raised: say where
        frames = traceback.extract_tb(exc.__traceback__)
        where = f" (at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""
        msg = f"--fusion-app={app_spec}: importing it raised {type(exc).__name__}: {exc}{where}"
        raise StartupError(msg) from exc


def _checked(app_spec: str) -> str:
    """``app_spec``, once it loads here: a server would only die saying the same, later."""
    target = load(app_spec)
    if isinstance(target, ServerSource):
        msg = (
            f"--fusion-app={app_spec} names a {target.kind}, which runs in process (the "
            "default transport, --fusion-transport=inproc); to test it over stdio or HTTP, "
            "start it with its own runner: --fusion-server='python server.py'"
        )
        raise StartupError(msg)
    return app_spec


def _stdio_client(
    command: str | list[str], env: dict[str, str], errlog: TextIO, limits: Limits
) -> BlockingFusionClient:
    from fusion_core import BlockingFusionClient  # noqa: PLC0415 - mcp loads lazily

    try:
        return BlockingFusionClient.stdio(
            command,
            env=env,
            errlog=errlog,
            timeout=limits.timeout,
            max_response_bytes=limits.max_response_bytes,
        )
    except ValueError as exc:  # an empty command, for one
        raise StartupError(f"--fusion-server: {exc}") from exc


def _http_client(url: str, limits: Limits) -> BlockingFusionClient:
    from fusion_core import BlockingFusionClient  # noqa: PLC0415 - mcp loads lazily

    try:
        return BlockingFusionClient.http(
            url, timeout=limits.timeout, max_response_bytes=limits.max_response_bytes
        )
    except ValueError as exc:
        raise StartupError(f"--fusion-server: {exc}") from exc


def _served_over_http(app_spec: str, limits: Limits) -> Remote:
    port = _free_port()
    command = serve_command(app_spec, "--http", "--host", "127.0.0.1", "--port", str(port))
    errlog = _errlog()
    process = subprocess.Popen(  # noqa: S603 - our own interpreter and arguments
        command,
        stdout=subprocess.DEVNULL,
        stderr=errlog,
        env={**limits.server_env(), **_import_path()},
    )
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        try:
            _wait_for_port(port, process)
        except StartupError as exc:
            raise StartupError(f"--fusion-app={app_spec}: {exc}{_tail(errlog)}") from None
        return Remote(
            lambda: _http_client(url, limits),
            name="http",
            target=f"--fusion-app={app_spec} served at {url}",
            process=process,
            errlog=errlog,
        )
    except BaseException:  # whatever failed, nothing of the server stays open
        errlog.close()
        process.kill()
        process.wait()
        raise
