"""Servers of other frameworks, loaded and driven in process, byte for byte as over stdio.

``MCPServer``, ``FastMCP`` and the SDK's ``Server``, each through its own
in-memory client.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest
from fastmcp import Context, FastMCP
from mcp import Client
from mcp.server.mcpserver import MCPServer

from fusion_core import (
    AppLoadError,
    BlockingFusionClient,
    FusionApp,
    FusionClient,
    ServerLimitError,
    load_app,
)
from fusion_core._cli._main import main as fusion_main
from fusion_core._mcp._frameworks import ServerSource, server_kind, source_of
from fusion_core._mcp._server import load_target
from fusion_core._mcp._upstream_fastmcp import CHECKED_AGAINST, lowlevel_server
from tests._support.frameworks import FRAMEWORK_SOURCES

KINDS = sorted(FRAMEWORK_SOURCES)
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("open_ticket", {"title": "printer on fire"}),
    ("open_ticket", {"title": "again", "priority": 3}),
    ("open_ticket", {"priority": "high"}),  # refused by MCPServer and FastMCP
    ("list_tickets", {}),
    ("no_such_tool", {}),
]


@pytest.fixture
def helpdesk(kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[ModuleType, Path]:
    """The framework's helpdesk module, importable as ``helpdesk_<kind>``, and its file."""
    name = f"helpdesk_{kind.lower()}"
    path = tmp_path / f"{name}.py"
    path.write_text(FRAMEWORK_SOURCES[kind], encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, name, raising=False)
    return importlib.import_module(name), path


@pytest.mark.parametrize("kind", KINDS)
def test_server_kind_names_the_framework(kind: str, helpdesk: tuple[ModuleType, Path]) -> None:
    """Each server is recognised by its class; its factory and other objects are not servers."""
    module, _ = helpdesk
    assert server_kind(module.mcp) == kind
    assert server_kind(module.make_server) is None
    assert server_kind(FusionApp([])) is None
    assert server_kind(object()) is None


@pytest.mark.parametrize("kind", KINDS)
def test_a_spec_naming_the_server_loads_it(kind: str, helpdesk: tuple[ModuleType, Path]) -> None:
    """``module:mcp`` is a source giving that very server every time."""
    module, _ = helpdesk
    source = load_target(f"{module.__name__}:mcp")
    assert isinstance(source, ServerSource)
    assert (source.kind, source.factory, source.label) == (kind, False, "mcp")
    assert source.server() is module.mcp
    assert source.server() is module.mcp


@pytest.mark.parametrize("kind", KINDS)
def test_a_spec_naming_a_factory_gives_fresh_servers(
    kind: str, helpdesk: tuple[ModuleType, Path]
) -> None:
    """``module:make_server`` builds one server to learn its kind, then a new one per request."""
    module, _ = helpdesk
    source = load_target(f"{module.__name__}:make_server")
    assert isinstance(source, ServerSource)
    assert (source.kind, source.factory, source.label) == (kind, True, "make_server()")
    first, second = source.server(), source.server()
    assert server_kind(first) == server_kind(second) == kind
    assert first is not second
    assert first is not module.mcp


@pytest.mark.parametrize("kind", KINDS)
def test_load_app_says_a_framework_server_is_not_served_by_fusion(
    kind: str, helpdesk: tuple[ModuleType, Path]
) -> None:
    """``load_app`` (``fusion serve``) names the server's class, its runner, where it is driven."""
    module, _ = helpdesk
    with pytest.raises(
        AppLoadError, match=f"names a server on {kind}, which serves itself"
    ) as caught:
        load_app(f"{module.__name__}:mcp")
    assert "fusion list|call|check" in str(caught.value)
    runner = {"MCPServer": "mcp.run()", "FastMCP": "mcp.run()", "Server": "mcp.run(read, write, "}
    assert runner[kind] in str(caught.value)
    with pytest.raises(AppLoadError, match=r"server = make_server\(\); server\.run\(") as factory:
        load_app(f"{module.__name__}:make_server")
    assert "mcp.run()" not in str(factory.value)  # the runner named is the factory's product's


def _not_a_server() -> object:
    return {"content": []}


async def _async_factory() -> object:
    return None


def _needs_an_argument(name: str) -> object:
    return name


def test_what_is_not_a_server_source() -> None:
    """Objects that are neither a server nor a zero-argument factory of one are no source."""
    assert source_of(_not_a_server, "f") is None  # called once: it returned no server
    assert source_of(_needs_an_argument, "f") is None  # not called
    assert source_of(dict, "dict") is None  # a class is not a factory
    assert source_of(42, "n") is None


def test_an_async_factory_is_refused_by_name() -> None:
    """An ``async def`` factory cannot be called outside a loop: the error names it."""
    with pytest.raises(TypeError, match="make is an async function"):
        source_of(_async_factory, "make")


def test_a_factory_that_stops_returning_servers_is_named() -> None:
    """A factory whose later products are not servers fails naming it and what it returned."""
    products: list[object] = [MCPServer("x"), "not a server"]
    source = source_of(lambda: products.pop(0), "make")
    assert source is not None
    source.server()
    with pytest.raises(TypeError, match=r"make\(\) returned a str, not an MCPServer"):
        source.server()


def test_a_spec_naming_neither_says_both_ways() -> None:
    """A spec naming something else lists what an app needs and which servers are accepted."""
    with pytest.raises(AppLoadError, match="not an app: it has no definitions") as caught:
        load_target("json:dumps")
    assert "MCPServer, a FastMCP, the MCP SDK's Server or a function returning one" in str(
        caught.value
    )


def _calls(client: BlockingFusionClient) -> list[Any]:
    with client:
        return [client.list_tools(), *(client.call(name, args) for name, args in CALLS)]


@pytest.mark.parametrize("kind", KINDS)
def test_in_memory_answers_are_the_stdio_bytes(
    kind: str, helpdesk: tuple[ModuleType, Path]
) -> None:
    """The framework's in-memory client gives exactly what its stdio runner sends.

    Definitions and results alike, ``isError: false`` and the framework's
    own error texts included; a fresh server on each side.
    """
    module, path = helpdesk
    over_stdio = _calls(BlockingFusionClient.stdio([sys.executable, str(path)], timeout=120))
    in_memory = _calls(BlockingFusionClient.in_memory(module.make_server()))
    assert in_memory == over_stdio
    if kind != "Server":  # the SDK's Server leaves isError out; the frameworks send false
        assert in_memory[1]["isError"] is False


def _slow_server(kind: str) -> Any:
    """A server of ``kind`` whose one tool sleeps far past any timeout of the test."""

    async def slow() -> str:
        """Takes a minute."""
        await anyio.sleep(60)
        return "late"

    if kind == "FastMCP":
        from fastmcp import FastMCP  # noqa: PLC0415 - one framework per case

        fast = FastMCP("slow")
        fast.tool(slow)
        return fast
    server = MCPServer("slow")
    server.tool(name="slow")(slow)
    return server


@pytest.mark.parametrize("kind", ["MCPServer", "FastMCP"])
def test_in_memory_timeout_names_the_call(kind: str) -> None:
    """A tool slower than ``timeout=`` raises the timeout error, the call named, in memory too.

    In memory the framework client's own read timeout is the deadline (no
    second timer of ours): it must bound the server's work, not only the
    wait for a message.
    """
    with (
        BlockingFusionClient.in_memory(_slow_server(kind), timeout=0.3) as client,
        pytest.raises(ServerLimitError) as caught,
    ):
        client.call("slow", {})
    assert (caught.value.kind, caught.value.limit) == ("timeout", 0.3)
    assert "tools/call 'slow'" in str(caught.value)
    assert "timeout=" in str(caught.value)


@pytest.mark.parametrize("kind", KINDS)
def test_in_memory_accepts_a_source(kind: str, helpdesk: tuple[ModuleType, Path]) -> None:
    """A source from a factory spec is connected to a server of its own."""
    module, _ = helpdesk
    source = load_target(f"{module.__name__}:make_server")
    with BlockingFusionClient.in_memory(source) as client:
        client.call("open_ticket", {"title": "lamp"})
        listed = client.call("list_tickets", {})
    assert "lamp" in listed["content"][0]["text"]
    with BlockingFusionClient.in_memory(module.mcp) as client:  # the module's: untouched
        untouched = client.call("list_tickets", {})
    assert "lamp" not in untouched["content"][0]["text"]


@pytest.mark.parametrize("kind", KINDS)
def test_the_cli_lists_and_calls_a_framework_server(
    kind: str, helpdesk: tuple[ModuleType, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """``fusion list MODULE:mcp`` and ``fusion call`` drive the server in process."""
    module, _ = helpdesk
    assert fusion_main(["list", f"{module.__name__}:mcp"]) == 0
    listed = capsys.readouterr().out
    assert "open_ticket" in listed
    assert "list_tickets" in listed
    spec = f"{module.__name__}:make_server"
    assert fusion_main(["call", spec, "open_ticket", "--json", '{"title": "cli"}']) == 0
    assert "#1 cli" in capsys.readouterr().out


def _context_server(events: list[str]) -> Any:
    """A FastMCP server with a lifespan whose one tool reads its ``Context`` (state, ids, logs)."""

    @contextlib.asynccontextmanager
    async def lifespan(server: Any) -> Any:
        events.append("entered")
        yield {"db": "tickets.db"}
        events.append("left")

    server = FastMCP("context", lifespan=lifespan)

    @server.tool
    async def probe(n: int, ctx: Context) -> str:
        """Reads what FastMCP gives a tool."""
        await ctx.info(f"probing {n}")
        await ctx.report_progress(1, 2)
        await ctx.set_state("n", n)
        state = await ctx.get_state("n")
        ids = bool(ctx.session_id) and bool(ctx.request_id)
        return f"state={state} lifespan={ctx.lifespan_context['db']} ids={ids}"

    return server


# ctx.info: the SDK deprecates logging (2026-07-28), FastMCP still sends it
@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
def test_a_fastmcp_tool_gets_its_context_and_lifespan_in_process() -> None:
    """In process a FastMCP tool has what FastMCP gives it: the lifespan, state, ids, logging.

    The lifespan is entered once for the connection and left when it closes,
    as ``fastmcp.Client(server)`` does; the SDK client is there for the rest.
    """
    events: list[str] = []
    with BlockingFusionClient.in_memory(_context_server(events)) as client:
        answer = client.call("probe", {"n": 3})
        assert events == ["entered"]
    assert events == ["entered", "left"]
    assert answer["content"] == [{"type": "text", "text": "state=3 lifespan=tickets.db ids=True"}]
    assert answer["isError"] is False


@pytest.mark.anyio
async def test_the_sdk_client_of_a_fastmcp_server_is_the_mcp_client() -> None:
    """``sdk_client`` reaches a FastMCP server too: the SDK client on its low-level Server."""
    server = FastMCP("plain")
    server.tool(lambda: "pong", name="ping")
    async with FusionClient.in_memory(server) as client:
        assert isinstance(client.sdk_client, Client)
        model = await client.sdk_client.call_tool("ping", {})
    assert model.content[0].text == "pong"  # type: ignore[union-attr]


def test_a_fastmcp_without_its_low_level_server_is_refused_by_name() -> None:
    """A FastMCP whose SDK Server is not where it was checked: a TypeError naming the version."""
    server = FastMCP("moved")
    del server._mcp_server
    with pytest.raises(TypeError, match="_mcp_server") as caught:
        lowlevel_server(server)
    assert CHECKED_AGAINST in str(caught.value)
    assert "docs/fastmcp.md" in str(caught.value)
