"""How the plugin reaches the tools: in process, over stdio, or over HTTP.

Every transport answers a call with the MCP wire dict and the structured
view: in process the view is the response's hidden one, over a real
transport it is parsed from the bytes (``fusion_core.parse``), and the two
are equal for every response fusion_core builds. One transport is opened per
test session (per xdist worker) and closed at its end.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from fusion_core import ResponseView, load_app, parse, view_of

if TYPE_CHECKING:
    from anyio.from_thread import BlockingPortal

    from fusion_core import BlockingFusionClient, ToolApp

__all__ = ["InProcess", "Remote", "Transport", "open_transport", "serve_command"]

_HTTP_START_TIMEOUT = 30.0


class Transport(Protocol):
    """What the fixtures need from a transport."""

    name: str
    app: ToolApp | None

    def definitions(self) -> list[dict[str, Any]]:
        """The tools, as ``tools/list`` gives them."""

    def call(
        self, tool: str, arguments: Mapping[str, Any], ctx: Any
    ) -> tuple[dict[str, Any], ResponseView]:
        """One ``tools/call``: the wire dict and its view."""

    async def call_async(
        self, tool: str, arguments: Mapping[str, Any], ctx: Any
    ) -> tuple[dict[str, Any], ResponseView]:
        """The same, from inside a running event loop."""

    def close(self) -> None:
        """Release the event loop thread, the client and any server process."""


class InProcess:
    """Calls the app directly; one event loop thread serves every sync call."""

    name = "inproc"

    def __init__(self, app: ToolApp) -> None:
        self.app: ToolApp | None = app
        self._app = app
        self._loop: asyncio.AbstractEventLoop | None = None
        self._portal: BlockingPortal | None = None
        self._portal_cm: contextlib.AbstractContextManager[BlockingPortal] | None = None

    def definitions(self) -> list[dict[str, Any]]:
        """The app's tool definitions."""
        return self._app.definitions()

    def call(
        self, tool: str, arguments: Mapping[str, Any], ctx: Any
    ) -> tuple[dict[str, Any], ResponseView]:
        """Run ``app.call`` on the session's event loop.

        From sync code (no loop running in this thread) the session's own loop
        runs the call right here; from inside a running loop a portal thread
        does, since a loop cannot be re-entered.
        """
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
            response = self._loop.run_until_complete(self._app.call(tool, dict(arguments), ctx))
            return dict(response), view_of(response)
        if self._portal is None:
            from anyio.from_thread import start_blocking_portal  # noqa: PLC0415 - lazy

            self._portal_cm = start_blocking_portal()
            self._portal = self._portal_cm.__enter__()
        response = self._portal.call(self._app.call, tool, dict(arguments), ctx)
        return dict(response), view_of(response)

    async def call_async(
        self, tool: str, arguments: Mapping[str, Any], ctx: Any
    ) -> tuple[dict[str, Any], ResponseView]:
        """Await ``app.call`` in the test's own event loop."""
        response = await self._app.call(tool, dict(arguments), ctx)
        return dict(response), view_of(response)

    def close(self) -> None:
        """Close the session's loop and stop the portal thread."""
        if self._loop is not None:
            self._loop.run_until_complete(self._loop.shutdown_asyncgens())
            self._loop.close()
            self._loop = None
        if self._portal_cm is not None:
            self._portal_cm.__exit__(None, None, None)
            self._portal_cm = self._portal = None


class Remote:
    """Calls a server through the black-box client (stdio command or URL)."""

    def __init__(
        self,
        client: BlockingFusionClient,
        *,
        name: str,
        process: subprocess.Popen[bytes] | None = None,
    ) -> None:
        self.name = name
        self.app: ToolApp | None = None
        self._client = client
        self._process = process
        self._definitions: list[dict[str, Any]] | None = None
        client.__enter__()

    def definitions(self) -> list[dict[str, Any]]:
        """The server's ``tools/list``, fetched once."""
        if self._definitions is None:
            self._definitions = self._client.list_tools()
        return self._definitions

    def call(
        self, tool: str, arguments: Mapping[str, Any], ctx: Any
    ) -> tuple[dict[str, Any], ResponseView]:
        """One ``tools/call`` over the wire; the view is parsed from the bytes."""
        del ctx  # the server process makes its own context
        wire = self._client.call(tool, dict(arguments))
        return wire, parse(wire).view

    async def call_async(
        self, tool: str, arguments: Mapping[str, Any], ctx: Any
    ) -> tuple[dict[str, Any], ResponseView]:
        """The blocking client, run in a worker thread."""
        import anyio.to_thread  # noqa: PLC0415 - lazy

        return await anyio.to_thread.run_sync(self.call, tool, arguments, ctx)

    def close(self) -> None:
        """Close the client, then stop a server this transport started."""
        try:
            self._client.__exit__(None, None, None)
        finally:
            if self._process is not None:
                self._process.terminate()
                try:
                    self._process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self._process.kill()
                    self._process.wait()


def serve_command(app_spec: str, *extra: str) -> list[str]:
    """The command that serves ``app_spec`` with this interpreter."""
    return [sys.executable, "-m", "fusion_core", "serve", app_spec, *extra]


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
            raise RuntimeError(msg)
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    process.terminate()
    msg = f"the HTTP server did not listen on 127.0.0.1:{port} within {_HTTP_START_TIMEOUT:.0f} s"
    raise RuntimeError(msg)


def open_transport(kind: str, *, app_spec: str | None, server: str | None) -> Transport:
    """The transport ``--fusion-transport`` names, for an app spec or a server."""
    from fusion_core import BlockingFusionClient  # noqa: PLC0415 - mcp loads lazily

    if kind == "inproc":
        if app_spec is None:
            msg = "--fusion-transport=inproc needs --fusion-app (or the fusion_app ini key)"
            raise ValueError(msg)
        return InProcess(load_app(app_spec))
    if kind == "stdio":
        if server is not None:
            return Remote(BlockingFusionClient.stdio(server), name="stdio")
        if app_spec is None:
            msg = "--fusion-transport=stdio needs --fusion-server=COMMAND or --fusion-app"
            raise ValueError(msg)
        client = BlockingFusionClient.stdio(serve_command(app_spec), env=_import_path())
        return Remote(client, name="stdio")
    if kind == "http":
        if server is not None:
            return Remote(BlockingFusionClient.http(server), name="http")
        if app_spec is None:
            msg = "--fusion-transport=http needs --fusion-server=URL or --fusion-app"
            raise ValueError(msg)
        port = _free_port()
        command = serve_command(app_spec, "--http", "--host", "127.0.0.1", "--port", str(port))
        process = subprocess.Popen(  # noqa: S603 - our own interpreter and arguments
            command,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, **_import_path()},
        )
        try:
            _wait_for_port(port, process)
            client = BlockingFusionClient.http(f"http://127.0.0.1:{port}/mcp")
        except BaseException:
            process.kill()
            process.wait()
            raise
        return Remote(client, name="http", process=process)
    msg = f"--fusion-transport must be inproc, stdio or http, not {kind!r}"
    raise ValueError(msg)
