"""A lean MCP stdio load client: JSON-RPC lines written and read with orjson, nothing else.

The ``mcp`` SDK's client costs more CPU per call than either server it is
measured against (pydantic models both ways, memory streams, a task per
message), and on a small machine it shares the cores with them: a ratio of
two servers' calls per second measured through it is pulled towards 1.0 by
its own cost. This client does the MCP handshake, then writes ``tools/call``
requests and matches the answers by id, so that the servers' own work is
what the rates differ by. The same client drives both servers.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping
from typing import Any

import anyio
import orjson
from anyio.abc import Process

__all__ = ["LineClient", "line_client"]


class LineClient:
    """One server process, spoken to in JSON-RPC lines."""

    def __init__(self, process: Process) -> None:
        assert process.stdin is not None
        assert process.stdout is not None
        self.process = process
        self._stdin = process.stdin
        self._stdout = process.stdout
        self._buffer = b""
        self._next_id = 0
        self._waiting: dict[int, anyio.Event] = {}
        self._answers: dict[int, Any] = {}
        self.protocol_version = ""

    async def _send(self, message: Mapping[str, Any]) -> None:
        await self._stdin.send(orjson.dumps(message) + b"\n")

    async def _read_loop(self) -> None:
        """Read answers for ever, waking the caller waiting for each id."""
        while True:
            while b"\n" not in self._buffer:
                self._buffer += await self._stdout.receive()
            line, self._buffer = self._buffer.split(b"\n", 1)
            message = orjson.loads(line)
            ident = message.get("id")
            if ident in self._waiting:
                self._answers[ident] = message
                self._waiting.pop(ident).set()

    async def request(self, method: str, params: Mapping[str, Any]) -> Any:
        """Send one request and return its ``result`` (an error answer raises)."""
        self._next_id += 1
        ident = self._next_id
        event = self._waiting[ident] = anyio.Event()
        await self._send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        await event.wait()
        answer = self._answers.pop(ident)
        if "error" in answer:
            raise RuntimeError(f"{method} failed: {answer['error']}")
        return answer["result"]

    async def call_tool(self, name: str, arguments: Mapping[str, Any]) -> Any:
        """``tools/call``; the result dict as the server wrote it."""
        return await self.request("tools/call", {"name": name, "arguments": arguments})


@contextlib.asynccontextmanager
async def line_client(
    command: list[str], *, env: Mapping[str, str], cwd: str, protocol_version: str
) -> AsyncIterator[LineClient]:
    """A started server, past the handshake (``initialize``, ``notifications/initialized``)."""
    async with await anyio.open_process(
        command, env=dict(env), cwd=cwd, stderr=None
    ) as process, anyio.create_task_group() as group:  # fmt: skip
        client = LineClient(process)
        group.start_soon(client._read_loop)
        result = await client.request(
            "initialize",
            {
                "protocolVersion": protocol_version,
                "capabilities": {},
                "clientInfo": {"name": "bench_serve", "version": "0"},
            },
        )
        client.protocol_version = result["protocolVersion"]
        await client._send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        try:
            yield client
        finally:
            group.cancel_scope.cancel()
            await client._stdin.aclose()
            with anyio.move_on_after(5):
                await process.wait()
            if process.returncode is None:
                process.kill()
