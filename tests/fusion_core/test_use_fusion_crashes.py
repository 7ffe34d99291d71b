"""A tool that raises, under ``use_fusion``: the ``INTERNAL_ERROR`` envelope a ``FusionApp`` writes.

Without the integration's answer, FastMCP sent a crash's message as raised:
``raise RuntimeError(f"cannot bill {row}")`` after ``TICKET.make(row)`` put the
row's hidden fields on the wire, which a ``FusionApp`` never does (WIRE.md
12.4). Now both frameworks answer a crash as a ``FusionApp`` answers a
handler's: ``[tool] message``, as much as ``expose_errors`` allows (by default
what the framework itself shows), every value a Presenter hid during the call
replaced in every form Python writes it. A ``ToolError`` raised on purpose is
still the framework's own answer.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastmcp import FastMCP
from fastmcp.exceptions import ToolError as FastMCPToolError
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError as MCPServerToolError
from pydantic import BaseModel, field_validator

from fusion_core import BlockingFusionClient, Presenter, ResponseBuilder, check, parse, response
from fusion_core import fastmcp as fusion_fastmcp
from fusion_core import mcpserver as fusion_mcpserver
from fusion_core._present._forms import text_forms
from tests.fusion_core._present.test_redact_forms import SECRETS, WRITERS

KINDS = ["MCPServer", "FastMCP"]
HIDDEN = "owner-secret-7f3a"


class Ticket(BaseModel):
    id: int
    title: str


class Strict(BaseModel):
    code: str

    @field_validator("code")
    @classmethod
    def _crash(cls, value: str) -> str:
        raise KeyError(value)  # not a ValueError: a crash of the validator, not a refusal


TICKET = Presenter("Ticket", schema=Ticket)


class Opaque:
    """A value JSON cannot hold (a builder's ``build()`` refuses it)."""

    def __repr__(self) -> str:
        return f"Opaque({HIDDEN})"


class UnprintableError(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no text")


def _server(
    kind: str, *, install: bool = True, expose: str | None = None, mask: bool | None = None
) -> Any:
    """A helpdesk on ``kind`` whose tools raise after a Presenter saw a row."""
    server: Any
    raise_on_purpose: type[Exception]
    if kind == "MCPServer":
        server = MCPServer("helpdesk")
        decorate: Callable[[Any], Any] = server.tool()
        raise_on_purpose = MCPServerToolError
        hook: Callable[..., Any] = fusion_mcpserver.use_fusion
    else:
        server = FastMCP("helpdesk", mask_error_details=mask)
        decorate = server.tool
        raise_on_purpose = FastMCPToolError
        hook = fusion_fastmcp.use_fusion

    @decorate
    def bill(ticket: int) -> str:
        row = {"id": ticket, "title": "printer", "owner": HIDDEN}
        TICKET.make(row)
        raise RuntimeError(f"cannot bill {row}")

    @decorate
    async def bill_async(ticket: int) -> str:
        row = {"id": ticket, "title": "printer", "owner": HIDDEN}
        TICKET.make(row)
        await asyncio.sleep(0)
        raise RuntimeError(f"cannot bill {row}")

    @decorate
    def written(secret: str, writer: str) -> str:
        row = {"id": 1, "title": "printer", "password": SECRETS[secret]}
        TICKET.make(row)
        raise RuntimeError(WRITERS[writer](row))

    @decorate
    def on_purpose(ticket: int) -> str:
        raise raise_on_purpose(f"Ticket {ticket} is closed.")

    @decorate
    def unprintable() -> str:
        raise UnprintableError

    @decorate
    def validated(value: Strict) -> str:
        return value.code

    @decorate
    def misshapen() -> ResponseBuilder:
        return TICKET.make({"id": HIDDEN, "title": "printer"})  # the Presenter refuses it

    @decorate
    def loaded() -> str:
        return Ticket.model_validate({"id": HIDDEN, "title": "printer"}).title

    @decorate
    def unbuildable() -> ResponseBuilder:
        return response({"id": 1, "when": Opaque()})

    if install:
        hook(server, expose_errors=expose)
    return server


def _message(wire: dict[str, Any]) -> str:
    error = parse(wire).view.error
    assert error is not None, wire
    assert error.code == "INTERNAL_ERROR"
    assert wire["isError"] is True
    assert check(wire, strict=True) == []
    return error.message


def _crash_message(tool: str, arguments: dict[str, Any], kind: str, **options: Any) -> str:
    """The envelope's message for one call of ``tool`` on a fresh ``_server(kind, **options)``."""
    with BlockingFusionClient.in_memory(_server(kind, **options)) as opened:
        return _message(opened.call(tool, arguments))


@pytest.fixture(params=KINDS)
def kind(request: pytest.FixtureRequest) -> str:
    """Each framework."""
    return str(request.param)


@pytest.fixture
def client(kind: str) -> Iterator[BlockingFusionClient]:
    """A session with the framework's helpdesk, hooked with the defaults."""
    with BlockingFusionClient.in_memory(_server(kind)) as opened:
        yield opened


def test_a_crash_is_the_internal_error_envelope_without_hidden_values(
    kind: str, client: BlockingFusionClient
) -> None:
    """Sync and async tools: an envelope, no hidden value, what the framework would show."""
    for tool in ("bill", "bill_async"):
        message = _message(client.call(tool, {"ticket": 7}))
        assert HIDDEN not in message
        if kind == "MCPServer":  # it never shows a crash's text: nor does its default
            assert message == f"[{tool}] The tool failed; the server's log has the details."
        else:  # FastMCP shows the message: cleaned of what the Presenter hid
            assert message == f"[{tool}] cannot bill {{'id': 7, 'title': 'printer', '***': '***'}}"


def test_without_the_integration_fastmcp_sends_the_hidden_value() -> None:
    """Pinned framework behaviour, the reason for the crash answer."""
    with BlockingFusionClient.in_memory(_server("FastMCP", install=False)) as opened:
        wire = opened.call("bill", {"ticket": 7})
    assert HIDDEN in wire["content"][0]["text"]


def test_no_form_of_a_hidden_value_reaches_the_client(kind: str) -> None:
    """Every escaping class of secret, written into the message every usual way.

    The 169 crashes are not logged here (rendering FastMCP's tracebacks took
    most of the test's time); logging is the last test's subject.
    """
    leaks: list[str] = []
    logging.disable(logging.CRITICAL)
    try:
        with BlockingFusionClient.in_memory(_server(kind, expose="message")) as opened:
            for secret, value in SECRETS.items():
                for writer in WRITERS:
                    arguments = {"secret": secret, "writer": writer}
                    message = _message(opened.call("written", arguments))
                    message = message.replace("&lt;", "<").replace("&amp;", "&")
                    shown = [form for form in text_forms(value) if form in message]
                    if shown or "***" not in message:
                        leaks.append(f"{secret} x {writer}: {message!r}")
    finally:
        logging.disable(logging.NOTSET)
    assert leaks == []


@pytest.mark.parametrize(
    ("expose", "shown"),
    [
        ("message", "[bill] cannot bill {'id': 7, 'title': 'printer', '***': '***'}"),
        ("type", "[bill] RuntimeError"),
        ("none", "[bill] The tool failed; the server's log has the details."),
    ],
)
def test_expose_errors_decides_what_is_shown(kind: str, expose: str, shown: str) -> None:
    """The three levels a FusionApp has, on either framework."""
    assert _crash_message("bill", {"ticket": 7}, kind, expose=expose) == shown


def test_fastmcp_masking_error_details_shows_nothing_by_default() -> None:
    """``mask_error_details=True``: the default exposure is ``"none"``, as FastMCP's own."""
    message = _crash_message("bill", {"ticket": 7}, "FastMCP", mask=True)
    assert message == "[bill] The tool failed; the server's log has the details."


def test_use_fusion_again_with_expose_errors_changes_it(kind: str) -> None:
    """A second call sets ``expose_errors`` (it is never silently ignored); without it, keeps."""
    server = _server(kind)
    hook = fusion_mcpserver.use_fusion if kind == "MCPServer" else fusion_fastmcp.use_fusion
    assert hook(server, expose_errors="type") is server
    with BlockingFusionClient.in_memory(server) as opened:
        assert _message(opened.call("bill", {"ticket": 7})) == "[bill] RuntimeError"
    hook(server)  # without expose_errors: kept as it is
    with BlockingFusionClient.in_memory(server) as opened:
        assert _message(opened.call("bill", {"ticket": 7})) == "[bill] RuntimeError"


@pytest.mark.parametrize(
    "hook", [fusion_mcpserver.use_fusion, fusion_fastmcp.use_fusion], ids=KINDS
)
def test_an_unknown_exposure_is_refused_by_name(hook: Callable[..., Any]) -> None:
    """As ``FusionApp(expose_errors=...)`` refuses it."""
    server = MCPServer("x") if hook is fusion_mcpserver.use_fusion else FastMCP("x")
    with pytest.raises(ValueError, match=r"expose_errors must be one of .* got 'all'"):
        hook(server, expose_errors="all")


def test_a_tool_error_raised_on_purpose_is_the_frameworks_answer(kind: str) -> None:
    """The author's words, as the framework sends them without the integration."""
    calls = [("on_purpose", {"ticket": 3})]
    with BlockingFusionClient.in_memory(_server(kind)) as opened:
        hooked = [opened.call(name, arguments) for name, arguments in calls]
    with BlockingFusionClient.in_memory(_server(kind, install=False)) as opened:
        plain = [opened.call(name, arguments) for name, arguments in calls]
    assert hooked == plain
    assert "Ticket 3 is closed." in hooked[0]["content"][0]["text"]


def test_an_exception_without_text_still_gets_an_envelope(kind: str) -> None:
    """A ``__str__`` that raises: the envelope that cannot fail, naming the tool."""
    message = _crash_message("unprintable", {}, kind, expose="message")
    assert message.startswith("[unprintable] ")
    assert "Traceback" not in message


def test_a_crashing_argument_validator_is_a_crash_not_a_refusal() -> None:
    """MCPServer: a validator raising ``KeyError`` crashed; nothing of its text is sent."""
    with BlockingFusionClient.in_memory(_server("MCPServer")) as opened:
        wire = opened.call("validated", {"value": {"code": HIDDEN}})
    assert _message(wire) == "[validated] The tool failed; the server's log has the details."


def test_each_crash_is_logged_once_with_its_traceback(
    kind: str, client: BlockingFusionClient, caplog: pytest.LogCaptureFixture
) -> None:
    """MCPServer's handler no longer sees it: fusion_core logs it; FastMCP logged it already."""
    with caplog.at_level(logging.ERROR):
        client.call("bill", {"ticket": 7})
    crashes = [record for record in caplog.records if record.exc_info is not None]
    assert len(crashes) == 1, [record.getMessage() for record in crashes]
    assert crashes[0].name == ("fusion_core" if kind == "MCPServer" else "fastmcp.server.server")


def test_a_builder_that_cannot_build_is_a_crash(kind: str) -> None:
    """Converting the result failed: the envelope (MCPServer's handler sent ``str(exc)``)."""
    message = _crash_message("unbuildable", {}, kind, expose="message")
    assert message.startswith("[unbuildable] cannot serialize a Opaque to JSON")
    assert "(at $.when)" in message
    assert HIDDEN not in message
    message = _crash_message("unbuildable", {}, kind, expose="none")
    assert message == "[unbuildable] The tool failed; the server's log has the details."


def test_a_presenter_refusing_the_data_never_quotes_it(kind: str) -> None:
    """The Presenter's own error: field paths and pydantic's wording, never the data."""
    message = _crash_message("misshapen", {}, kind, expose="message")
    assert message.startswith("[misshapen] [Ticket Presenter] Validation failed:")
    assert "'id': Input should be a valid integer" in message
    assert HIDDEN not in message


def test_a_validation_error_of_the_tool_s_own_never_quotes_the_data(kind: str) -> None:
    """Pydantic's ``str()`` quotes ``input_value``: the envelope names the field only."""
    message = _crash_message("loaded", {}, kind, expose="message")
    assert message.startswith("[loaded] 1 validation error for Ticket")
    assert "'id': Input should be a valid integer" in message
    assert HIDDEN not in message
    assert "input_value" not in message


def _mounted(*, child_masks: bool, expose: str | None) -> Any:
    """A hooked FastMCP server (not masking) with a child mounted, which may mask."""
    child = FastMCP("child", mask_error_details=child_masks)

    @child.tool
    def get() -> str:
        row = {"id": 1, "title": "printer", "owner": HIDDEN}
        TICKET.make(row)
        raise RuntimeError(f"db refused {row}")

    parent = fusion_fastmcp.use_fusion(FastMCP("parent"), expose_errors=expose)  # type: ignore[arg-type]
    parent.mount(child, namespace="c")
    return parent


@pytest.mark.parametrize("expose", [None, "message", "type"])
def test_what_a_mounted_server_masked_stays_hidden(expose: str | None) -> None:
    """FastMCP wrote the child's crash without its text: no exposure brings it back."""
    with BlockingFusionClient.in_memory(_mounted(child_masks=True, expose=expose)) as opened:
        message = _message(opened.call("c_get", {}))
    assert message == "[c_get] The tool failed; the server's log has the details."


def test_a_mounted_server_that_shows_its_crashes_is_cleaned_like_any() -> None:
    """An unmasked child: its message, every value a Presenter hid replaced."""
    with BlockingFusionClient.in_memory(_mounted(child_masks=False, expose=None)) as opened:
        message = _message(opened.call("c_get", {}))
    assert message == "[c_get] db refused {'id': 1, 'title': 'printer', '***': '***'}"


def test_what_the_server_itself_masked_stays_hidden_whatever_expose_errors_says() -> None:
    """``mask_error_details=True`` with ``expose_errors="message"``: FastMCP's mask wins."""
    message = _crash_message("bill", {"ticket": 7}, "FastMCP", mask=True, expose="message")
    assert message == "[bill] The tool failed; the server's log has the details."
