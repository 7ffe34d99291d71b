"""The in-process transport of a framework's server (``pytest_mcpfusion._inmemory``)."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from fastmcp import FastMCP
from fastmcp.exceptions import ToolError

from fusion_core._mcp._frameworks import source_of
from fusion_core._mcp._upstream_fastmcp import REFUSED_ARGUMENTS_LOGGER
from pytest_mcpfusion._inmemory import CONTRACT_SCOPE, TESTS_SCOPE, InMemory
from pytest_mcpfusion._transport import Limits


class _Records(logging.Handler):
    """Every record that reaches the logger's handlers."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def transport() -> Iterator[InMemory]:
    """A FastMCP server with one typed tool, behind the plugin's in-memory transport."""
    server = FastMCP("refusals")

    @server.tool
    def get_ticket(ticket: int) -> str:
        """One ticket."""
        return f"#{ticket}"

    @server.tool
    def broken() -> str:
        """Always fails."""
        raise ToolError("the desk is closed")

    source = source_of(server, "server")
    assert source is not None
    transport = InMemory(source, Limits())
    yield transport
    transport.close()


@pytest.fixture
def logged() -> Iterator[list[logging.LogRecord]]:
    """What FastMCP's call_tool logger hands its handlers."""
    handler = _Records()
    logger = logging.getLogger(REFUSED_ARGUMENTS_LOGGER)
    logger.addHandler(handler)
    yield handler.records
    logger.removeHandler(handler)


def _refused(records: list[logging.LogRecord]) -> list[str]:
    return [r.getMessage() for r in records if r.getMessage().startswith("Invalid arguments")]


def test_the_contract_scope_drops_fastmcp_warning_for_refused_arguments(
    transport: InMemory, logged: list[logging.LogRecord]
) -> None:
    """The gate's deliberately invalid calls are not logged; the answer is the same.

    The user's tests' scope logs FastMCP's warning as FastMCP does, before
    and after, and no filter is left on the logger.
    """
    mine, _ = transport.call("get_ticket", {"ticket": "x"}, None)
    assert len(_refused(logged)) == 1
    transport.enter_scope(CONTRACT_SCOPE, fresh=False)
    gates, _ = transport.call("get_ticket", {"ticket": "x"}, None)
    assert len(_refused(logged)) == 1  # unchanged: not logged
    assert gates == mine
    assert gates["isError"] is True
    assert logging.getLogger(REFUSED_ARGUMENTS_LOGGER).filters == []
    transport.enter_scope(TESTS_SCOPE, fresh=False)
    transport.call("get_ticket", {"ticket": "y"}, None)
    assert len(_refused(logged)) == 2


def test_the_contract_scope_keeps_every_other_fastmcp_record(
    transport: InMemory, logged: list[logging.LogRecord]
) -> None:
    """Only that one warning is dropped: a failing tool's error is still logged."""
    transport.enter_scope(CONTRACT_SCOPE, fresh=False)
    wire, _ = transport.call("broken", {}, None)
    assert wire["isError"] is True
    assert [r.getMessage() for r in logged] == ["Error calling tool 'broken'"]
