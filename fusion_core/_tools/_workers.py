"""Worker threads for sync handlers: off the event loop, bounded, cheap to reach.

A sync handler may block (a database driver, a file, ``time.sleep``), so it
must not run on the event loop, where it would stall every other call of
the server. It runs in one of at most ``size`` worker threads instead; calls
beyond that wait in a queue while async handlers go on.

Why not ``anyio.to_thread.run_sync`` with a ``CapacityLimiter``, as
Starlette does? Per call it takes the limiter, enters a shielded cancel
scope, looks for an idle worker and hands over through a ``queue.Queue``:
2.5 to 5 times the CPU of the handoff here (one ``SimpleQueue.put``
and one ``call_soon_threadsafe``), see ``benchmarks/bench_handoff.py``. On
a server with 16 calls in flight that was a tenth of the time of a trivial
sync tool. And anyio's workers belong to one event loop, so
``FusionApp.call_sync`` (one ``asyncio.run`` per call) started a thread on
every call; these threads serve every loop of the process.

The guarantees are the ones the anyio version gave:

- never more than ``size`` sync handlers at once, per pool (one per app);
- the handler sees the caller's context variables (a copy, as anyio and
  ``asyncio.to_thread`` give it);
- a cancelled caller stops waiting at once; a job not started yet never
  starts, one already running finishes in its thread (Python cannot stop a
  thread) and keeps its slot until then, so the bound still holds;
- the threads are daemons: a handler blocked for ever does not keep the
  process from exiting once the server stops.

Only asyncio loops are served this way (the ``mcp`` SDK and anyio's default
run on asyncio); on any other loop (trio) the pool falls back to
``anyio.to_thread.run_sync`` with a ``CapacityLimiter`` of the same size.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import queue
import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar, final

from anyio import CapacityLimiter, to_thread

from fusion_core._anyio_internals import RunVar

__all__ = ["WorkerPool"]

T = TypeVar("T")


@final
class _Job(Generic[T]):
    """One call to run in a worker thread, and where its outcome goes."""

    __slots__ = ("context", "function", "future", "loop")

    def __init__(
        self, function: Callable[[], T], loop: asyncio.AbstractEventLoop, future: asyncio.Future[T]
    ) -> None:
        self.function = function
        self.loop = loop
        self.future = future
        self.context = contextvars.copy_context()

    def run(self) -> Callable[[], None] | None:
        """In a worker thread: run the function unless its caller gave up.

        Returns what reports the outcome to the caller's loop, for the worker
        to call once it counts itself idle again.
        """
        if self.future.cancelled():  # read across threads: at worst the job runs for nothing
            return None
        try:
            result: Any = self.context.run(self.function)
        except BaseException as exc:  # noqa: BLE001 - the caller gets it, as from a direct call
            return functools.partial(self._report, _fail, exc)
        return functools.partial(self._report, _succeed, result)

    def _report(self, how: Callable[[asyncio.Future[T], Any], None], value: Any) -> None:
        # A closed loop (RuntimeError) means nobody waits for this outcome any more.
        with contextlib.suppress(RuntimeError):
            self.loop.call_soon_threadsafe(how, self.future, value)


def _succeed(future: asyncio.Future[Any], result: Any) -> None:
    if not future.cancelled():
        future.set_result(result)


def _fail(future: asyncio.Future[Any], exc: BaseException) -> None:
    if isinstance(exc, StopIteration):
        # A future refuses StopIteration (TypeError), which would leave the caller
        # waiting for ever: it gets the RuntimeError a generator would raise.
        error = RuntimeError(f"the function raised StopIteration({exc.value!r})")
        error.__cause__ = exc
        exc = error
    if not future.cancelled():
        future.set_exception(exc)


@final
class WorkerPool:
    """At most ``size`` daemon threads running sync callables for async callers.

    Threads start when a job finds none idle, up to ``size``, and then stay
    (idle threads cost a blocked ``SimpleQueue.get`` each).
    """

    __slots__ = ("_idle", "_limiter", "_lock", "_queue", "_started", "size")

    def __init__(self, size: int) -> None:
        self.size = size
        self._queue: queue.SimpleQueue[_Job[Any]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0  # threads waiting for a job that no queued job has claimed
        self._started = 0
        self._limiter: RunVar[CapacityLimiter] = RunVar("fusion_core.worker_threads")

    async def run(self, function: Callable[[], T]) -> T:
        """``function()`` in a worker thread; its result or its exception."""
        loop = _running_loop()
        if loop is None:  # not asyncio (trio): anyio's threads, bounded the same
            return await to_thread.run_sync(function, limiter=self._current_limiter())
        future: asyncio.Future[T] = loop.create_future()
        self._submit(_Job(function, loop, future))
        return await future

    def _submit(self, job: _Job[Any]) -> None:
        with self._lock:
            self._queue.put(job)
            if self._idle:
                self._idle -= 1  # an idle thread takes it
            elif self._started < self.size:
                self._started += 1
                name = f"fusion_core worker {self._started}"
                threading.Thread(target=self._work, name=name, daemon=True).start()
            # else every thread is busy: the job waits for the first one free.

    def _work(self) -> None:
        while True:
            report = self._queue.get().run()
            with self._lock:
                # Idle again *before* the caller hears back, so that its next job
                # finds this thread instead of starting another. Counted idle even
                # if a queued job is already waiting for it: that happens only once
                # all ``size`` threads exist, when the count decides nothing.
                self._idle += 1
            if report is not None:
                report()

    def _current_limiter(self) -> CapacityLimiter:
        """The trio fallback's limiter: anyio limiters belong to one event loop."""
        try:
            return self._limiter.get()
        except LookupError:
            limiter = CapacityLimiter(self.size)
            self._limiter.set(limiter)
            return limiter


def _running_loop() -> asyncio.AbstractEventLoop | None:
    """The running asyncio loop, or ``None`` under another event loop (trio)."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
