"""FusionClient over HTTP bounds every answer as it arrives, JSON bodies included.

The SDK's HTTP client caps a server-sent event but reads a JSON answer whole;
``FusionClient.http`` counts a JSON answer's bytes while they arrive and stops
at ``max_response_bytes``, so a hostile server cannot grow the test process.
A JSON answer compressed despite the client's ``Accept-Encoding: identity``
(a gzip bomb inflates past any count) is refused.
"""

from __future__ import annotations

import gzip
import warnings
from collections.abc import Mapping
from typing import Any, Final

import pytest

from fusion_core import FusionClient, ServerLimitError, ToolResponse, success
from tests._support.fake_app import OneToolApp
from tests._support.servers import serving, serving_asgi

pytestmark = pytest.mark.anyio

_BIG: Final = "y" * (4 << 20)
"""4 MiB of text: far over the limits the tests set."""


async def _answer(arguments: Mapping[str, Any] | None, _ctx: Any) -> ToolResponse:
    return success(_BIG if (arguments or {}).get("big") else "small")


def _app() -> OneToolApp:
    return OneToolApp("answer", _answer)


@pytest.mark.parametrize("json_response", [True, False], ids=["json", "sse"])
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_an_answer_over_the_limit_stops_as_it_arrives(json_response: bool, mode: str) -> None:
    """A 4 MiB answer against a 64 KiB limit: ServerLimitError, and the session goes on."""
    limit = 64 * 1024
    async with (
        serving(_app(), json_response=json_response) as url,
        FusionClient.http(url, mode=mode, max_response_bytes=limit) as client,
    ):
        with pytest.raises(ServerLimitError) as info:
            await client.call("answer", {"big": True})
        small = await client.call("answer", {})
        with pytest.raises(ServerLimitError):
            await client.call("answer", {"big": True})
        again = await client.call("answer", {})
    assert info.value.kind == "size"
    assert info.value.limit == limit
    assert "max_response_bytes=" in str(info.value)
    if json_response:
        # Counted while it arrived: stopped within a read of the limit, not at 4 MiB.
        assert info.value.received is not None
        assert limit < info.value.received < limit + (1 << 20)
    assert [block["text"] for block in small["content"]] == ["small"]
    assert again == small


async def test_a_json_answer_under_the_limit_arrives_whole() -> None:
    """The bound changes nothing below it: 4 MiB arrive with a limit of 8 MiB (the default)."""
    async with serving(_app()) as url, FusionClient.http(url) as client:
        answer = await client.call("answer", {"big": True})
    assert [block["text"] for block in answer["content"]] == [_BIG]


class _ToolAnswers:
    """ASGI middleware that rewrites every tool answer; the handshake stays as it was.

    ``gzipped``: compressed whatever the client accepts; ``content_type``: sent
    with that ``Content-Type`` instead.
    """

    def __init__(self, app: Any, *, gzipped: bool, content_type: bytes | None) -> None:
        self.app = app
        self.gzipped = gzipped
        self.content_type = content_type

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start: dict[str, Any] = {}
        body = bytearray()

        async def capture(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
                return
            body.extend(message.get("body", b""))
            if message.get("more_body"):
                return
            headers = list(start["headers"])
            data = bytes(body)
            if b'"content":[' in data:  # a tools/call answer
                if self.content_type is not None:
                    headers = [(k, v) for k, v in headers if k.lower() != b"content-type"]
                    headers.append((b"content-type", self.content_type))
                if self.gzipped:
                    data = gzip.compress(data)
                    headers.append((b"content-encoding", b"gzip"))
            headers = [(k, v) for k, v in headers if k.lower() != b"content-length"]
            headers.append((b"content-length", str(len(data)).encode()))
            await send({**start, "headers": headers})
            await send({"type": "http.response.body", "body": data})

        await self.app(scope, receive, capture)


def _asgi(
    *,
    gzipped: bool = False,
    content_type: bytes | None = None,
    polite_gzip: bool = False,
    instructions: str | None = None,
) -> Any:
    """The one-tool app's ASGI app (JSON answers).

    ``gzipped``, ``content_type``: its tool answers rewritten (:class:`_ToolAnswers`);
    ``polite_gzip``: every answer gzipped when the client accepts gzip
    (Starlette's ``GZipMiddleware``); ``instructions``: what its
    ``initialize`` answer carries.
    """
    from starlette.middleware.gzip import GZipMiddleware  # noqa: PLC0415

    from fusion_core import build_server  # noqa: PLC0415

    asgi: Any = build_server(_app(), instructions=instructions).streamable_http_app(
        json_response=True
    )
    if gzipped or content_type is not None:
        asgi = _ToolAnswers(asgi, gzipped=gzipped, content_type=content_type)
    if polite_gzip:
        asgi = GZipMiddleware(asgi, minimum_size=1)
    return asgi


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_a_json_answer_compressed_anyway_is_refused(mode: str) -> None:
    """A server that gzips JSON the client asked for uncompressed: a clear error, not a bomb."""
    from mcp import MCPError  # noqa: PLC0415

    async with serving_asgi(_asgi(gzipped=True)) as url:
        async with FusionClient.http(url, mode=mode) as client:
            with pytest.raises(MCPError, match="compressed its JSON answer \\(gzip\\)"):
                await client.call("answer", {})
            with pytest.raises(MCPError, match="compressed its JSON answer"):
                await client.call("answer", {})  # the session goes on
        async with FusionClient.http(url, mode=mode, max_response_bytes=None) as client:
            unbounded = await client.call("answer", {})  # no limit: inflated as sent
    assert [block["text"] for block in unbounded["content"]] == ["small"]


async def test_a_handshake_answer_over_the_limit_names_the_limit() -> None:
    """An ``initialize`` answer over the limit: the connection fails, saying which limit."""
    from fusion_core import ServerConnectionError  # noqa: PLC0415

    async with serving_asgi(_asgi(instructions="x" * (2 << 20))) as url:
        with pytest.raises(ServerConnectionError, match="the client's max_response_bytes"):
            async with FusionClient.http(url, mode="legacy", max_response_bytes=1 << 20):
                pass


async def _chatty(_arguments: Mapping[str, Any] | None, ctx: Any) -> ToolResponse:
    """100 log messages of 2 KiB on the call's stream, then a small answer."""
    from mcp.shared.exceptions import MCPDeprecationWarning  # noqa: PLC0415

    with warnings.catch_warnings():  # deprecated from 2026-07-28; sent on handshake sessions
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        for index in range(100):
            await ctx.session.send_log_message(
                "info", f"{index:03d} " + "z" * 2048, related_request_id=ctx.request_id
            )
    return success("small")


async def test_the_limit_is_per_message_not_per_stream() -> None:
    """An SSE stream of 200 KiB of small messages passes a 64 KiB limit: each one is under it."""
    app = OneToolApp("chatty", _chatty)
    async with (
        serving(app, context_factory=lambda request: request) as url,
        FusionClient.http(url, mode="legacy", max_response_bytes=64 * 1024) as client,
    ):
        answer = await client.call("chatty", {})
    assert [block["text"] for block in answer["content"]] == ["small"]


async def test_a_server_that_compresses_when_asked_answers_plainly() -> None:
    """The client asks for identity, so a server that honours Accept-Encoding does not gzip."""
    async with (
        serving_asgi(_asgi(polite_gzip=True)) as url,
        FusionClient.http(url, mode="legacy") as client,
    ):
        answer = await client.call("answer", {})
    assert [block["text"] for block in answer["content"]] == ["small"]


@pytest.mark.parametrize(
    "content_type", [b"application/JSON; charset=utf-8", b"application/json-seq"]
)
async def test_every_body_the_sdk_reads_whole_is_bounded(content_type: bytes) -> None:
    """The SDK reads whole any body whose type starts with application/json: so is it bounded."""
    limit = 64 * 1024
    async with (
        serving_asgi(_asgi(content_type=content_type)) as url,
        FusionClient.http(url, mode="legacy", max_response_bytes=limit) as client,
    ):
        with pytest.raises(ServerLimitError) as info:
            await client.call("answer", {"big": True})
    assert info.value.received is not None
    assert limit < info.value.received < limit + (1 << 20)
