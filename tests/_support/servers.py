"""Servers started as a user starts them, for the tests that talk to them over HTTP."""

from __future__ import annotations

import contextlib
import functools
import gc
import http.client
import os
import socket
import subprocess
import threading
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

import anyio

from fusion_core import serve_http as serve_in_process
from fusion_core._mcp._server import ToolApp

__all__ = [
    "http_connection",
    "ipv6_loopback",
    "post_initialize",
    "serve_http",
    "serving",
    "serving_asgi",
]

_LISTENING: Final = " over streamable HTTP at "


@contextlib.contextmanager
def serve_http(
    command: Sequence[str], *, cwd: Path, env: Mapping[str, str] | None = None
) -> Iterator[str]:
    """Run ``command`` (a ``serve ... --http --port 0``); yield the URL it prints on stderr.

    The rest of its stderr is drained (a full pipe would block the server);
    the server is stopped, and waited for, on exit.
    """
    process = subprocess.Popen(
        list(command),
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )
    assert process.stderr is not None
    drain: threading.Thread | None = None
    try:
        lines: list[str] = []
        for line in process.stderr:  # ends when the process exits
            lines.append(line)
            if _LISTENING in line:
                drain = threading.Thread(target=process.stderr.read, daemon=True)
                drain.start()
                yield line.split(" at ", 1)[1].strip()
                return
        msg = f"the server exited without saying where it listens: {lines}"
        raise AssertionError(msg)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        if drain is not None:
            drain.join(timeout=10)
        process.stderr.close()


@contextlib.asynccontextmanager
async def serving(app: ToolApp, host: str = "127.0.0.1", **options: Any) -> AsyncIterator[str]:
    """``fusion_core.serve_http(app)`` in this process on a free port of ``host``; its URL.

    ``options`` go to ``serve_http``; the server is cancelled on exit. A
    server freezes its process's start-up heap (``gc.freeze``): the test's
    process is given back as it was, so no later test in it runs with a
    frozen heap it did not make.
    """
    frozen_before = gc.get_freeze_count()
    try:
        async with _serving(app, host, **options) as url:
            yield url
    finally:
        if not frozen_before:
            gc.unfreeze()


@contextlib.asynccontextmanager
async def _serving(app: ToolApp, host: str, **options: Any) -> AsyncIterator[str]:
    ready = anyio.Event()
    urls: list[str] = []

    def listening(url: str) -> None:
        urls.append(url)
        ready.set()

    async with anyio.create_task_group() as group:
        serve = functools.partial(
            serve_in_process, app, host=host, port=0, on_listening=listening, **options
        )
        group.start_soon(serve)
        with anyio.fail_after(15):
            await ready.wait()
        try:
            yield urls[0]
        finally:
            group.cancel_scope.cancel()


def ipv6_loopback() -> bool:
    """Whether this machine can bind ``::1`` (some containers have no IPv6)."""
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@contextlib.asynccontextmanager
async def serving_asgi(asgi: Any) -> AsyncIterator[str]:
    """Any ASGI app (``/mcp`` inside), served by uvicorn in this process on a free loopback port.

    Yields the URL of ``/mcp``; the server is cancelled and its socket closed on exit.
    """
    import uvicorn  # noqa: PLC0415 - comes with mcp, slow to import

    config = uvicorn.Config(asgi, host="127.0.0.1", port=0, log_level="critical")
    with socket.create_server(("127.0.0.1", 0)) as sock:
        async with anyio.create_task_group() as group:
            group.start_soon(functools.partial(uvicorn.Server(config).serve, sockets=[sock]))
            try:
                yield f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
            finally:
                group.cancel_scope.cancel()


@contextlib.contextmanager
def http_connection(url: str) -> Iterator[http.client.HTTPConnection]:
    """A plain ``http.client`` connection to ``url``'s host and port; closed on exit."""
    parsed = urlsplit(url)
    assert parsed.hostname is not None
    connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=15)
    try:
        yield connection
    finally:
        connection.close()


def post_initialize(
    connection: http.client.HTTPConnection,
    path: str,
    headers: Mapping[str, str] | None = None,
    *,
    version: str = "2025-06-18",
) -> tuple[int, str, bytes]:
    """POST an MCP ``initialize`` of ``version`` (``headers`` may forge ``Host``).

    The answer's status, ``Content-Type`` and body.
    """
    body = (
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"%s",'
        b'"capabilities":{},"clientInfo":{"name":"probe","version":"0"}}}' % version.encode()
    )
    extra = dict(headers or {})
    connection.putrequest("POST", path, skip_host="Host" in extra)
    sent = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "Content-Length": str(len(body)),
        **extra,
    }
    for key, value in sent.items():
        connection.putheader(key, value)
    connection.endheaders(body)
    response = connection.getresponse()
    return response.status, response.getheader("Content-Type", ""), response.read()
