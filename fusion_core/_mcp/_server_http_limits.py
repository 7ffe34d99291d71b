"""What one HTTP client may hold of the server: time, connections, log lines.

uvicorn waits for ever for a request's headers and body, accepts connections
until the process runs out of file descriptors, and then logs every failed
``accept()``: a few hundred slow clients (or one with a loop) held the server,
real calls timed out, the log flooded and SIGTERM no longer stopped it
promptly. :func:`limited_protocol` is uvicorn's h11 protocol with

* a **header deadline** (``header_timeout``): from the connection (or the end
  of the previous answer's keep-alive wait) to the end of the request's
  headers; a client that has not sent them by then is disconnected;
* a **body deadline** (``body_timeout``): from the end of the headers to the
  end of the body; the app then sees the client disconnect;
* a **connection cap** (``max_connections``, by default 1,000 or what the file
  limit leaves, see :func:`default_max_connections`): at the cap, the connection
  that has waited longest for its headers is closed to make room, and when
  none is waiting the new one gets ``503`` and is closed, so descriptors never
  run out and real calls still get in.

:class:`RepeatFilter` bounds the log: a message repeated more than
``per_minute`` times a minute is dropped, and the count of dropped lines is
logged once the minute is over. ``serve_http``'s ``shutdown_timeout`` (uvicorn's
``timeout_graceful_shutdown``) bounds the wait for running requests on
SIGTERM.
"""

from __future__ import annotations

import contextlib
import logging
import os
import resource
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    import asyncio

    from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = [
    "ACCEPT_BURST",
    "DEFAULT_BODY_TIMEOUT",
    "DEFAULT_HEADER_TIMEOUT",
    "DEFAULT_LOG_LINES_PER_MINUTE",
    "DEFAULT_SHUTDOWN_TIMEOUT",
    "RepeatFilter",
    "default_max_connections",
    "limited_protocol",
]

DEFAULT_HEADER_TIMEOUT: Final = 10.0
"""Seconds a client has to send a request's headers."""
DEFAULT_BODY_TIMEOUT: Final = 30.0
"""Seconds a client has to send a request's body, after its headers."""
DEFAULT_SHUTDOWN_TIMEOUT: Final = 5.0
"""Seconds SIGTERM waits for running requests before closing them."""
DEFAULT_LOG_LINES_PER_MINUTE: Final = 20
"""Lines of one repeated log message kept per minute."""
_MAX_CONNECTIONS: Final = 1000
ACCEPT_BURST: Final = 16
"""Connections accepted at once (the listen backlog): asyncio accepts this many
on each turn of its loop, and a connection over the cap is closed three turns
after its accept (the accepting task, ``connection_made``, the close), so the
cap keeps three bursts free."""
_IN_FLIGHT: Final = 3 * ACCEPT_BURST
_RESERVED_FILES: Final = _IN_FLIGHT + 32  # and 32 for what the app opens later

_BUSY: Final = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"connection: close\r\ncontent-length: 37\r\n\r\ntoo many connections; try again later\n"
)


def default_max_connections() -> int:
    """1,000, or fewer when the file limit (``RLIMIT_NOFILE``) leaves less than that.

    What the limit leaves is the limit less the descriptors open now (the
    interpreter, the SDK, the listening socket) and 80 more: the connections
    accepted before one over the cap is closed (three bursts of
    :data:`ACCEPT_BURST`) and 32 for what the app opens later, so ``accept()``
    never runs out of descriptors.
    """
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return _MAX_CONNECTIONS
    return max(1, min(_MAX_CONNECTIONS, soft - _open_files() - _RESERVED_FILES))


def _open_files() -> int:
    """How many descriptors this process has open (0 where the system does not say)."""
    for listing in ("/proc/self/fd", "/dev/fd"):
        with contextlib.suppress(OSError):
            return len(os.listdir(listing))
    return 0


@dataclass
class _Limits:
    """The limits of one server and its connections still waiting for headers."""

    header_timeout: float
    body_timeout: float
    max_connections: int
    # Insertion-ordered: the first is the one that has waited longest.
    waiting: dict[Any, None] = field(default_factory=dict)


def limited_protocol(
    *, header_timeout: float, body_timeout: float, max_connections: int
) -> type[H11Protocol]:
    """The h11 protocol of uvicorn with these deadlines and this cap (``Config(http=...)``)."""
    from uvicorn.protocols.http.h11_impl import H11Protocol  # noqa: PLC0415 - slow to import

    limits = _Limits(header_timeout, body_timeout, max_connections)

    class LimitedH11Protocol(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None
        _reading: str = "headers"  # or "body", or "" once the request is read

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)  # type: ignore[arg-type]
            if len(self.connections) > limits.max_connections and not self._make_room():
                self.logger.warning(
                    "%d connections are open (max_connections): refused one", limits.max_connections
                )
                self.transport.write(_BUSY)
                self.transport.close()
                return
            self._await("headers")

        def connection_lost(self, exc: Exception | None) -> None:
            self._settle()
            super().connection_lost(exc)

        def handle_events(self) -> None:
            super().handle_events()
            cycle = self.cycle
            if self._reading == "headers" and cycle is not None and not cycle.response_complete:
                self._await("body")
            if self._reading == "body" and cycle is not None and not cycle.more_body:
                self._settle()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._await("headers")  # the next request's, after the keep-alive wait

        def _await(self, part: str) -> None:
            """Start the deadline for the request's ``part`` (headers or body)."""
            self._settle()
            self._reading = part
            timeout = limits.header_timeout if part == "headers" else limits.body_timeout
            self._deadline = self.loop.call_later(timeout, self._expire, part, timeout)
            if part == "headers":
                limits.waiting[self] = None

        def _settle(self) -> None:
            """No deadline runs: the part arrived, or the connection ended."""
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None
            self._reading = ""
            limits.waiting.pop(self, None)

        def _expire(self, part: str, timeout: float) -> None:
            self._deadline = None
            limits.waiting.pop(self, None)
            prefix = "%s:%d - " % self.client if self.client else ""  # noqa: UP031 - uvicorn's own form
            self.logger.warning(
                "%sclosed a connection: its request %s did not arrive within %g s (%s_timeout)",
                prefix,
                part,
                timeout,
                "header" if part == "headers" else "body",
            )
            self.transport.close()

        def _make_room(self) -> bool:
            """Close the connection that has waited longest for its headers; whether one did."""
            for oldest in limits.waiting:
                if oldest is not self:
                    oldest._settle()
                    oldest.transport.close()
                    return True
            return False

    return LimitedH11Protocol


class RepeatFilter(logging.Filter):
    """Keep at most ``per_minute`` records of one message a minute; count the rest.

    A message is its logger and unformatted text (``record.msg``), so a line
    repeated with other arguments (another client's address) is the same one.
    When a minute in which lines were dropped is over, the next record of that
    message says how many were.
    """

    def __init__(self, per_minute: int, clock: Any = time.monotonic) -> None:
        """Keep ``per_minute`` records per message and minute (``clock``: seconds)."""
        super().__init__()
        self.per_minute = per_minute
        self._clock = clock
        self._seen: dict[tuple[str, str], list[float]] = {}  # start, kept, dropped

    def filter(self, record: logging.LogRecord) -> bool:
        """Whether to keep ``record``; a kept one may report the lines dropped before it."""
        key = (record.name, str(record.msg))
        now = self._clock()
        window = self._seen.get(key)
        if window is None or now - window[0] >= 60.0:
            dropped = 0 if window is None else int(window[2])
            if len(self._seen) > 1000:  # many distinct messages: forget the old minutes
                self._seen.clear()
            self._seen[key] = [now, 1, 0]
            if dropped:
                record.msg = f"{record.msg} (and {dropped} more like it in the last minute)"
            return True
        if window[1] < self.per_minute:
            window[1] += 1
            return True
        window[2] += 1
        return False
