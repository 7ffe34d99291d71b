r"""A server whose encoder is not ours: key order, number spelling and escapes of its own.

``RESULT`` is the exact text of its ``tools/call`` result: keys out of sorted
order (``structuredContent`` before ``content``, ``z`` before ``a``), numbers
as ``1.50`` and ``1E2`` (which ``json.dumps`` writes ``1.5`` and ``100.0``),
an escaped ``\\u00e9`` and spaces where ``json.dumps`` writes none.
``fusion call --raw`` must print it as it is. Served over stdio
(:func:`raw_stdio_server`) and over streamable HTTP as one JSON body or as a
server-sent event (:func:`raw_asgi_app`).
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any, Final

from tests._support.hostile_http import asgi_request

__all__ = ["RESULT", "raw_asgi_app", "raw_stdio_server"]

RESULT: Final = (
    '{"structuredContent": {"z": 1.50, "a": 1E2, "name": "caf\\u00e9"},  '
    '"content": [{"type": "text", "text": "{\\"z\\": 1.50}"}], "isError": false}'
)

_HANDSHAKE: Final = {
    "protocolVersion": "2025-11-25",
    "capabilities": {"tools": {}},
    "serverInfo": {"name": "raw", "version": "1"},
}


def _answer(request: dict[str, Any]) -> bytes:
    """The JSON-RPC answer to ``request``, the call's result spelled as ``RESULT``."""
    if request["method"] == "initialize":
        return json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": _HANDSHAKE}).encode()
    if request["method"] == "tools/call":
        return f'{{"jsonrpc": "2.0", "id": {request["id"]}, "result": {RESULT}}}'.encode()
    error = {"code": -32601, "message": f"no {request['method']}"}
    return json.dumps({"jsonrpc": "2.0", "id": request["id"], "error": error}).encode()


_STDIO_SERVER: Final = """
import json, sys
sys.path.insert(0, {root!r})
from tests._support.raw_answers import _answer
for line in sys.stdin:
    request = json.loads(line)
    if "id" in request:
        sys.stdout.buffer.write(_answer(request) + b"\\n")
        sys.stdout.flush()
"""


def raw_stdio_server(directory: Path) -> str:
    """Write the stdio server into ``directory``; its command line."""
    script = directory / "raw_server.py"
    root = str(Path(__file__).resolve().parents[2])
    script.write_text(_STDIO_SERVER.format(root=root), encoding="utf-8")
    return shlex.join([sys.executable, str(script)])


def raw_asgi_app(*, sse: bool) -> Any:
    """The server over streamable HTTP; with ``sse`` each answer is one server-sent event."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        request = await asgi_request(scope, receive, send)
        if request is None:
            return
        answer = _answer(request)
        kind = b"text/event-stream" if sse else b"application/json"
        if sse:  # a notification first: the response is not the only message of the stream
            note = b'{"jsonrpc": "2.0", "method": "notifications/message", "params": '
            note += b'{"level": "info", "data": "working"}}'
            answer = b"event: message\r\ndata: " + note + b"\r\n\r\ndata: " + answer + b"\r\n\r\n"
        await send(
            {"type": "http.response.start", "status": 200, "headers": [(b"content-type", kind)]}
        )
        await send({"type": "http.response.body", "body": answer})

    return app
