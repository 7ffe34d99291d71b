"""A streamable HTTP client transport that bounds every JSON answer as it arrives.

The SDK's HTTP client caps one server-sent event (``max_sse_event_size``),
but reads a body whose ``Content-Type`` starts with ``application/json`` (an
answer, or the JSON-RPC error of a 4xx/5xx) whole, ``response.aread()``,
before anything can look at its size: a server that answers with gigabytes
grows the test process with them. This transport counts the bytes of every
such body while they arrive and gives up as soon as they pass the limit:
it records the overflow (:class:`~fusion_core._mcp._client_stdio.Overflow`) and raises
an ``httpx`` stream error, which the SDK turns into an error answer to the
pending request, and :class:`~fusion_core.FusionClient` reports the limit.

The bytes counted are the bytes of the message. The client asks for them
uncompressed (``Accept-Encoding: identity``); a JSON answer compressed
anyway is refused (a few kilobytes of gzip can inflate to gigabytes, past
any count of the bytes received). Server-sent events keep the SDK's own
per-event limit, which counts decoded text.

While :class:`~fusion_core._mcp._client_raw.RawAnswers` asks for them, each
JSON body and each server-sent event's data is offered to it as received,
for ``fusion call --raw``.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Final

import httpx2  # comes with mcp; this module is imported only to open an HTTP client

from fusion_core._mcp._client_stdio import Overflow

if TYPE_CHECKING:
    from mcp.client._transport import TransportStreams

    from fusion_core._mcp._client_raw import RawAnswers

__all__ = ["OVERFLOW_MARK", "SSE_OVERFLOW_MARK", "bounded_http"]

OVERFLOW_MARK: Final = "the JSON answer passed"
"""How the error of an answer that went over the limit begins (the SDK quotes it)."""

SSE_OVERFLOW_MARK: Final = "Server-sent event exceeded the"
"""How httpx's error for a server-sent event over ``max_sse_event_size`` begins."""


@contextlib.asynccontextmanager
async def bounded_http(
    url: str, *, overflow: Overflow, max_sse_event_size: int | None, raw: RawAnswers | None = None
) -> AsyncIterator[TransportStreams]:
    """The SDK's streamable HTTP transport to ``url``, its JSON answers bounded by ``overflow``.

    The SDK's own HTTP client (its timeouts, proxies from the environment),
    with a response hook that wraps each JSON body before it is read.
    """
    from mcp.client.streamable_http import streamable_http_client  # noqa: PLC0415
    from mcp.shared._httpx_utils import create_mcp_http_client  # noqa: PLC0415

    async def bound(response: httpx2.Response) -> None:
        # The SDK's own test of a body it reads whole (answers and error bodies alike).
        content_type = response.headers.get("content-type", "").lower()
        if content_type.startswith("application/json") and isinstance(
            response.stream, httpx2.AsyncByteStream
        ):
            encoding = response.headers.get("content-encoding", "identity").strip().lower()
            response.stream = _BoundedBody(response.stream, overflow, encoding=encoding, raw=raw)
        elif (
            raw is not None
            and raw.enabled
            and content_type.startswith("text/event-stream")
            and isinstance(response.stream, httpx2.AsyncByteStream)
        ):
            response.stream = _TappedEvents(response.stream, raw, limit=overflow.limit)

    http = create_mcp_http_client(headers={"Accept-Encoding": "identity"})
    http.event_hooks = {"request": [], "response": [bound]}
    async with (
        http,
        streamable_http_client(
            url, http_client=http, max_sse_event_size=max_sse_event_size
        ) as streams,
    ):
        yield streams


class _BoundedBody(httpx2.AsyncByteStream):
    """A response body that raises ``httpx.StreamError`` once it passes ``overflow.limit``."""

    def __init__(
        self,
        inner: httpx2.AsyncByteStream,
        overflow: Overflow,
        *,
        encoding: str,
        raw: RawAnswers | None = None,
    ) -> None:
        self._inner = inner
        self._overflow = overflow
        self._encoding = encoding
        self._raw = raw

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if self._encoding not in ("", "identity"):
            msg = (
                f"the server compressed its JSON answer ({self._encoding}) though the client "
                "asked for it uncompressed; its size cannot be bounded before it is inflated"
            )
            raise httpx2.StreamError(msg)
        received = 0
        kept = bytearray() if self._raw is not None and self._raw.enabled else None
        async for chunk in self._inner:
            received += len(chunk)
            if received > self._overflow.limit:
                self._overflow.received = received
                limit = self._overflow.limit
                msg = f"{OVERFLOW_MARK} {limit:,} bytes (the client's max_response_bytes)"
                raise httpx2.StreamError(msg)
            if kept is not None:
                kept += chunk
            yield chunk
        if kept is not None and self._raw is not None:
            self._raw.offer(bytes(kept))

    async def aclose(self) -> None:
        await self._inner.aclose()


class _TappedEvents(httpx2.AsyncByteStream):
    """A server-sent event stream passed on unchanged; each event's data offered to ``raw``.

    Events are read as the SSE specification says: lines end in LF, CR LF or
    CR; ``data:`` lines (one optional space after the colon) are joined with
    LF; a blank line ends the event. An event longer than ``limit`` is not
    kept (the SDK refuses it anyway).
    """

    def __init__(self, inner: httpx2.AsyncByteStream, raw: RawAnswers, *, limit: int) -> None:
        self._inner = inner
        self._raw = raw
        self._limit = limit

    async def __aiter__(self) -> AsyncIterator[bytes]:
        buffer = b""
        data: list[bytes] = []
        size = 0
        async for chunk in self._inner:
            # Read before passing on: the SDK stops reading at the response's event.
            buffer += chunk
            *lines, buffer = buffer.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
            for line in lines:
                if not line:
                    if data and size <= self._limit:
                        self._raw.offer(b"\n".join(data))
                    data, size = [], 0
                elif line.startswith(b"data:"):
                    value = line[5:].removeprefix(b" ")
                    size += len(value)
                    if size <= self._limit:
                        data.append(value)
            if len(buffer) > self._limit:  # one line past the limit: the event is not kept
                buffer, size = b"", self._limit + 1
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()
