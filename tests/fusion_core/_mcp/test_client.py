"""The black-box client: tool definitions and results exactly as the server sent them.

Against the fake app (in memory, over stdio and over streamable HTTP) every
result equals the in-process response's wire dict; against a server written
with the bare SDK, every hand-written text comes back verbatim, malformed
ones included.
"""

from __future__ import annotations

import contextlib
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from fusion_core import ToolResponse, check, view_of
from fusion_core._mcp._client import (
    FusionClient,
    ServerConnectionError,
    ServerLimitError,
    ServerResultError,
    tool_result_wire,
)
from fusion_core._mcp._client_blocking import BlockingFusionClient
from tests._support import bare_sdk_server
from tests._support.dying import DYING_APP, DYING_SERVER
from tests._support.fake_app import BARE_SDK_SERVER, CALLS, ROOT, SERVE_STDIO, app, http_server
from tests._support.servers import serve_http, serving_asgi

MODES = ["auto", "legacy"]
TIMEOUT = 15.0


def _in_process(name: str, arguments: dict[str, Any] | None) -> ToolResponse:
    return anyio.run(app.call, name, arguments)


def _expected(case: str) -> dict[str, Any]:
    """The wire dict of the in-process response: exactly what a client must receive."""
    return dict(_in_process(*CALLS[case]))


# --- tool_result_wire --------------------------------------------------------------


def test_wire_drops_what_the_protocol_adds() -> None:
    """``resultType``, cache hints and the ``serverInfo`` stamp go; the result stays."""
    received = {
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": ""}},
        "content": [{"type": "text", "text": "OK"}],
        "isError": False,
        "resultType": "complete",
        "ttlMs": 0,
        "cacheScope": "private",
    }
    assert tool_result_wire(received) == {
        "content": [{"type": "text", "text": "OK"}],
        "isError": False,
    }


def test_wire_keeps_a_tools_own_meta() -> None:
    """Other ``_meta`` entries belong to the tool and are kept."""
    received = {
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s"}, "trace": "abc"},
        "content": [],
    }
    assert tool_result_wire(received) == {"_meta": {"trace": "abc"}, "content": []}


def test_wire_leaves_its_input_alone() -> None:
    """The dict passed in is not modified."""
    received = {"_meta": {"io.modelcontextprotocol/serverInfo": {}}, "content": []}
    tool_result_wire(received)
    assert received == {"_meta": {"io.modelcontextprotocol/serverInfo": {}}, "content": []}


# --- in memory ---------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("mode", MODES)
async def test_in_memory_client_returns_the_exact_wire_dict(mode: str) -> None:
    """Every call equals ``dict(await app.call(...))``: no key added, none lost."""
    async with FusionClient.in_memory(app, mode=mode, timeout=TIMEOUT) as client:
        assert await client.list_tools() == app.definitions()
        for case, (name, arguments) in CALLS.items():
            assert await client.call(name, arguments) == dict(await app.call(name, arguments)), case


@pytest.mark.anyio
async def test_call_result_is_the_sdk_model() -> None:
    """``call_result`` gives the SDK's ``CallToolResult`` of the same result."""
    from mcp_types import CallToolResult  # noqa: PLC0415 - keep collection of the suite fast

    async with FusionClient.in_memory(app) as client:
        result = await client.call_result("invoices_stats")
    expected = await app.call("invoices_stats", None)
    assert isinstance(result, CallToolResult)
    assert result.structured_content == expected["structuredContent"]
    assert [block.model_dump() for block in result.content] == [
        {"type": "text", "text": expected.texts[0], "annotations": None, "meta": None}
    ]


@pytest.mark.anyio
@pytest.mark.parametrize("mode", MODES)
async def test_the_sdk_model_dump_is_not_the_wire(mode: str) -> None:
    """Pinned SDK behaviour, the reason the client reads results before the SDK models them.

    Dumping ``CallToolResult`` adds ``"isError": false`` to a result that had
    no ``isError`` and always adds ``resultType``; on 2026-07-28 the
    ``serverInfo`` stamp arrives in ``_meta`` too.
    """
    async with FusionClient.in_memory(app, mode=mode) as client:
        model = await client.sdk_client.call_tool("echo", {"text": "hi"})
        wire = await client.call("echo", {"text": "hi"})
    dumped = model.model_dump(by_alias=True, exclude_none=True, mode="json")
    assert wire == {"content": [{"type": "text", "text": "hi"}]}
    assert dumped["isError"] is False
    assert dumped["resultType"] == "complete"
    assert ("_meta" in dumped) == (mode == "auto")


@pytest.mark.anyio
async def test_in_memory_accepts_an_sdk_server() -> None:
    """An SDK ``Server`` (here the bare one) is connected as it is."""
    server = bare_sdk_server.mcp._lowlevel_server
    async with FusionClient.in_memory(server) as client:
        wire = await client.call("tool_error")
    assert [block["text"] for block in wire["content"]] == bare_sdk_server.TEXTS["tool_error"][0]


def test_blocking_client_in_memory() -> None:
    """The blocking client needs no event loop from its caller."""
    with BlockingFusionClient.in_memory(app, timeout=TIMEOUT) as client:
        assert client.protocol_version == "2026-07-28"
        assert client.list_tools() == app.definitions()
        assert client.call("echo", {"text": "hi"}) == _expected_for("echo", {"text": "hi"})


def _expected_for(name: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
    return dict(_in_process(name, arguments))


# --- the fake app over stdio and HTTP: one server process per module ---------------


@pytest.fixture(scope="module")
def stdio_client() -> Iterator[BlockingFusionClient]:
    """``python -m fusion_core serve`` over stdio, one connection for the whole module."""
    with BlockingFusionClient.stdio(SERVE_STDIO, cwd=ROOT, timeout=TIMEOUT) as client:
        yield client


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    """One ``--http`` server for the module, on a free loopback port."""
    with http_server() as url:
        yield url


@pytest.fixture(scope="module", params=MODES)
def http_client(request: pytest.FixtureRequest, http_url: str) -> Iterator[BlockingFusionClient]:
    """A connection to the HTTP server, per protocol negotiation mode."""
    with BlockingFusionClient.http(http_url, mode=request.param, timeout=TIMEOUT) as client:
        yield client


def test_stdio_lists_exactly_the_definitions(stdio_client: BlockingFusionClient) -> None:
    """tools/list over stdio gives ``app.definitions()``."""
    assert stdio_client.list_tools() == app.definitions()


@pytest.mark.parametrize("case", CALLS)
def test_stdio_call_is_the_exact_wire_dict(stdio_client: BlockingFusionClient, case: str) -> None:
    """Every call over stdio equals the in-process response's wire dict."""
    assert stdio_client.call(*CALLS[case]) == _expected(case)


def test_http_lists_exactly_the_definitions(http_client: BlockingFusionClient) -> None:
    """tools/list over streamable HTTP gives ``app.definitions()``."""
    assert http_client.list_tools() == app.definitions()


@pytest.mark.parametrize("case", CALLS)
def test_http_call_is_the_exact_wire_dict(http_client: BlockingFusionClient, case: str) -> None:
    """Every call over streamable HTTP equals the in-process response's wire dict."""
    assert http_client.call(*CALLS[case]) == _expected(case)


def test_http_negotiates_both_eras(http_client: BlockingFusionClient) -> None:
    """``auto`` speaks 2026-07-28; ``legacy`` the 2025-11-25 handshake."""
    assert http_client.protocol_version in {"2026-07-28", "2025-11-25"}


# --- a server written with the bare SDK --------------------------------------------


@pytest.fixture(scope="module")
def bare_client() -> Iterator[BlockingFusionClient]:
    """The bare-SDK server over stdio, started from a shell-like command string."""
    command = " ".join(BARE_SDK_SERVER)
    with BlockingFusionClient.stdio(command, cwd=ROOT, mode="legacy", timeout=TIMEOUT) as client:
        yield client


def test_bare_server_lists_its_tools(bare_client: BlockingFusionClient) -> None:
    """Its definitions come back as the SDK generated them."""
    tools = bare_client.list_tools()
    assert [tool["name"] for tool in tools] == list(bare_sdk_server.TEXTS)
    assert all(tool["inputSchema"]["type"] == "object" for tool in tools)


@pytest.mark.parametrize("tool", bare_sdk_server.TEXTS)
def test_bare_server_texts_come_back_verbatim(bare_client: BlockingFusionClient, tool: str) -> None:
    """Well-formed, error and malformed Fusion text: every byte as written."""
    texts, is_error = bare_sdk_server.TEXTS[tool]
    assert bare_client.call(tool) == {
        "content": [{"type": "text", "text": text} for text in texts],
        "isError": is_error,
    }


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
@pytest.mark.parametrize(
    "options",
    [{}, {"json_response": True}, {"stateless_http": True}],
    ids=["sse", "json", "stateless"],
)
async def test_bare_server_over_http_texts_come_back_verbatim(
    options: dict[str, Any], mode: str
) -> None:
    """The same server over streamable HTTP, as the SDK serves it: every byte, bounded reads."""
    asgi = bare_sdk_server.mcp.streamable_http_app(**options)
    async with serving_asgi(asgi) as url, FusionClient.http(url, mode=mode) as client:
        tools = await client.list_tools()
        answers = {tool: await client.call(tool) for tool in bare_sdk_server.TEXTS}
    assert [tool["name"] for tool in tools] == list(bare_sdk_server.TEXTS)
    for tool, (texts, is_error) in bare_sdk_server.TEXTS.items():
        assert answers[tool] == {
            "content": [{"type": "text", "text": text} for text in texts],
            "isError": is_error,
        }, tool


class _MineError(Exception):
    """An exception of the test's own, raised inside the client's block."""


async def _fail_inside(client: FusionClient, error: Exception) -> None:
    async with client:
        await client.list_tools()
        raise error


@pytest.mark.anyio
@pytest.mark.parametrize("transport", ["stdio", "http", "http-unbounded", "in-memory"])
async def test_an_exception_in_the_block_comes_out_as_raised(transport: str) -> None:
    """Not wrapped in the transport's exception groups: ``pytest.raises`` and tracebacks see it."""
    with contextlib.ExitStack() as stack:
        if transport == "stdio":
            client = FusionClient.stdio(SERVE_STDIO, cwd=ROOT, timeout=TIMEOUT)
        elif transport == "in-memory":
            client = FusionClient.in_memory(app, timeout=TIMEOUT)
        else:
            url = stack.enter_context(http_server())
            limit = None if transport == "http-unbounded" else 1 << 20
            client = FusionClient.http(url, timeout=TIMEOUT, max_response_bytes=limit)
        mine = _MineError("the test's own failure")
        with pytest.raises(_MineError) as info:
            await _fail_inside(client, mine)
    assert info.value is mine


# --- usage errors ------------------------------------------------------------------


def test_stdio_splits_a_command_string_like_a_shell() -> None:
    """Quotes group words; no shell runs."""
    client = FusionClient.stdio("python -c 'print(1)' \"a b\"")
    assert (
        repr(client) == "FusionClient(\"python -c 'print(1)' 'a b'\", mode='auto', not connected)"
    )


@pytest.mark.parametrize("command", ["", "   ", []])
def test_stdio_needs_a_command(command: str | list[str]) -> None:
    """An empty command line is refused before anything starts."""
    with pytest.raises(ValueError, match="needs a program"):
        FusionClient.stdio(command)


@pytest.mark.parametrize("url", ["127.0.0.1:8000/mcp", "ftp://host/mcp", ""])
def test_http_needs_an_http_url(url: str) -> None:
    """Anything but an http(s) URL is refused."""
    with pytest.raises(ValueError, match="http:// or https:// URL"):
        FusionClient.http(url)


@pytest.mark.anyio
async def test_using_an_unconnected_client_says_so() -> None:
    """Calls outside ``async with`` raise a clear error."""
    client = FusionClient.in_memory(app)
    with pytest.raises(RuntimeError, match="not connected"):
        await client.call("echo", {"text": "x"})


@pytest.mark.anyio
async def test_a_client_connects_once() -> None:
    """Entering a connected client again is an error, not a second connection."""
    async with FusionClient.in_memory(app) as client:
        with pytest.raises(RuntimeError, match="already connected"):
            await client.__aenter__()


def test_using_a_closed_blocking_client_says_so() -> None:
    """The blocking client refuses calls outside ``with``."""
    client = BlockingFusionClient.in_memory(app)
    with pytest.raises(RuntimeError, match="not open"):
        client.call("echo", {"text": "x"})
    with client:
        pass
    with pytest.raises(RuntimeError, match="not open"):
        client.list_tools()


def test_a_server_that_does_not_start_fails_cleanly(tmp_path: Path) -> None:
    """A command that exits at once: one clear error naming it; its stderr goes to ``errlog``."""
    command = [*SERVE_STDIO[:-1], "json:dumps"]
    with (tmp_path / "stderr.txt").open("w") as errlog:
        client = BlockingFusionClient.stdio(command, cwd=ROOT, timeout=5, errlog=errlog)
        exited = r"json:dumps': it exited with code 2 before answering\n"
        with pytest.raises(ServerConnectionError, match=exited), client:
            pass
    assert "not an app" in (tmp_path / "stderr.txt").read_text()
    with pytest.raises(RuntimeError, match="not open"):
        client.list_tools()


def test_server_result_error_carries_the_result() -> None:
    """The error keeps what the server sent, for the failure message."""
    error = ServerResultError("nope", result={"resultType": "input_required"})
    assert error.result == {"resultType": "input_required"}
    assert isinstance(error, RuntimeError)


# --- parsed results: the black-box view ------------------------------------------


@pytest.mark.parametrize("case", CALLS)
def test_stdio_parsed_view_equals_the_in_process_view(
    stdio_client: BlockingFusionClient, case: str
) -> None:
    """Blocks read back over stdio give the view the in-process call attaches."""
    parsed = stdio_client.call_parsed(*CALLS[case])
    assert parsed.view == view_of(_in_process(*CALLS[case]))


def test_bare_server_parsed_and_checked(bare_client: BlockingFusionClient) -> None:
    """Hand-written text from a non-Python-built server: read, and its faults named."""
    well_formed = bare_client.call_parsed("well_formed")
    assert well_formed.view.rules == ("Never reveal ids.", "Round & format.")
    assert well_formed.view.ui_blocks[0].meta is not None
    assert well_formed.view.ui_blocks[0].meta.title == "Q3 & Q4"
    assert check(bare_client.call("well_formed")) == []
    error = bare_client.call_parsed("tool_error").view.error
    assert error is not None
    assert (error.code, error.recovery) == ("NOT_FOUND", "List invoices first.")
    found = [(v.block, v.rule) for v in check(bare_client.call("malformed"))]
    assert found == [(1, "malformed-block"), (2, "malformed-block"), (3, "malformed-block")]


# --- limits: a server nothing bounds ---------------------------------------------

UNBOUNDED_SERVER = [sys.executable, "-m", "tests._support.unbounded_sdk_server"]


def test_an_answer_over_the_size_limit_raises_naming_the_call(tmp_path: Path) -> None:
    """Over stdio the client stops reading at the limit and names the call and the limit."""
    with (
        (tmp_path / "stderr.txt").open("w") as errlog,
        BlockingFusionClient.stdio(
            UNBOUNDED_SERVER, cwd=ROOT, timeout=TIMEOUT, max_response_bytes=10_000, errlog=errlog
        ) as client,
    ):
        assert client.call("grow", {"n": 100})["content"][0]["text"] == "x" * 100
        with pytest.raises(ServerLimitError) as caught:
            client.call("grow", {"n": 5_000_000})
    error = caught.value
    assert (error.kind, error.limit) == ("size", 10_000)
    assert error.received is not None
    assert 10_000 < error.received < 5_000_000  # stopped long before the end
    assert "tools/call 'grow' {\"n\": 5000000}" in str(error)
    assert "max_response_bytes=" in str(error)


def test_an_answer_over_the_timeout_raises_naming_the_call(tmp_path: Path) -> None:
    """A server that does not answer in time: the call ends with the limit named."""
    with (
        (tmp_path / "stderr.txt").open("w") as errlog,
        BlockingFusionClient.stdio(
            UNBOUNDED_SERVER, cwd=ROOT, timeout=1.0, errlog=errlog
        ) as client,
        pytest.raises(ServerLimitError) as caught,
    ):
        client.call("stall", {"seconds": 600})
    assert (caught.value.kind, caught.value.limit) == ("timeout", 1.0)
    assert "tools/call 'stall' {\"seconds\": 600}" in str(caught.value)
    assert "within 1 s" in str(caught.value)
    assert "timeout=" in str(caught.value)


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_in_memory_an_answer_past_the_timeout_fails_though_no_timer_could_fire(
    asynchronous: bool,
) -> None:
    """A tool that holds the event loop (``time.sleep`` in it) answers late: refused then.

    An async tool calling ``time.sleep`` holds the loop the in-memory client
    waits on, and a sync one runs in a worker thread a cancelled call still
    waits for: the call ends when the tool returns; it answered, and the call
    passed, until the client timed the call itself.
    """
    from mcp.server.mcpserver import MCPServer  # noqa: PLC0415 - the SDK's server

    server = MCPServer("holds")

    async def hold_async(seconds: float) -> str:
        time.sleep(seconds)  # holding the loop is the point
        return "done"

    def hold(seconds: float) -> str:
        time.sleep(seconds)
        return "done"

    server.tool(name="hold")(hold_async if asynchronous else hold)

    with BlockingFusionClient.in_memory(server, timeout=0.2) as client:
        assert client.call("hold", {"seconds": 0})["content"][0]["text"] == "done"
        with pytest.raises(ServerLimitError) as caught:
            client.call("hold", {"seconds": 0.4})
        assert client.call("hold", {"seconds": 0})["isError"] is False  # the session goes on
    assert (caught.value.kind, caught.value.limit) == ("timeout", 0.2)
    assert caught.value.took is not None
    assert caught.value.took >= 0.4
    assert "tools/call 'hold' {\"seconds\": 0.4}" in str(caught.value)
    assert "answered after 0.4 s, past the 0.2 s limit" in str(caught.value)


def test_the_size_limit_applies_in_memory_too() -> None:
    """Without a stream to cut, the answer is measured once received."""
    from tests._support import unbounded_sdk_server  # noqa: PLC0415 - imports the SDK's server

    server = unbounded_sdk_server.mcp._lowlevel_server
    with BlockingFusionClient.in_memory(server, max_response_bytes=5_000) as client:
        client.call("grow", {"n": 10})
        with pytest.raises(ServerLimitError, match=r"more than 5,000 bytes"):
            client.call("grow", {"n": 6_000})


def test_long_arguments_are_trimmed_in_the_message() -> None:
    """An error message repeats at most a couple of hundred characters of arguments."""
    from tests._support import unbounded_sdk_server  # noqa: PLC0415 - imports the SDK's server

    server = unbounded_sdk_server.mcp._lowlevel_server
    with (
        BlockingFusionClient.in_memory(server, max_response_bytes=100) as client,
        pytest.raises(ServerLimitError) as caught,
    ):
        client.call("echo", {"text": "y" * 10_000})
    assert len(str(caught.value)) < 500
    assert "…" in str(caught.value)


@pytest.mark.parametrize("limits", [{"timeout": 0}, {"timeout": -1.0}, {"max_response_bytes": 0}])
def test_limits_must_be_positive(limits: dict[str, Any]) -> None:
    """A zero or negative limit is refused when the client is made, naming the argument."""
    name = next(iter(limits))
    with pytest.raises(ValueError, match=name):
        FusionClient("http://127.0.0.1:1/mcp", **limits)


# --- a server that dies during the session ---------------------------------------


@pytest.mark.parametrize(
    ("tool", "ended", "code"),
    [("crash", "it exited with code 3", 3), ("killed", "it was killed by signal SIGKILL (9)", -9)],
)
def test_a_server_dying_in_a_call_is_named_with_its_exit(
    tmp_path: Path, tool: str, ended: str, code: int
) -> None:
    """The call in flight and every later one raise ServerConnectionError: server, call, exit."""
    script = tmp_path / "dies.py"
    script.write_text(DYING_SERVER)
    command = [sys.executable, str(script)]
    with BlockingFusionClient.stdio(command, timeout=TIMEOUT) as client:
        assert client.call("ok")["content"] == [{"type": "text", "text": "fine"}]
        with pytest.raises(ServerConnectionError) as caught:
            client.call(tool)
        said = "\nthe server's stderr (last lines):\n  | fatal: the cache is corrupt"
        assert str(caught.value) == (
            f"tools/call {tool!r} {{}} on {' '.join(command)!r} got no answer: {ended}"
            + (said if code == 3 else "; its stderr may say why")
        )
        assert caught.value.stderr == (said.lstrip("\n") if code == 3 else "")
        assert caught.value.returncode == code
        with pytest.raises(ServerConnectionError, match=re.escape(ended)):
            client.call("ok")


def test_an_http_server_dying_in_a_call_is_named_and_closing_is_quiet(tmp_path: Path) -> None:
    """The call in flight, and every later one, raise ServerConnectionError; leaving is quiet.

    Before, the next call said the client was "not connected: use it in 'async with'"
    and leaving the ``with`` raised the transport's exception group.
    """
    (tmp_path / "dying_app.py").write_text(DYING_APP)
    command = [sys.executable, "-m", "fusion_core", "serve", "dying_app:app", "--http"]
    with (
        serve_http([*command, "--port", "0"], cwd=tmp_path) as url,
        BlockingFusionClient.http(url, timeout=TIMEOUT) as client,
    ):
        assert client.call("t", {"action": "ok"})["content"][0]["text"] == "fine"
        with pytest.raises(ServerConnectionError) as caught:
            client.call("t", {"action": "crash"})
        assert str(caught.value) == (
            f'tools/call \'t\' {{"action": "crash"}} on {url!r} got no answer: '
            "it closed the connection; the server's log may say why"
        )
        # Later calls: "got no answer" while the session winds down, then
        # "the connection ... ended" (which one comes first is the transport's race).
        with pytest.raises(ServerConnectionError, match=re.escape(repr(url))) as later:
            client.call("t", {"action": "ok"})
        assert "got no answer" in str(later.value) or "ended:" in str(later.value)
