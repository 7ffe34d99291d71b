"""What one HTTP client may hold of ``serve_http`` (issue 25.10): time, connections, log lines.

Slow clients are real sockets on loopback, bounded in count (at most 150)
and time (deadlines of a fraction of a second in process; a few seconds for
the subprocess server, whose file limit is lowered to 128).
"""

from __future__ import annotations

import contextlib
import logging
import os
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import pytest

from fusion_core._mcp._server_http_limits import (
    RepeatFilter,
    default_max_connections,
    limited_protocol,
)
from tests._support.fake_app import FakeApp
from tests._support.servers import http_connection, post_initialize, serving

ROOT = Path(__file__).resolve().parents[3]
INITIALIZE = (
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
    b'"capabilities":{},"clientInfo":{"name":"probe","version":"0"}}}'
)


def _open(url: str) -> socket.socket:
    parsed = urlsplit(url)
    assert parsed.hostname is not None
    assert parsed.port is not None
    return socket.create_connection((parsed.hostname, parsed.port), timeout=10)


def _closed_within(sock: socket.socket, seconds: float) -> float | None:
    """Seconds until the server closes ``sock`` (reading what it sends), or None if it did not."""
    start = time.monotonic()
    sock.settimeout(seconds)
    try:
        while sock.recv(4096):
            pass
    except TimeoutError:
        return None
    except ConnectionResetError:
        pass
    return time.monotonic() - start


def _headers(url: str, length: int) -> bytes:
    parsed = urlsplit(url)
    return (
        f"POST {parsed.path} HTTP/1.1\r\nHost: {parsed.netloc}\r\n"
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
        f"Content-Length: {length}\r\n\r\n"
    ).encode()


SLOW_CLIENTS: dict[str, Callable[[str], bytes]] = {
    "sends nothing": lambda url: b"",
    "half a request line": lambda url: b"POST /mc",
    "headers without their end": lambda url: _headers(url, 10)[:-2],
}


@pytest.mark.anyio
@pytest.mark.parametrize("client", sorted(SLOW_CLIENTS))
async def test_a_client_slow_with_its_headers_is_disconnected(client: str) -> None:
    """Headers not complete within header_timeout: the connection is closed."""
    async with serving(FakeApp(), header_timeout=0.5) as url:

        def slow() -> float | None:
            with _open(url) as sock:
                sock.sendall(SLOW_CLIENTS[client](url))
                return _closed_within(sock, 5)

        waited = await anyio.to_thread.run_sync(slow)
    assert waited is not None, "the server held the connection"
    assert 0.3 < waited < 3


@pytest.mark.anyio
async def test_a_client_slow_with_its_body_is_disconnected() -> None:
    """Headers on time, then a body that stops short: closed after body_timeout."""
    async with serving(FakeApp(), header_timeout=5, body_timeout=0.5) as url:

        def slow() -> float | None:
            with _open(url) as sock:
                sock.sendall(_headers(url, len(INITIALIZE)) + INITIALIZE[:20])
                return _closed_within(sock, 5)

        waited = await anyio.to_thread.run_sync(slow)
    assert waited is not None, "the server held the connection"
    assert 0.3 < waited < 3


@pytest.mark.anyio
async def test_a_slow_client_that_finishes_in_time_is_answered() -> None:
    """The deadlines bound waiting, not sending: headers and body in pieces, on time, work."""
    async with serving(FakeApp(), header_timeout=2, body_timeout=2) as url:

        def in_pieces() -> bytes:
            with _open(url) as sock:
                request = _headers(url, len(INITIALIZE)) + INITIALIZE
                for start in range(0, len(request), 64):
                    sock.sendall(request[start : start + 64])
                    time.sleep(0.02)
                sock.settimeout(5)
                return sock.recv(65536)

        answer = await anyio.to_thread.run_sync(in_pieces)
    assert answer.startswith(b"HTTP/1.1 200 "), answer[:200]


@pytest.mark.anyio
async def test_at_the_connection_cap_a_slow_client_makes_room_for_a_call() -> None:
    """max_connections slow clients are open: the next call still gets an answer."""
    async with serving(FakeApp(), header_timeout=30, max_connections=8) as url:

        def crowded() -> int:
            with contextlib.ExitStack() as stack:
                for _ in range(8):
                    stack.enter_context(_open(url)).sendall(b"POST /m")
                time.sleep(0.2)
                with http_connection(url) as connection:
                    status, _, _ = post_initialize(connection, urlsplit(url).path)
                return status

        status = await anyio.to_thread.run_sync(crowded)
    assert status == 200


async def _echo(scope: Any, receive: Any, send: Any) -> None:
    """A minimal ASGI app that reads the whole body, then answers (no SDK session to end)."""
    if scope["type"] != "http":
        return
    while (await receive()).get("more_body"):
        pass
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


@pytest.mark.anyio
async def test_over_the_cap_with_no_slow_client_the_new_one_gets_503() -> None:
    """Every open connection is past its headers: a new one is refused with 503, not held."""
    import uvicorn  # noqa: PLC0415 - slow to import

    protocol = limited_protocol(header_timeout=30, body_timeout=30, max_connections=3)
    config = uvicorn.Config(_echo, host="127.0.0.1", port=0, http=protocol, log_level="error")
    server = uvicorn.Server(config)
    async with anyio.create_task_group() as group:
        group.start_soon(server.serve)
        while not server.started:
            await anyio.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        url = f"http://127.0.0.1:{port}/echo"

        def full() -> bytes:
            with contextlib.ExitStack() as stack:
                for _ in range(3):  # headers done, body pending: not making room
                    stack.enter_context(_open(url)).sendall(_headers(url, 100))
                time.sleep(0.2)
                with _open(url) as extra:
                    extra.settimeout(5)
                    return extra.recv(4096)

        answer = await anyio.to_thread.run_sync(full)
        server.should_exit = True
    assert answer.startswith(b"HTTP/1.1 503 "), answer


def test_the_default_cap_fits_the_file_limit() -> None:
    """1,000 connections, or what the file limit leaves beyond open files and 64 more."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    cap = default_max_connections()
    assert 1 <= cap <= 1000
    if soft != resource.RLIM_INFINITY:
        assert cap <= max(1, soft - len(os.listdir("/proc/self/fd")) - 64 + 1)


def test_a_repeated_log_message_is_kept_a_few_times_a_minute_then_counted() -> None:
    """20 lines of one message a minute; the next minute's first line says how many were dropped."""
    now = [0.0]
    kept = RepeatFilter(3, clock=lambda: now[0])

    def record(address: str) -> logging.LogRecord:
        return logging.LogRecord(
            "uvicorn.error", logging.ERROR, "", 0, "%s failed", (address,), None
        )

    assert [kept.filter(record(f"10.0.0.{i}")) for i in range(10)] == [True] * 3 + [False] * 7
    other = logging.LogRecord("asyncio", logging.ERROR, "", 0, "other", None, None)
    assert kept.filter(other)
    now[0] = 61.0
    later = record("10.0.0.99")
    assert kept.filter(later)
    assert later.getMessage() == "10.0.0.99 failed (and 7 more like it in the last minute)"


def _low_file_limit() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (128, 128))


@contextlib.contextmanager
def _server_with_a_low_file_limit() -> Iterator[tuple[subprocess.Popen[str], str, list[str]]]:
    """``fusion serve --http`` with RLIMIT_NOFILE 128; its URL and its stderr lines so far."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "fusion_core",
            "serve",
            "examples.billing.app:app",
            "--http",
            "--port",
            "0",
            "--header-timeout",
            "3",
        ],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        preexec_fn=_low_file_limit,  # noqa: PLW1509 - only setrlimit, before exec
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert process.stderr is not None
    lines: list[str] = []
    try:
        for line in process.stderr:
            lines.append(line)
            if " over streamable HTTP at " in line:
                break
        url = lines[-1].split(" at ", 1)[1].strip()
        stderr = process.stderr
        drain = threading.Thread(target=lambda: lines.extend(stderr), daemon=True)
        drain.start()
        yield process, url, lines
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)
        process.stderr.close()


def test_at_a_low_file_limit_slow_clients_neither_block_calls_nor_flood_the_log() -> None:
    """150 slow clients, a server allowed 128 files: calls answered, a short log, a prompt stop.

    Before the limits, the server held every connection until accept() failed,
    logged each failure, timed real calls out and did not stop on SIGTERM.
    """
    with _server_with_a_low_file_limit() as (process, url, lines), contextlib.ExitStack() as stack:
        slow = [stack.enter_context(_open(url)) for _ in range(150)]
        for sock in slow:
            with contextlib.suppress(OSError):
                sock.sendall(b"POST /mcp HTTP/1.1\r\n")
        started = time.monotonic()
        with http_connection(url) as connection:
            status, _, _ = post_initialize(connection, urlsplit(url).path)
        answered = time.monotonic() - started
        time.sleep(4)  # past the header deadline: the slow ones are closed
        process.send_signal(signal.SIGTERM)
        stopping = time.monotonic()
        process.wait(timeout=20)
        stopped = time.monotonic() - stopping
    assert status == 200
    assert answered < 5
    assert stopped < 8
    assert len(lines) < 100, f"{len(lines)} log lines"
    assert not any("out of system resource" in line for line in lines), lines[-5:]
