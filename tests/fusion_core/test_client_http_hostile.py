"""A hostile streamable HTTP server's answers: each one a plain, named error, never a group.

The server here is a raw ASGI app that completes the handshake properly and
then answers every ``tools/call`` with one hostile body (the class of answers
a server written without fusion_core can send). The client must end each
call with one exception that says what was wrong (the SDK's ``MCPError`` for
what it cannot parse, ``ServerLimitError`` for what never comes or is too
large), and keep serving the next call.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

import pytest

from fusion_core import FusionClient, ServerLimitError
from tests._support.servers import serving_asgi

pytestmark = pytest.mark.anyio

_HANDSHAKE: Final = {
    "protocolVersion": "2025-11-25",
    "capabilities": {"tools": {}},
    "serverInfo": {"name": "hostile", "version": "1"},
}


def _result(request_id: int, rest: bytes) -> bytes:
    return b'{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"x"}]%s}}' % (
        request_id,
        rest,
    )


# name -> (the body answering tools/call number ``id``, the error it must end with)
HOSTILE: Final[dict[str, tuple[Callable[[int], bytes], str]]] = {
    "deep nesting": (lambda i: _result(i, b',"x":' + b"[" * 100_000 + b"]" * 100_000), "parse"),
    "huge number": (lambda i: _result(i, b',"x":' + b"9" * 100_000), "parse"),
    "not JSON": (lambda i: b"<html>oops</html>", "parse"),
    "invalid UTF-8": (lambda i: _result(i, b',"x":"\xff\xfe"'), "parse"),
    "truncated": (lambda i: _result(i, b"")[:-7], "parse"),
    "empty": (lambda i: b"", "parse"),
    "another id": (lambda i: _result(i + 1000, b""), "timeout"),
    "a null id": (lambda i: b'{"jsonrpc":"2.0","id":null,"result":{}}', "parse"),
    "over the limit": (lambda i: _result(i, b',"x":"' + b"y" * (2 << 20) + b'"'), "size"),
}


def _hostile_app(body_of: Callable[[int], bytes]) -> Any:
    """A raw ASGI MCP server: a proper handshake, then ``body_of(id)`` for every call but "ok"."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        body = b""
        more = True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        request = json.loads(body) if scope["method"] == "POST" else {}
        if "id" not in request:  # a notification, or the GET stream this server has not
            status = 202 if scope["method"] == "POST" else 405
            await send({"type": "http.response.start", "status": status, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        if request["method"] == "initialize":
            out = json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": _HANDSHAKE})
            answer = out.encode()
        elif request["params"]["name"] == "ok":
            answer = _result(request["id"], b"")
        else:
            answer = body_of(request["id"])
        headers = [(b"content-type", b"application/json")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": answer})

    return app


@pytest.mark.parametrize("case", HOSTILE)
async def test_a_hostile_answer_ends_its_call_with_one_named_error(case: str) -> None:
    """One exception naming the problem, then the next call is answered."""
    from mcp import MCPError  # noqa: PLC0415

    body_of, kind = HOSTILE[case]
    async with (
        serving_asgi(_hostile_app(body_of)) as url,
        FusionClient.http(url, mode="legacy", timeout=2, max_response_bytes=1 << 20) as client,
    ):
        with pytest.raises((MCPError, ServerLimitError)) as info:
            await client.call("hostile", {})
        after = await client.call("ok", {})
    error = info.value
    if kind == "parse":
        assert isinstance(error, MCPError)
        assert "Failed to parse JSON response" in str(error)
    else:
        assert isinstance(error, ServerLimitError)
        assert error.kind == kind
    assert [block["text"] for block in after["content"]] == ["x"]
