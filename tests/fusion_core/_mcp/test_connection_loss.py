"""Connection loss: one classification in the client, one error for every way a peer goes away.

Whatever the transport raises when the server is gone (a closed or broken
stream, a reset socket, an end of file, httpx's errors for a vanished peer,
the SDK's CONNECTION_CLOSED, or an exception group of those), a call ends in
one :class:`~fusion_core.ServerConnectionError` naming the call, so the
pytest plugin trusts that one class instead of keeping a list of its own.
Anything else (a bug, or a group holding one) is raised as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
import pytest

from fusion_core import ServerConnectionError
from fusion_core._errors import leaves
from fusion_core._mcp._client import FusionClient
from fusion_core._mcp._connection_loss import connection_lost
from tests._support.fake_app import app

pytestmark = pytest.mark.anyio


class RemoteProtocolError(Exception):
    """Named as httpx names a peer that closed mid-answer (httpx is the SDK's dependency)."""


def _closed_by_sdk() -> BaseException:
    from mcp.shared.exceptions import MCPError  # noqa: PLC0415 - mcp is slow to import
    from mcp_types import CONNECTION_CLOSED  # noqa: PLC0415

    return MCPError(CONNECTION_CLOSED, "Connection closed")


# Each row: an error the transport raises when the peer is gone.
LOST: dict[str, Callable[[], BaseException]] = {
    "broken-stream": anyio.BrokenResourceError,
    "closed-stream": anyio.ClosedResourceError,
    "reset": ConnectionResetError,
    "refused": ConnectionRefusedError,
    "end-of-file": EOFError,
    "httpx-peer": lambda: RemoteProtocolError("peer closed connection"),
    "sdk-closed": _closed_by_sdk,
    "group": lambda: ExceptionGroup("tasks", [anyio.BrokenResourceError(), EOFError()]),
    "nested-group": lambda: BaseExceptionGroup(
        "outer", [ExceptionGroup("inner", [ConnectionResetError()])]
    ),
}

# Each row: an error that is not the peer going away, raised unchanged.
NOT_LOST: dict[str, Callable[[], BaseException]] = {
    "bug": lambda: ValueError("a bug of ours"),
    "mixed-group": lambda: ExceptionGroup("tasks", [EOFError(), KeyError("x")]),
    "type-error": lambda: TypeError("not a connection"),
}


@pytest.mark.parametrize("make", LOST.values(), ids=LOST)
def test_connection_loss_is_classified(make: Callable[[], BaseException]) -> None:
    """Every leaf a transport losing its peer: lost."""
    assert connection_lost(make())


@pytest.mark.parametrize("make", NOT_LOST.values(), ids=NOT_LOST)
def test_other_failures_are_not_connection_loss(make: Callable[[], BaseException]) -> None:
    """A leaf that is anything else: not lost, whatever the other leaves are."""
    assert not connection_lost(make())


def test_leaves_flatten_nested_groups() -> None:
    """``leaves`` is each failure inside nested exception groups, in order."""
    first, second, third = EOFError(), KeyError("k"), ValueError("v")
    group = BaseExceptionGroup("a", [first, ExceptionGroup("b", [second, third])])
    assert leaves(group) == [first, second, third]
    assert leaves(first) == [first]


async def _failing_call(error: BaseException) -> BaseException:
    """What ``call`` raises when the connection's request fails with ``error``."""
    async with FusionClient.in_memory(app, timeout=10) as client:
        session = client.sdk_client.session

        async def send_request(*args: Any, **kwargs: Any) -> Any:
            raise error

        session.send_request = send_request  # type: ignore[method-assign]
        try:
            await client.call("invoices_list", {})
        except BaseException as raised:  # noqa: BLE001 - the test is which one it is
            return raised
    msg = "the call did not fail"
    raise AssertionError(msg)


@pytest.mark.parametrize("make", LOST.values(), ids=LOST)
async def test_a_lost_connection_is_one_server_connection_error(
    make: Callable[[], BaseException],
) -> None:
    """One ServerConnectionError naming the call, caused by what the transport raised."""
    error = make()
    raised = await _failing_call(error)
    assert isinstance(raised, ServerConnectionError), repr(raised)
    assert "tools/call 'invoices_list'" in str(raised)
    assert "got no answer" in str(raised)
    assert raised.__cause__ is error


@pytest.mark.parametrize("make", NOT_LOST.values(), ids=NOT_LOST)
async def test_other_failures_are_raised_as_they_are(make: Callable[[], BaseException]) -> None:
    """A bug is never disguised as a lost connection."""
    error = make()
    assert await _failing_call(error) is error
