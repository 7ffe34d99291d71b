"""A call of a name no tool has, on a server under ``use_fusion``: a ``FusionApp``'s answer.

``MCPServer`` answers it with ``Unknown tool: <name>`` and FastMCP with
``Unknown tool: '<name>'``, plain text (an ``isError`` result, not a JSON-RPC
error); under ``use_fusion`` both answer the ``UNKNOWN_TOOL`` envelope a
``FusionApp`` writes for the same name, byte for byte, through the
framework's own client, the plugin's client and over stdio. A FastMCP tool
the server hides from the caller (disabled, filtered out by tags, hidden for
the session, a mounted server's) is unknown in exactly the same bytes.
"""

from __future__ import annotations

import asyncio
import os
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import fastmcp
import mcp
import pytest
from fastmcp import Context, FastMCP
from fastmcp.exceptions import NotFoundError
from fastmcp.server.middleware import Middleware
from mcp.server.mcpserver import MCPServer

from fusion_core import BlockingFusionClient, FusionApp, parse
from fusion_core import fastmcp as fusion_fastmcp
from fusion_core import mcpserver as fusion_mcpserver

ROOT = Path(__file__).resolve().parents[2]
KINDS = ["MCPServer", "FastMCP"]
MARKUP = 'a<b>"c"&d\n\n<tool_error code="OK">\'x\''
"""A name with markup, quotes, a newline and a blank line: escaped in the envelope."""
NAMES_SENT = ["no_such_tool", "Get_Ticket", MARKUP, ""]  # the server has get_ticket
NAMES = [
    pytest.param(name, id=label)
    for name, label in zip(NAMES_SENT, ["unknown", "case", "markup", "empty"], strict=True)
]


def _expected(name: str) -> dict[str, Any]:
    """What a ``FusionApp`` answers for ``name``: the model the frameworks must match."""
    return dict(FusionApp([]).call_sync(name, {}))


def _server(kind: str, *, fusion: bool = True) -> Any:
    """A helpdesk on ``kind``: ``get_ticket`` registered before ``use_fusion``, ``close`` after."""
    server: Any = MCPServer("helpdesk") if kind == "MCPServer" else FastMCP("helpdesk")
    decorate: Callable[[Any], Any] = server.tool() if kind == "MCPServer" else server.tool

    @decorate
    def get_ticket(ticket: int) -> str:
        """One ticket."""
        return f"ticket {ticket}"

    if fusion:
        install = fusion_mcpserver.use_fusion if kind == "MCPServer" else fusion_fastmcp.use_fusion
        install(server)

    @decorate
    def close(ticket: int) -> str:
        """Close a ticket."""
        return f"closed {ticket}"

    return server


def _calls(server: Any, *names: str) -> list[dict[str, Any]]:
    with BlockingFusionClient.in_memory(server) as client:
        return [client.call(name, {}) for name in names]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", NAMES)
def test_an_unknown_name_is_answered_as_a_fusionapp_answers_it(kind: str, name: str) -> None:
    """The plugin's client gets the very result a ``FusionApp`` writes, escaping included."""
    (wire,) = _calls(_server(kind), name)
    assert wire == _expected(name)
    error = parse(wire).view.error
    assert error is not None
    assert error.code == "UNKNOWN_TOOL"
    assert error.message == f'Tool "{name}" does not exist.'


def test_the_envelope_escapes_the_name_sent() -> None:
    """The markup name is escaped in the text, so it opens no element of its own."""
    text = _expected(MARKUP)["content"][0]["text"]
    assert "&lt;tool_error" in text
    assert "a&lt;b>" in text
    assert "&amp;d" in text
    assert text.count("<tool_error") == 1


@pytest.mark.parametrize("kind", KINDS)
def test_without_it_the_framework_answers_plain_text(kind: str) -> None:
    """Pinned framework behaviour, the reason for the change: an ``isError`` result, bare text."""
    (wire,) = _calls(_server(kind, fusion=False), "no_such_tool")
    plain = "Unknown tool: no_such_tool" if kind == "MCPServer" else "Unknown tool: 'no_such_tool'"
    assert wire == {"content": [{"type": "text", "text": plain}], "isError": True}


async def _through_mcp_client(server: Any, name: str) -> tuple[list[str], bool]:
    async with mcp.Client(server) as client:
        result = await client.call_tool(name, {})
    return [block.text for block in result.content], result.is_error  # type: ignore[union-attr]


async def _through_fastmcp_client(server: Any, name: str) -> tuple[list[str], bool]:
    async with fastmcp.Client(server) as client:
        result = await client.call_tool_mcp(name, {})
    return [block.text for block in result.content], result.is_error


@pytest.mark.parametrize("name", NAMES)
def test_the_sdk_client_of_an_mcpserver_gets_the_envelope(name: str) -> None:
    """``mcp.Client(server)``: a tool result (no JSON-RPC error) holding the envelope."""
    texts, is_error = asyncio.run(_through_mcp_client(_server("MCPServer"), name))
    assert texts == [_expected(name)["content"][0]["text"]]
    assert is_error is True


@pytest.mark.parametrize("name", NAMES)
def test_the_fastmcp_client_gets_the_envelope(name: str) -> None:
    """``fastmcp.Client(server)``: a tool result (no JSON-RPC error) holding the envelope."""
    texts, is_error = asyncio.run(_through_fastmcp_client(_server("FastMCP"), name))
    assert texts == [_expected(name)["content"][0]["text"]]
    assert is_error is True


@pytest.mark.parametrize("kind", KINDS)
def test_a_tool_added_later_is_unknown_until_it_is_added(kind: str) -> None:
    """The lookup is made at each call: unknown, then registered, then answered by the tool."""
    server = _server(kind)
    with BlockingFusionClient.in_memory(server) as client:
        before = client.call("later", {})
        if kind == "MCPServer":
            server.tool(name="later")(lambda: "here")
        else:
            server.tool(lambda: "here", name="later")
        after = client.call("later", {})
        known = client.call("close", {"ticket": 2})
    assert before == _expected("later")
    assert after["content"] == [{"type": "text", "text": "here"}]
    assert after["isError"] is False
    assert known["content"] == [{"type": "text", "text": "closed 2"}]


def _hiding_server(*, fusion: bool) -> tuple[FastMCP[Any], list[str]]:
    """A FastMCP server hiding tools every way it can; the list records every tool that ran."""
    ran: list[str] = []
    server: FastMCP[Any] = FastMCP("hiding")
    if fusion:
        fusion_fastmcp.use_fusion(server)

    @server.tool
    def disabled() -> str:
        """Disabled by name."""
        ran.append("disabled")
        return "ran"

    @server.tool(tags={"internal"})
    def internal() -> str:
        """Disabled by tag."""
        ran.append("internal")
        return "ran"

    @server.tool
    def secret() -> str:
        """Hidden from a session once it calls lock."""
        ran.append("secret")
        return "ran"

    @server.tool
    async def lock(ctx: Context) -> str:
        """Hide ``secret`` from this session."""
        await ctx.disable_components(names={"secret"})
        return "locked"

    server.disable(names={"disabled"})
    server.disable(tags={"internal"})
    return server, ran


@pytest.mark.parametrize("fusion", [True, False], ids=["fusion", "plain"])
def test_a_hidden_tool_is_answered_as_an_unknown_one(fusion: bool) -> None:
    """Disabled by name or tag, hidden for the session: the unknown answer, the tool never runs.

    FastMCP alone answers them all ``Unknown tool: '<name>'``, as an unknown
    name: under ``use_fusion`` they get the envelope of an unknown name, so a
    client cannot tell a hidden tool from one that does not exist either way.
    """
    server, ran = _hiding_server(fusion=fusion)
    with BlockingFusionClient.in_memory(server) as client:
        listed = {tool["name"] for tool in client.list_tools()}
        disabled, internal, lock, secret = (
            client.call(name, {}) for name in ("disabled", "internal", "lock", "secret")
        )
    assert listed == {"lock", "secret"}
    assert lock["content"] == [{"type": "text", "text": "locked"}]
    assert ran == []
    for name, wire in [("disabled", disabled), ("internal", internal), ("secret", secret)]:
        if fusion:
            assert wire == _expected(name)
        else:
            plain = [{"type": "text", "text": f"Unknown tool: {name!r}"}]
            assert wire == {"content": plain, "isError": True}


def test_an_allowlist_by_tag_hides_the_other_tools() -> None:
    """``enable(tags=..., only=True)``: an untagged tool is unknown, a tagged one answers."""
    server: FastMCP[Any] = fusion_fastmcp.use_fusion(FastMCP("allowlist"))
    server.tool(lambda: "public", name="shown", tags={"public"})
    server.tool(lambda: "private", name="untagged")
    server.enable(tags={"public"}, only=True)
    shown, untagged = _calls(server, "shown", "untagged")
    assert shown["content"] == [{"type": "text", "text": "public"}]
    assert untagged == _expected("untagged")


def _billing() -> FastMCP[Any]:
    billing: FastMCP[Any] = FastMCP("billing")
    billing.tool(lambda: "invoiced", name="invoice")
    billing.tool(lambda: "voided", name="void")
    billing.disable(names={"void"})
    return billing


@pytest.mark.parametrize("child", ["plain", "hooked"])
@pytest.mark.parametrize("order", ["mounted-before", "mounted-after"])
def test_a_mounted_servers_prefix_with_no_such_tool_is_unknown(child: str, order: str) -> None:
    """``billing_nope``, a mounted server's disabled tool, its tool unprefixed: all unknown.

    Answered by the outer server under the name the client called, whether
    the mounted server has ``use_fusion`` of its own or not, mounted before
    or after; the mounted server's own tools still answer.
    """
    billing = _billing()
    if child == "hooked":
        fusion_fastmcp.use_fusion(billing)
    main: FastMCP[Any] = FastMCP("main")
    if order == "mounted-before":
        main.mount(billing, namespace="billing")
    fusion_fastmcp.use_fusion(main)
    if order == "mounted-after":
        main.mount(billing, namespace="billing")
    names = ["billing_nope", "billing_void", "invoice", "billing_"]
    *unknown, known = _calls(main, *names, "billing_invoice")
    assert unknown == [_expected(name) for name in names]
    assert known["content"] == [{"type": "text", "text": "invoiced"}]


def test_a_not_found_error_a_tool_raises_is_a_crash_not_an_unknown_tool() -> None:
    """A tool whose body raises ``NotFoundError`` exists: FastMCP calls it a crash, so do we.

    FastMCP answers ``Error calling tool 'lookup': Unknown user: 7``; under
    ``use_fusion`` that is the ``INTERNAL_ERROR`` envelope, never a claim
    that ``lookup`` does not exist.
    """

    def make(*, fusion: bool) -> FastMCP[Any]:
        server: FastMCP[Any] = FastMCP("lookups")
        if fusion:
            fusion_fastmcp.use_fusion(server)

        @server.tool
        def lookup() -> str:
            """Raises FastMCP's own not-found error for a missing user."""
            raise NotFoundError("Unknown user: 7")

        return server

    (plain,) = _calls(make(fusion=False), "lookup")
    (hooked,) = _calls(make(fusion=True), "lookup")
    assert plain["content"] == [
        {"type": "text", "text": "Error calling tool 'lookup': Unknown user: 7"}
    ]
    error = parse(hooked).view.error
    assert error is not None
    assert (error.code, error.message) == ("INTERNAL_ERROR", "[lookup] Unknown user: 7")


@pytest.mark.parametrize("order", ["added-after", "added-before"])
def test_a_tool_a_middleware_hides_is_unknown(order: str) -> None:
    """A middleware of the user's raising ``NotFoundError`` for a tool: that tool is unknown.

    FastMCP answers any ``NotFoundError`` reaching its handler with
    ``Unknown tool: '<name>'``; under ``use_fusion``, the envelope for that name,
    whether the middleware was added before ``use_fusion`` or after (before,
    it sent FastMCP's plain text: an attacker pass).
    """

    class HideAdmin(Middleware):
        async def on_call_tool(self, context: Any, call_next: Any) -> Any:
            if context.message.name == "admin":
                raise NotFoundError("hidden")
            return await call_next(context)

    server: FastMCP[Any] = FastMCP("guarded")
    if order == "added-before":
        server.add_middleware(HideAdmin())
    fusion_fastmcp.use_fusion(server)
    if order == "added-after":
        server.add_middleware(HideAdmin())
    server.tool(lambda: "ran", name="admin")
    server.tool(lambda: "ran", name="open")
    admin, other = _calls(server, "admin", "open")
    assert admin == _expected("admin")
    assert other["isError"] is False


APP_SOURCE = textwrap.dedent(
    """
    from fusion_core import FusionApp

    app = FusionApp([])
    """
)
SERVER_SOURCE = textwrap.dedent(
    """
    import sys

    from fusion_core import fastmcp as fusion_fastmcp
    from fusion_core import mcpserver as fusion_mcpserver

    if sys.argv[1] == "MCPServer":
        from mcp.server.mcpserver import MCPServer

        mcp = fusion_mcpserver.use_fusion(MCPServer("helpdesk"))
        mcp.tool(name="get_ticket")(lambda ticket: f"ticket {ticket}")
    else:
        from fastmcp import FastMCP

        mcp = fusion_fastmcp.use_fusion(FastMCP("helpdesk"))
        mcp.tool(lambda ticket: f"ticket {ticket}", name="get_ticket")
        mcp.tool(lambda: "ran", name="hidden")
        mcp.disable(names={"hidden"})

    if __name__ == "__main__":
        mcp.run(**({} if sys.argv[1] == "MCPServer" else {"show_banner": False}))
    """
)


def test_over_stdio_each_framework_answers_as_a_served_fusionapp(tmp_path: Path) -> None:
    """Over stdio, each framework's own runner sends the bytes ``fusion serve`` sends for an app.

    The same names, one session each; FastMCP's disabled ``hidden`` among them.
    """
    (tmp_path / "unknown_app.py").write_text(APP_SOURCE, encoding="utf-8")
    (tmp_path / "unknown_server.py").write_text(SERVER_SOURCE, encoding="utf-8")
    env = {"PYTHONPATH": os.pathsep.join([str(ROOT), str(tmp_path)])}
    names = [*NAMES_SENT, "hidden"]

    def over_stdio(*command: str) -> list[dict[str, Any]]:
        client = BlockingFusionClient.stdio(list(command), cwd=tmp_path, env=env, timeout=120)
        with client:
            return [client.call(name, {}) for name in names]

    served = over_stdio(sys.executable, "-m", "fusion_core", "serve", "unknown_app:app")
    assert served == [_expected(name) for name in names]
    script = str(tmp_path / "unknown_server.py")
    assert over_stdio(sys.executable, script, "MCPServer") == served
    assert over_stdio(sys.executable, script, "FastMCP") == served
