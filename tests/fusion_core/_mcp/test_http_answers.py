"""How ``serve_http`` answers: one JSON body unless a handler can stream, sent without delay.

Without a ``context_factory`` a handler has no way to send anything while it
runs, so an SSE stream would only ever carry the answer: the server answers
with ``application/json`` (half the server's time per call). With one, the
stream carries the handler's progress and log messages. Connections are
served without Nagle's algorithm (a JSON answer leaves in two writes, and the
second one waited for the client's delayed ACK: 44 ms a call on Linux).
"""

from __future__ import annotations

import asyncio
import gc
import http.client
import logging
import socket
from collections.abc import Mapping
from typing import Any, Final
from urllib.parse import urlsplit

import anyio
import pytest
import uvicorn

from fusion_core import ToolResponse, success
from fusion_core._errors import leaves
from fusion_core._mcp._server_http import _without_nagle
from tests._support.fake_app import OneToolApp
from tests._support.servers import http_connection, ipv6_loopback, post_initialize, serving

pytestmark = pytest.mark.anyio


async def _report_progress(_arguments: Mapping[str, Any] | None, ctx: Any) -> ToolResponse:
    """Reports progress through the SDK request context it is given, then answers."""
    if ctx is not None and ctx.meta is not None:
        token = ctx.meta.get("progress_token")
        if token is not None:
            await ctx.session.send_progress_notification(
                token, 0.5, total=1.0, message="half way", related_request_id=ctx.request_id
            )
    return success({"done": True})


def _progress_app() -> OneToolApp:
    return OneToolApp("work", _report_progress)


def _request_context(request: Any) -> Any:
    return request


def _initialize(connection: http.client.HTTPConnection, path: str) -> tuple[str, bytes]:
    """POST ``initialize``; the answer's ``Content-Type`` and body."""
    status, content_type, body = post_initialize(connection, path, version="2025-11-25")
    assert status == 200
    return content_type, body


@pytest.mark.parametrize(
    ("options", "content_type"),
    [
        ({}, "application/json"),
        ({"context_factory": _request_context}, "text/event-stream"),
        ({"json_response": False}, "text/event-stream"),
        ({"context_factory": _request_context, "json_response": True}, "application/json"),
    ],
    ids=["default", "context-factory", "sse-asked", "json-asked"],
)
async def test_answers_are_json_unless_a_handler_can_stream(
    options: dict[str, Any], content_type: str
) -> None:
    """JSON by default; an SSE stream when a context factory lets handlers send, or when asked."""
    async with serving(_progress_app(), **options) as url:

        def answer() -> tuple[str, bytes]:
            with http_connection(url) as connection:
                return _initialize(connection, urlsplit(url).path)

        got_type, body = await anyio.to_thread.run_sync(answer)
    assert got_type.split(";")[0] == content_type
    assert b'"protocolVersion":"2025-11-25"' in body


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_with_a_context_factory_progress_reaches_the_client(mode: str) -> None:
    """The handler's progress notification travels on the call's SSE stream, before the answer."""
    from mcp import Client  # noqa: PLC0415

    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    async with (
        serving(_progress_app(), context_factory=_request_context) as url,
        Client(url, mode=mode, read_timeout_seconds=15) as client,
    ):
        result = await client.call_tool("work", {}, progress_callback=on_progress)
    assert not result.is_error
    assert seen == [(0.5, 1.0, "half way")]


async def test_json_answers_drop_what_a_handler_sends_and_keep_the_answer() -> None:
    """Asked for JSON with a context factory: the answer arrives; the progress has no wire."""
    from mcp import Client  # noqa: PLC0415

    seen: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(progress)

    async with (
        serving(_progress_app(), context_factory=_request_context, json_response=True) as url,
        Client(url, mode="legacy", read_timeout_seconds=15) as client,
    ):
        result = await client.call_tool("work", {}, progress_callback=on_progress)
    assert not result.is_error
    assert seen == []


def _listener(host: str) -> socket.socket:
    """A listening socket bound as ``serve_http`` binds it (uvicorn's ``bind_socket``)."""
    return _without_nagle(uvicorn.Config(app="unused:app", host=host, port=0).bind_socket())


@pytest.mark.parametrize("host", ["127.0.0.1", "::1"])
async def test_served_connections_have_no_nagle_delay(host: str) -> None:
    """The listener's connections are served with TCP_NODELAY, as asyncio's own are."""
    if ":" in host and not ipv6_loopback():
        pytest.skip("this machine has no IPv6 loopback")
    listener = _listener(host)
    assert listener.proto == socket.IPPROTO_TCP
    accepted: asyncio.Queue[Any] = asyncio.Queue()

    class _Protocol(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            accepted.put_nowait(transport.get_extra_info("socket"))

    loop = asyncio.get_running_loop()
    server = await loop.create_server(_Protocol, sock=listener)
    try:
        address = listener.getsockname()[:2]
        _reader, writer = await asyncio.open_connection(*address)
        try:
            served = await asyncio.wait_for(accepted.get(), 15)
            assert served.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
        finally:
            writer.close()
            await writer.wait_closed()
    finally:
        server.close()
        await server.wait_closed()


async def test_serve_http_connections_have_no_nagle_delay() -> None:
    """End to end: the server's side of a client's connection has TCP_NODELAY set."""
    async with serving(_progress_app()) as url:
        with http_connection(url) as connection:
            await anyio.to_thread.run_sync(_initialize, connection, urlsplit(url).path)
            assert connection.sock is not None
            client_end = connection.sock.getsockname()
            served = [
                sock
                for sock in gc.get_objects()
                if isinstance(sock, socket.socket)
                and sock.fileno() != -1
                and sock.type == socket.SOCK_STREAM
                and _peer(sock) == client_end
            ]
            assert len(served) == 1
            assert served[0].getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0


def _peer(sock: socket.socket) -> Any:
    try:
        return sock.getpeername()
    except OSError:
        return None


_LARGE: Final = "x" * (2 << 20)
"""2 MiB of text: over the SDK client's default SSE event limit (1 MiB)."""


async def _large(_arguments: Mapping[str, Any] | None, _ctx: Any) -> ToolResponse:
    return success(_LARGE)


def _large_app() -> OneToolApp:
    return OneToolApp("large", _large)


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_a_json_answer_reaches_a_default_sdk_client_at_any_size(mode: str) -> None:
    """The SDK client caps one SSE event at 1 MiB by default, not a JSON body: 2 MiB arrive."""
    from mcp import Client  # noqa: PLC0415

    async with (
        serving(_large_app()) as url,
        Client(url, mode=mode, read_timeout_seconds=30) as client,
    ):
        result = await client.call_tool("large", {})
    assert not result.is_error
    assert [getattr(block, "text", None) for block in result.content] == [_LARGE]


async def test_a_streamed_answer_over_the_sdk_event_limit_needs_a_client_that_lifts_it() -> None:
    """As one SSE event, 2 MiB pass only a client that lifts the SDK's limit (FusionClient)."""
    from mcp import Client  # noqa: PLC0415

    from fusion_core import FusionClient  # noqa: PLC0415

    async with serving(_large_app(), json_response=False) as url:
        refused: list[BaseException] = []
        try:
            async with Client(url, mode="legacy", read_timeout_seconds=10) as client:
                await client.call_tool("large", {})
        except Exception as error:  # noqa: BLE001 - the SDK raises a group; read its leaves
            refused = leaves(error)
        assert any("exceeded the 1048576 byte limit" in str(leaf) for leaf in refused), refused
        async with FusionClient.http(url, mode="legacy") as fusion:
            answer = await fusion.call("large", {})
    assert [block["text"] for block in answer["content"]] == [_LARGE]


@pytest.mark.parametrize("json_response", [True, False], ids=["json", "sse"])
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_an_http_server_survives_results_it_cannot_encode(
    json_response: bool, mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Lone surrogates or objects in a result, either answer form: envelopes, then serving on."""
    from mcp import Client  # noqa: PLC0415

    from tests._support.hostile_results import HOSTILE_RESULTS, hostile_app  # noqa: PLC0415

    with caplog.at_level(logging.CRITICAL, logger="fusion_core.server"):
        async with (
            serving(hostile_app, json_response=json_response) as url,
            Client(url, mode=mode, read_timeout_seconds=15) as client,
        ):
            for name in [*HOSTILE_RESULTS, *HOSTILE_RESULTS]:
                result = await client.call_tool(name, {})
                assert result.is_error is (name != "fine"), name
                text = getattr(result.content[0], "text", "")
                if name == "fine":
                    assert text == "still serving ✓"
                else:
                    assert text.startswith('<tool_error code="INTERNAL_ERROR"'), name
