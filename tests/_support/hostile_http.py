"""A hostile streamable HTTP MCP server: a proper handshake, then one hostile answer a call.

The class of answers a server written without fusion_core can send (deep
nesting, huge numbers, not JSON, invalid UTF-8, truncated, empty, another
id, a null id, over the size limit); each row names the error class the
client must end the call with.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

__all__ = ["HOSTILE", "asgi_request", "hostile_asgi_app"]

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


async def asgi_request(scope: Any, receive: Any, send: Any) -> dict[str, Any] | None:
    """The JSON-RPC request of one ASGI call; ``None`` when it is answered already.

    Lifespan events are acknowledged, a notification gets 202 and the GET
    stream (which these test servers do not offer) 405.
    """
    if scope["type"] == "lifespan":
        while (await receive())["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return None
    body, more = b"", True
    while more:
        message = await receive()
        body += message.get("body", b"")
        more = message.get("more_body", False)
    request: dict[str, Any] = json.loads(body) if scope["method"] == "POST" else {}
    if "id" not in request:
        status = 202 if scope["method"] == "POST" else 405
        await send({"type": "http.response.start", "status": status, "headers": []})
        await send({"type": "http.response.body", "body": b""})
        return None
    return request


def hostile_asgi_app(body_of: Callable[[int], bytes]) -> Any:
    """A raw ASGI MCP server: a proper handshake, then ``body_of(id)`` for every call but "ok"."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        request = await asgi_request(scope, receive, send)
        if request is None:
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
