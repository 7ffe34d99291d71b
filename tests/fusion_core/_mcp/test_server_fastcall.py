"""The stdio fast path for ``tools/call`` writes what the SDK's dispatcher writes, byte for byte.

``serve_stdio`` answers a plain ``tools/call`` beside the SDK
(``fusion_core._mcp._server_fastcall``). Each request stream here is served
twice, in a subprocess: as served, and with the fast path switched off (the
SDK answers everything); the two stdouts must be the same bytes, and the
served run must have taken the calls it may take. The streams cover every
handshake version, results of every shape (text, structured, refused
structured content, the app's envelopes, results the SDK cannot encode, an
app that raises), ids of both types, what the fast path leaves to the SDK
(bad params, ``_meta``, other methods), a call the client cancels, and calls
still running at the end of input.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Mapping
from typing import Any, Final

import anyio
import pytest
from mcp.server.caching import CacheHint
from mcp_types import JSONRPCNotification, JSONRPCRequest, JSONRPCResponse
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from fusion_core import ToolResponse, success, success_structured
from fusion_core._mcp import _server_fastcall
from fusion_core._mcp._server import build_server
from fusion_core._mcp._server_fastcall import FastCalls, fast_calls_for
from fusion_core._mcp._server_stdio import PipeWriter
from tests._support.fake_app import CALLS, ROOT, FakeApp
from tests._support.hostile_results import HOSTILE_RESULTS


class _ShapesApp(FakeApp):
    """The fake app's tools, plus results of every other shape and two slow tools."""

    def definitions(self) -> list[dict[str, Any]]:
        names = ("listy", "boom", "slow", "sync_slow", *HOSTILE_RESULTS)
        extra = [{"name": name, "inputSchema": {"type": "object"}} for name in names]
        return [*super().definitions(), *extra]

    async def call(
        self, name: str, arguments: Mapping[str, Any] | None, ctx: Any = None
    ) -> ToolResponse:
        if name == "listy":  # not an object: refused before 2026-07-28
            return success_structured([1, 2])
        if name == "boom":
            msg = "a pipeline bug"
            raise RuntimeError(msg)
        if name == "slow":
            await anyio.sleep(60)
            return success("late")
        if name == "sync_slow":
            await anyio.to_thread.run_sync(_sleep_briefly)
            return success("after a worker thread")
        if name in HOSTILE_RESULTS:
            return HOSTILE_RESULTS[name]  # type: ignore[return-value]  # a wire dict, as served
        return await super().call(name, arguments, ctx)


def _sleep_briefly() -> None:
    """Work in a worker thread, as a sync tool's."""
    import time  # noqa: PLC0415

    time.sleep(0.01)


shapes_app: Final = _ShapesApp()
"""Served by the subprocesses of this module."""

_SERVE: Final = textwrap.dedent(
    """
    import sys

    import anyio

    from fusion_core._mcp import _server_fastcall
    from fusion_core._mcp._server import load_app, serve_stdio

    taken = 0
    if sys.argv[1] == "sdk":
        _server_fastcall.fast_calls_for = lambda *args: None
    else:
        take = _server_fastcall.FastCalls.take

        def counted(self, message):
            global taken
            done = take(self, message)
            taken += done
            return done

        _server_fastcall.FastCalls.take = counted
    anyio.run(serve_stdio, load_app(sys.argv[2]))
    print(f"fast calls: {taken}", file=sys.stderr)
    """
)

Step = tuple[dict[str, Any], Any]  # a message, and the id whose answer to wait for (None: none)


def _request(ident: Any, method: str, params: Any = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": ident, "method": method}
    if params is not None:
        message["params"] = params
    return message


def _call(ident: Any, name: Any, arguments: Any = None, **extra: Any) -> Step:
    params: dict[str, Any] = {"name": name, **extra}
    if arguments is not None:
        params["arguments"] = arguments
    return _request(ident, "tools/call", params), ident


def _opening(version: str) -> list[Step]:
    initialize = {
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": {"name": "fastcall-test", "version": "0"},
    }
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    return [(_request(0, "initialize", initialize), 0), (initialized, None)]


def _serve(mode: str, steps: list[Step]) -> tuple[bytes, str]:
    """Send ``steps`` to a served ``shapes_app``; its whole stdout, and its stderr."""
    command = [sys.executable, "-c", _SERVE, mode, f"{__name__}:shapes_app"]
    pipe = subprocess.PIPE
    with subprocess.Popen(command, cwd=ROOT, stdin=pipe, stdout=pipe, stderr=pipe) as process:
        assert process.stdin is not None
        assert process.stdout is not None
        out = bytearray()
        try:
            for message, answer in steps:
                process.stdin.write(json.dumps(message).encode() + b"\n")
                process.stdin.flush()
                while answer is not None:
                    line = process.stdout.readline()
                    assert line.endswith(b"\n"), (mode, message, bytes(out[-300:]))
                    out += line
                    if json.loads(line).get("id") == answer:
                        break
            rest, stderr = process.communicate(timeout=60)  # closes stdin: the end of input
            out += rest
        finally:
            if process.poll() is None:
                process.kill()
    assert process.returncode == 0, stderr.decode()[-2000:]
    return bytes(out), stderr.decode()


def _taken(stderr: str) -> int:
    return int(stderr.rsplit("fast calls: ", 1)[1].split(maxsplit=1)[0])


def _assert_same_bytes(steps: list[Step], fast: int, *, in_any_order: bool = False) -> bytes:
    """Both runs write the same stdout; the served one took ``fast`` calls.

    ``in_any_order``: the same lines, in any order (the answers of calls
    cancelled together come in the order the event loop resumes them).
    """
    served, served_log = _serve("served", steps)
    sdk, sdk_log = _serve("sdk", steps)
    if in_any_order:
        assert sorted(served.splitlines()) == sorted(sdk.splitlines())
    else:
        assert served == sdk
    assert _taken(served_log) == fast
    assert _taken(sdk_log) == 0
    return served


@pytest.mark.parametrize("version", HANDSHAKE_PROTOCOL_VERSIONS)
def test_every_result_shape_is_answered_with_the_sdks_bytes(version: str) -> None:
    """Text, structured, refused, envelopes, unencodable, raising: the SDK's bytes, each version."""
    calls = [_call(10 + n, name, arguments) for n, (name, arguments) in enumerate(CALLS.values())]
    calls += [_call(f"s-{name}", name, {}) for name in HOSTILE_RESULTS]
    calls += [_call(30, "listy", {}), _call(31, "boom", {}), _call(32, "sync_slow", {})]
    calls += [_call("7", "echo", {"text": "a string id that reads as an int"})]
    out = _assert_same_bytes([*_opening(version), *calls], fast=len(calls))
    answers = [json.loads(line) for line in out.splitlines()]
    assert [answer["id"] for answer in answers] == [0, *(step[1] for step in calls)]
    assert answers[-4]["error"]["message"] == "Handler returned an invalid result"  # listy


def test_what_the_fast_path_leaves_is_answered_by_the_sdk_alike() -> None:
    """Bad params, ``_meta``, other methods, a call before the handshake: the SDK answers them."""
    steps = [
        _call(1, "echo", {"text": "before initialize"}),
        *_opening("2025-11-25"),
        _call(2, "echo", {"text": "fast"}),
        (_request(3, "tools/call", {"arguments": {}}), 3),  # no name
        _call(4, "echo", ["not", "an", "object"]),
        _call(5, 42, {}),  # a name that is not a string
        (_request(6, "tools/call"), 6),  # no params
        _call(7, "echo", {"text": "progress"}, _meta={"progressToken": "p"}),
        (_request(8, "tools/list", {}), 8),
        (_request(9, "ping"), 9),
        (_request(10, "no/such/method", {}), 10),
        _call(11, "echo", {"text": "fast again"}),
    ]
    _assert_same_bytes(steps, fast=2)


def test_a_cancelled_call_is_never_answered_and_the_session_goes_on() -> None:
    """``notifications/cancelled`` for a running fast call: no answer, as from the SDK."""
    cancel = {
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": 5, "reason": "the user left"},
    }
    steps = [
        *_opening("2025-11-25"),
        (_call(5, "slow", {})[0], None),
        (cancel, None),
        _call(6, "echo", {"text": "still serving"}),
    ]
    out = _assert_same_bytes(steps, fast=2)
    assert [json.loads(line)["id"] for line in out.splitlines()] == [0, 6]


def test_calls_running_at_the_end_of_input_are_answered_connection_closed() -> None:
    """Closing stdin cancels running calls; each gets the SDK's ``Connection closed`` error."""
    steps = [
        *_opening("2025-06-18"),
        (_call(8, "slow", {})[0], None),
        (_call("nine", "slow", {})[0], None),
        _call(10, "echo", {"text": "answered first"}),
    ]
    out = _assert_same_bytes(steps, fast=3, in_any_order=True)
    answers = {json.loads(line)["id"]: json.loads(line) for line in out.splitlines()}
    assert answers[8]["error"]["message"] == "Connection closed"
    assert answers["nine"]["error"] == answers[8]["error"]


def test_a_second_initialize_leaves_every_later_call_to_the_sdk() -> None:
    """After a second ``initialize`` the negotiated version may differ: the SDK answers."""
    again = _opening("2024-11-05")[0]
    steps = [*_opening("2025-11-25"), _call(1, "stats", {}), again, _call(2, "stats", {})]
    _assert_same_bytes(steps, fast=1)


# --- what take() decides, in process ------------------------------------------------------


def _fast_calls() -> FastCalls:
    server = build_server(shapes_app)
    fast = fast_calls_for(server, _never_called, PipeWriter(-1))
    assert fast is not None
    return fast


async def _never_called(_name: str, _arguments: Mapping[str, Any] | None) -> Mapping[str, Any]:
    raise AssertionError


def _opened(fast: FastCalls, version: str = "2025-11-25") -> None:
    fast.take(JSONRPCRequest(jsonrpc="2.0", id=1, method="initialize", params={}))
    fast.written(JSONRPCResponse(jsonrpc="2.0", id=1, result={"protocolVersion": version}))


def _tools_call(**params: Any) -> JSONRPCRequest:
    return JSONRPCRequest(jsonrpc="2.0", id=2, method="tools/call", params=params)


def test_nothing_is_taken_before_the_initialize_answer() -> None:
    """The negotiated version comes from the ``initialize`` answer; before it, the SDK serves."""
    fast = _fast_calls()
    assert not fast.take(_tools_call(name="echo"))
    fast.take(JSONRPCRequest(jsonrpc="2.0", id=1, method="initialize", params={}))
    fast.written(JSONRPCResponse(jsonrpc="2.0", id=99, result={"protocolVersion": "2025-11-25"}))
    assert not fast.take(_tools_call(name="echo"))


async def _text(name: str, _arguments: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return {"content": [{"type": "text", "text": name}]}


@pytest.mark.anyio
async def test_a_plain_call_is_taken_once_the_session_is_open() -> None:
    """After the handshake answer a plain call is taken and answered on the pipe.

    A 2026-07-28 answer opens nothing (that era's requests carry an envelope).
    """
    read, write = os.pipe()
    os.set_blocking(write, False)
    try:
        for version, taken in (("2025-11-25", True), ("2026-07-28", False)):
            fast = fast_calls_for(build_server(shapes_app), _text, PipeWriter(write))
            assert fast is not None
            async with anyio.create_task_group() as group:
                await group.start(fast.serve)
                _opened(fast, version)
                assert fast.take(_tools_call(name="echo", arguments={"text": "x"})) is taken
                await anyio.sleep(0.05)
                fast.close()
        answer = os.read(read, 1 << 16)
    finally:
        os.close(read)
        os.close(write)
    assert answer.count(b"\n") == 1  # one answer: the 2026-07-28 call was not taken
    assert json.loads(answer) == {
        "jsonrpc": "2.0",
        "id": 2,
        "result": {"content": [{"type": "text", "text": "echo"}]},
    }


@pytest.mark.anyio
async def test_a_tracer_provider_leaves_calls_to_the_sdk(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a span wanted (tracing not inert), the SDK's middleware must see the call."""
    fast = _fast_calls()
    async with anyio.create_task_group() as group:
        await group.start(fast.serve)
        _opened(fast)
        monkeypatch.setattr(_server_fastcall, "tracing_inert", lambda _meta: False)
        assert not fast.take(_tools_call(name="echo", arguments={"text": "x"}))
        fast.close()


def test_other_middleware_or_a_cache_hint_switches_the_fast_path_off() -> None:
    """A server answering ``tools/call`` differently from build_server's gets no fast path."""

    async def middleware(ctx: Any, call_next: Any) -> Any:
        return await call_next(ctx)

    server = build_server(shapes_app)
    server.middleware.append(middleware)
    assert fast_calls_for(server, _never_called, PipeWriter(-1)) is None
    hinted = build_server(shapes_app)
    hinted.cache_hints["tools/call"] = CacheHint(ttl_ms=1000, scope="private")
    assert fast_calls_for(hinted, _never_called, PipeWriter(-1)) is None


def test_a_cancel_for_an_unknown_id_is_passed_on() -> None:
    """``notifications/cancelled`` always reaches the SDK too (it may name the SDK's request)."""
    fast = _fast_calls()
    cancel = JSONRPCNotification(
        jsonrpc="2.0", method="notifications/cancelled", params={"requestId": 3}
    )
    assert not fast.take(cancel)


async def _serve_one_call(fast: FastCalls) -> None:
    """Serve until the one call taken has been answered (or its answer failed)."""
    async with anyio.create_task_group() as group:
        await group.start(fast.serve)
        _opened(fast)
        assert fast.take(_tools_call(name="echo", arguments={"text": "x"}))


@pytest.mark.anyio
async def test_a_failed_write_ends_serving_with_its_error() -> None:
    """An answer that cannot be written (the host closed stdout) ends ``serve``, as the SDK's."""
    read, write = os.pipe()
    os.set_blocking(write, False)
    os.close(read)
    try:
        fast = fast_calls_for(build_server(shapes_app), _text, PipeWriter(write))
        assert fast is not None
        with pytest.raises(ExceptionGroup) as caught:
            await _serve_one_call(fast)
    finally:
        os.close(write)
    assert [type(exc) for exc in caught.value.exceptions] == [BrokenPipeError]


@pytest.mark.anyio
async def test_no_call_outlives_a_cancelled_serve() -> None:
    """``serve`` cancelled (the server ends by an error): its running calls end with it."""
    ended = anyio.Event()

    async def forever(_name: str, _arguments: Mapping[str, Any] | None) -> Mapping[str, Any]:
        try:
            await anyio.sleep_forever()
        finally:
            ended.set()
        raise AssertionError  # not reached: sleep_forever() returns only by cancellation

    read, write = os.pipe()
    os.set_blocking(write, False)
    try:
        fast = fast_calls_for(build_server(shapes_app), forever, PipeWriter(write))
        assert fast is not None
        async with anyio.create_task_group() as group:
            await group.start(fast.serve)
            _opened(fast)
            assert fast.take(_tools_call(name="echo", arguments={}))
            await anyio.sleep(0.01)
            group.cancel_scope.cancel()
        with anyio.fail_after(5):
            await ended.wait()
        await anyio.sleep(0.01)
        answer = os.read(read, 1 << 16)
    finally:
        os.close(read)
        os.close(write)
    assert json.loads(answer)["error"]["message"] == "Connection closed"
