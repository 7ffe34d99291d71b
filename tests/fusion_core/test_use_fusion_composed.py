"""``fusion_core.fastmcp.use_fusion`` on composed FastMCP servers: mounts and transformed tools.

A FastMCP tool's value is not always converted by the tool the server hands
out: a mounted server runs its own tools (``FastMCP.mount``), and a
transformed tool (``Tool.from_tool``) forwards to the tool it was made from.
Hooked on the outer server, every such tool answers exactly as the same tool
registered on it directly: the oracle of each case.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastmcp import FastMCP
from fastmcp.tools import Tool
from fastmcp.tools.tool_transform import ArgTransform, forward
from pydantic import BaseModel

from fusion_core import BlockingFusionClient, Presenter, response
from fusion_core.fastmcp import use_fusion


class Ticket(BaseModel):
    id: int
    title: str


TICKET = Presenter("Ticket", schema=Ticket, rules=["Quote ticket ids as #id."])
HIDDEN = "owner-9f3c-never-on-the-wire"


def presented(ticket: int) -> Any:
    """A Presenter's result, unbuilt."""
    return TICKET.make({"id": ticket, "title": "printer", "owner": HIDDEN})


def built(ticket: int) -> Any:
    """A built response with UI."""
    return response({"ticket": ticket}).ui_block("markdown", f"**#{ticket}**").build()


def typed(ticket: int) -> Ticket:
    """A typed tool: FastMCP publishes an outputSchema."""
    return TICKET.make({"id": ticket, "title": "printer", "owner": HIDDEN})  # type: ignore[return-value]


def crashing(ticket: int) -> Any:
    """Presents a row, then fails quoting it."""
    row = {"id": ticket, "title": "printer", "owner": HIDDEN}
    TICKET.make(row)
    msg = f"cannot bill {row}"
    raise RuntimeError(msg)


BODIES = [presented, built, typed, crashing]


def _mounted(body: Callable[..., Any]) -> tuple[FastMCP[Any], str]:
    child = FastMCP("child")
    child.tool(body)
    parent = use_fusion(FastMCP("parent"))
    parent.mount(child, namespace="kid")
    return parent, f"kid_{body.__name__}"


def _mounted_before_use_fusion(body: Callable[..., Any]) -> tuple[FastMCP[Any], str]:
    child = FastMCP("child")
    parent = FastMCP("parent")
    parent.mount(child)  # no namespace; the tool registered after the mount
    child.tool(body)
    return use_fusion(parent), body.__name__


def _mounted_twice(body: Callable[..., Any]) -> tuple[FastMCP[Any], str]:
    grandchild = FastMCP("grandchild")
    grandchild.tool(body)
    child = FastMCP("child")
    child.mount(grandchild, namespace="g")
    parent = use_fusion(FastMCP("parent"))
    parent.mount(child, namespace="kid")
    return parent, f"kid_g_{body.__name__}"


def _transformed(body: Callable[..., Any]) -> tuple[FastMCP[Any], str]:
    server = use_fusion(FastMCP("server"))
    original = Tool.from_function(body)
    server.add_tool(Tool.from_tool(original, name="renamed"))
    return server, "renamed"


def _transformed_twice(body: Callable[..., Any]) -> tuple[FastMCP[Any], str]:
    server = use_fusion(FastMCP("server"))
    once = Tool.from_tool(Tool.from_function(body), name="once")
    server.add_tool(Tool.from_tool(once, name="twice", transform_args={}))
    return server, "twice"


def _forwarding(body: Callable[..., Any]) -> tuple[FastMCP[Any], str]:
    async def ask(number: int) -> Any:
        return await forward(number=number)

    server = use_fusion(FastMCP("server"))
    original = Tool.from_function(body)
    renamed = {"ticket": ArgTransform(name="number")}
    server.add_tool(
        Tool.from_tool(original, name="forwarding", transform_fn=ask, transform_args=renamed)
    )
    return server, "forwarding"


SHAPES = {
    "mounted": _mounted,
    "mounted before use_fusion": _mounted_before_use_fusion,
    "mounted twice": _mounted_twice,
    "transformed": _transformed,
    "transformed twice": _transformed_twice,
    "forwarding transform_fn": _forwarding,
}


def _direct(body: Callable[..., Any]) -> tuple[FastMCP[Any], str]:
    server = use_fusion(FastMCP("direct"))
    server.tool(body)
    return server, body.__name__


def _call(server: FastMCP[Any], name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    with BlockingFusionClient.in_memory(server) as client:
        return client.call(name, arguments)


def _renamed(arguments: dict[str, Any], shape: str) -> dict[str, Any]:
    return {"number": arguments["ticket"]} if shape == "forwarding transform_fn" else arguments


def _without_names(wire: dict[str, Any], *names: str) -> str:
    """The wire as text with the tool's name written one way (a crash names its tool)."""
    text = repr(wire)
    for name in names:
        text = text.replace(f"[{name}]", "[TOOL]")
    return text


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("body", BODIES, ids=lambda body: body.__name__)
def test_a_composed_tool_answers_as_the_same_tool_registered_directly(
    shape: str, body: Callable[..., Any]
) -> None:
    """Blocks, structuredContent, crash envelope: those of the tool registered directly."""
    server, name = SHAPES[shape](body)
    wire = _call(server, name, _renamed({"ticket": 7}, shape))
    expected = _call(*_direct(body), {"ticket": 7})
    assert _without_names(wire, name, body.__name__) == _without_names(expected, body.__name__)
    assert HIDDEN not in repr(wire)
    assert "ResponseBuilder(" not in repr(wire)
    assert '"content"' not in wire["content"][0]["text"]  # never a whole result as text


@pytest.mark.parametrize("shape", ["mounted", "mounted twice"])
def test_a_mounted_tool_refuses_arguments_in_the_format(shape: str) -> None:
    """Arguments a mounted tool refuses come back as ``<validation_error>``, the value unsent."""
    server, name = SHAPES[shape](presented)
    wire = _call(server, name, {"ticket": "sk-live-not-an-int"})
    text = wire["content"][0]["text"]
    assert wire["isError"] is True
    assert text.startswith(f'<validation_error action="{name}">')
    assert "sk-live" not in text


def test_a_mounted_server_on_its_own_keeps_its_plain_values() -> None:
    """Hooking the outer server converts Fusion responses only: plain values are FastMCP's."""
    child = FastMCP("child")

    @child.tool
    def plain(ticket: int) -> dict[str, int]:
        return {"ticket": ticket}

    parent = use_fusion(FastMCP("parent"))
    parent.mount(child, namespace="kid")
    through_parent = _call(parent, "kid_plain", {"ticket": 3})
    unhooked = FastMCP("unhooked")
    unhooked.tool(plain)
    assert through_parent == _call(unhooked, "plain", {"ticket": 3})
    assert _call(child, "plain", {"ticket": 3}) == through_parent


@pytest.mark.parametrize("child_hooked", [False, True], ids=["plain child", "hooked child"])
def test_a_mounted_server_is_answered_under_the_outer_servers_name_and_rules(
    child_hooked: bool,
) -> None:
    """A mounted server's refusals and crashes are the outer server's to answer, hooked or not.

    The client called ``kid_crashing``, and the outer server shows nothing of
    a crash (``expose_errors="none"``): a child hooked on its own (its default
    shows the message) must not answer first with its own name and rules.
    """
    child = FastMCP("child")
    if child_hooked:
        use_fusion(child)
    child.tool(crashing)
    child.tool(presented)
    parent = use_fusion(FastMCP("parent"), expose_errors="none")
    parent.mount(child, namespace="kid")
    crash = _call(parent, "kid_crashing", {"ticket": 7})["content"][0]["text"]
    assert "[kid_crashing] The tool failed; the server's log has the details." in crash
    assert "cannot bill" not in crash
    refused = _call(parent, "kid_presented", {"ticket": "x"})["content"][0]["text"]
    assert refused.startswith('<validation_error action="kid_presented">')
    if child_hooked:  # on its own, the child still answers by its own rules
        alone = _call(child, "crashing", {"ticket": 7})["content"][0]["text"]
        assert "[crashing] cannot bill" in alone
        assert HIDDEN not in alone
