"""The transports to a server in another process: nothing is left open when one cannot start."""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator

import pytest

from pytest_mcpfusion import _transport
from pytest_mcpfusion._transport import Limits, Remote, StartupError


@pytest.fixture
def unraisable() -> Iterator[list[str]]:
    """What the interpreter could not raise (an unclosed file's ResourceWarning), collected."""
    seen: list[str] = []
    previous = sys.unraisablehook
    sys.unraisablehook = lambda hook: seen.append(repr(hook.exc_value))
    try:
        yield seen
    finally:
        sys.unraisablehook = previous


@pytest.mark.parametrize(
    "script",
    ["import sys; sys.exit(3)", "import sys; sys.stdin.readline(); print('garbage')"],
    ids=["exits", "answers-garbage"],
)
def test_a_server_that_cannot_start_leaves_no_file_open(script: str, unraisable: list[str]) -> None:
    """The stderr log a stdio transport opened is closed when its server never starts.

    It leaked (a ResourceWarning at collection: an error under
    ``filterwarnings = error`` for a test running pytest in process).
    """
    errlog = _transport._errlog()
    command = [sys.executable, "-c", script]
    with pytest.raises(StartupError, match="could not start the MCP server"):
        Remote(
            lambda: _transport._stdio_client(command, {}, errlog, Limits(timeout=10)),
            name="stdio",
            target="the test's server",
            errlog=errlog,
        )
    assert errlog.closed
    gc.collect()
    assert unraisable == []
