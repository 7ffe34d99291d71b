"""A call in process that holds its thread past the time limit is said, not waited out in silence.

In process, a tool that blocks a thread the call waits for cannot be cut
short: ``MCPServer`` and FastMCP run a sync tool in a worker thread that a
cancelled call still waits for (anyio's ``to_thread.run_sync``), a
``FusionApp`` a test's sync handler in the test's thread, where no timer fires. Its answer
fails the test when it comes; one that never comes would hang the run with
nothing on the screen. :class:`Watchdog` watches each such call from one
daemon thread: once a call is past its limit (and a grace, for the answer
that was on its way), it says which call, why it cannot be cut here and what
bounds it (``--fusion-server``), with where every thread is, once per call.
It never stops the run or the call.

The watched call costs two attribute writes and no lock: the thread looks
at least once a second (a sleeping daemon thread, never woken by a call).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from typing import Any, Final

__all__ = ["Watchdog", "watch_call"]

_GRACE: Final = 1.0  # seconds past the limit before a call is said to hold its thread
_GRACE_SHARE: Final = 0.1  # ... or this share of the limit, if longer
_LOOK: Final = 1.0  # seconds between two looks of the thread at most


class Watchdog:
    """Says, once per call, that a call in process is holding its thread past its limit."""

    def __init__(
        self, say: Callable[[str, float], None], *, grace: float = _GRACE, look: float = _LOOK
    ) -> None:
        self._say = say
        self.grace = grace
        """Seconds past the limit before a call is said to hold its thread (at least)."""
        self._look = look
        self._active: tuple[float, float, Callable[[], str]] | None = None
        self._thread: threading.Thread | None = None
        self._closed = threading.Event()

    @classmethod
    def of(cls, say: Callable[[str, float], None] | None) -> Watchdog | None:
        """A watchdog that tells ``say``; ``None`` without one (nothing is watched)."""
        return cls(say) if say is not None else None

    def watch(self, limit: float | None, what: Callable[[], str]) -> _Watch:
        """Watch the ``with`` block as one call of ``limit`` seconds (``None``: not watched)."""
        if limit and self._thread is None and not self._closed.is_set():
            self._thread = threading.Thread(target=self._run, name="fusion-watchdog", daemon=True)
            self._thread.start()
        return _Watch(self, limit, what)

    def close(self) -> None:
        """Stop watching (with the transport): the thread ends at once."""
        self._closed.set()
        if self._thread is not None:
            self._thread.join(timeout=self._look)

    def _run(self) -> None:
        said: tuple[float, float, Callable[[], str]] | None = None
        while not self._closed.is_set():
            active = self._active
            if active is None or active is said:
                self._closed.wait(self._look)
                continue
            remaining = active[1] - time.monotonic()
            if remaining > 0:
                self._closed.wait(min(remaining, self._look))
                continue
            said = active
            self._tell(active)

    def _tell(self, active: tuple[float, float, Callable[[], str]]) -> None:
        start, _deadline, what = active
        with contextlib.suppress(Exception):  # a report that cannot be written changes nothing
            self._say(what(), time.monotonic() - start)


class _Watch:
    """One watched call (a class: a generator context manager costs more than the watch)."""

    __slots__ = ("_dog", "_limit", "_what")

    def __init__(self, dog: Watchdog, limit: float | None, what: Callable[[], str]) -> None:
        self._dog, self._limit, self._what = dog, limit, what

    def __enter__(self) -> None:
        if self._limit:
            start = time.monotonic()
            grace = max(self._dog.grace, self._limit * _GRACE_SHARE)
            self._dog._active = (start, start + self._limit + grace, self._what)

    def __exit__(self, *_exc: object) -> None:
        if self._limit:
            self._dog._active = None


def watch_call(
    dog: Watchdog | None, limit: float | None, tool: str, arguments: Mapping[str, Any]
) -> AbstractContextManager[None]:
    """The ``tools/call`` of ``tool`` watched by ``dog`` (not watched without one)."""
    if dog is None:
        return contextlib.nullcontext()
    from fusion_core._mcp._call_limits import describe_call  # noqa: PLC0415 - only when said

    return dog.watch(limit, lambda: describe_call(tool, arguments))
