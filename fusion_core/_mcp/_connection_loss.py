"""What counts as losing the server, and a reply the SDK could not read.

One classification for the client and the pytest plugin (the plugin trusts
the client's :class:`~fusion_core.ServerConnectionError` alone):
:func:`connection_lost` says whether every leaf of an exception (group) is
the transport losing its peer. :class:`Faults` fails a request in flight as
soon as the SDK reports a message it could not parse, instead of waiting for
a reply that never comes.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, Final, TypeVar

from fusion_core._errors import leaves
from fusion_core._terminal import one_line

__all__ = ["Faults", "connection_lost", "reason"]

_T = TypeVar("_T")


class Faults:
    """Messages the SDK could not parse, failing the request in flight at once.

    The SDK hands a line it cannot read to the ``message_handler`` as an
    exception and keeps waiting for the reply, which then never comes: without
    this the call would end as a timeout, naming the wrong problem.
    """

    __slots__ = ("_event", "last")

    def __init__(self) -> None:
        self._event: Any = None
        self.last: str = ""

    async def handle(self, message: object) -> None:
        """The client's ``message_handler``: note a stream exception, wake the request."""
        if isinstance(message, Exception):
            self.last = f"{type(message).__name__}: {one_line(message)}"
            if self._event is not None:
                self._event.set()

    async def race(self, request: Awaitable[_T]) -> _T | None:
        """``await request``, or ``None`` as soon as an unparseable message arrives."""
        import anyio  # noqa: PLC0415 - with the connected path

        self._event = event = anyio.Event()
        outcome: list[_T] = []
        failed: list[Exception] = []
        async with anyio.create_task_group() as group:

            async def send() -> None:
                try:
                    outcome.append(await request)
                except Exception as exc:  # noqa: BLE001 - re-raised below, outside the group
                    failed.append(exc)
                group.cancel_scope.cancel()

            async def watch() -> None:
                await event.wait()
                group.cancel_scope.cancel()

            group.start_soon(send)
            group.start_soon(watch)
        close = getattr(request, "close", None)
        if close is not None:  # a request cancelled before it started is never awaited
            close()
        if failed:  # the SDK's own error (a timeout, an MCPError), not an exception group
            raise failed[0]
        return outcome[0] if outcome else None


def reason(leaf: BaseException) -> str:
    """One leaf of a lost connection, as an error line names it."""
    return f"{type(leaf).__name__}: {leaf}" if str(leaf) else type(leaf).__name__


def connection_lost(error: BaseException) -> bool:
    """Whether every leaf of ``error`` is the transport losing its peer (not a bug of ours).

    A closed or broken stream, a socket error, an end of file, httpx's errors
    for a peer that went away, or the SDK's ``CONNECTION_CLOSED``. The client
    turns each into :class:`~fusion_core.ServerConnectionError`; the pytest
    plugin relies on that class alone.
    """
    import anyio  # noqa: PLC0415 - only the connected path needs it
    from mcp.shared.exceptions import MCPError  # noqa: PLC0415 - mcp is slow to import
    from mcp_types import CONNECTION_CLOSED  # noqa: PLC0415

    lost = (ConnectionError, EOFError, anyio.ClosedResourceError, anyio.BrokenResourceError)

    def one(leaf: BaseException) -> bool:
        if isinstance(leaf, MCPError):
            return leaf.code == CONNECTION_CLOSED
        return isinstance(leaf, lost) or type(leaf).__name__ in _LOST_PEER

    return all(one(leaf) for leaf in leaves(error))


# httpx's (and httpx2's) errors for a peer that went away, by name: httpx is the
# SDK's dependency, not ours, and its module is named differently by version.
_LOST_PEER: Final = frozenset(
    {"RemoteProtocolError", "ConnectError", "ReadError", "WriteError", "CloseError"}
)
