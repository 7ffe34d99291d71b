"""The worker pool of sync handlers: bound, context, cancellation, failures, exit."""

from __future__ import annotations

import asyncio
import contextvars
import subprocess
import sys
import textwrap
import threading

import pytest

from fusion_core._tools import _workers
from fusion_core._tools._app import FusionApp
from fusion_core._tools._tool import Tool
from fusion_core._tools._workers import WorkerPool
from tests._support.blocking import Holder

_WAIT = 10.0  # seconds a blocked job waits before giving up (only when the test fails)
_VAR: contextvars.ContextVar[str] = contextvars.ContextVar("_VAR", default="unset")


def test_a_job_runs_in_a_worker_thread_with_the_callers_context() -> None:
    """The function runs off the loop's thread and reads the caller's context variables."""
    pool = WorkerPool(2)

    async def main() -> tuple[int, str, int]:
        _VAR.set("caller")
        ident, value = await pool.run(lambda: (threading.get_ident(), _VAR.get()))
        return ident, value, threading.get_ident()

    ident, value, loop_ident = asyncio.run(main())
    assert ident != loop_ident
    assert value == "caller"


def test_threads_serve_every_event_loop_of_the_process() -> None:
    """Two ``asyncio.run`` in a row reuse the same thread: no thread start per loop."""
    pool = WorkerPool(4)
    idents = {asyncio.run(pool.run(threading.get_ident)) for _ in range(5)}
    assert len(idents) == 1


def test_no_more_than_size_jobs_run_at_once() -> None:
    """With ``size=2``, five blocking jobs run two at a time and all complete."""
    pool = WorkerPool(2)
    holder = Holder()

    async def main() -> list[str]:
        jobs = [asyncio.ensure_future(pool.run(holder.hold)) for _ in range(5)]
        assert await asyncio.to_thread(holder.two_in.wait, _WAIT)
        await asyncio.sleep(0.2)  # room for a third thread to start, were there no bound
        assert holder.active == [2, 2]
        holder.release.set()
        return list(await asyncio.gather(*jobs))

    assert asyncio.run(main()) == ["done"] * 5
    assert holder.active == [0, 2]


def test_a_cancelled_job_that_has_not_started_never_runs() -> None:
    """Cancelling a caller whose job waits for a thread drops the job; the pool goes on."""
    pool = WorkerPool(1)
    entered, release = threading.Event(), threading.Event()
    ran: list[str] = []

    def block() -> str:
        entered.set()
        release.wait(_WAIT)
        return "blocked"

    async def main() -> str:
        first = asyncio.ensure_future(pool.run(block))
        assert await asyncio.to_thread(entered.wait, _WAIT)
        queued = asyncio.ensure_future(pool.run(lambda: ran.append("queued")))
        await asyncio.sleep(0)
        queued.cancel()
        with pytest.raises(asyncio.CancelledError):
            await queued
        release.set()
        assert await first == "blocked"
        return await pool.run(lambda: "after")

    assert asyncio.run(main()) == "after"
    assert ran == []


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (ValueError("bad"), ValueError),
        (StopIteration(3), RuntimeError),  # a future cannot hold StopIteration
        (KeyboardInterrupt(), KeyboardInterrupt),
    ],
)
def test_the_exception_of_a_job_reaches_its_caller(
    error: BaseException, expected: type[BaseException]
) -> None:
    """Any exception, StopIteration included, is raised in the caller, never a hang."""
    pool = WorkerPool(1)

    def fail() -> None:
        raise error

    async def main() -> None:
        await asyncio.wait_for(pool.run(fail), _WAIT)

    with pytest.raises(expected):
        asyncio.run(main())


def test_a_sync_handler_raising_stop_iteration_is_an_internal_error() -> None:
    """The app answers with its INTERNAL_ERROR envelope instead of waiting for ever."""

    def handler() -> str:
        raise StopIteration

    answer = FusionApp([Tool("t").action("stop", handler)]).call_sync("t", {"action": "stop"})
    assert answer.is_error
    assert "INTERNAL_ERROR" in answer.texts[0]


def test_off_asyncio_the_pool_falls_back_to_anyio_threads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where no asyncio loop runs (trio), jobs go through anyio's threads, still off the loop."""
    monkeypatch.setattr(_workers, "_running_loop", lambda: None)
    pool = WorkerPool(1)

    async def main() -> tuple[str, int]:
        return await pool.run(lambda: (threading.current_thread().name, threading.get_ident()))

    name, ident = asyncio.run(main())
    assert ident != threading.get_ident()
    assert name == "AnyIO worker thread"


def test_a_handler_blocked_for_ever_does_not_keep_the_process_alive() -> None:
    """The worker threads are daemons: the process exits with a handler still blocked."""
    script = textwrap.dedent(
        """
        import asyncio, threading
        from fusion_core import FusionApp, Tool

        def hang() -> str:
            threading.Event().wait()
            return "never"

        app = FusionApp([Tool("t").action("hang", hang)])

        async def main() -> None:
            try:
                await asyncio.wait_for(app.call("t", {"action": "hang"}), 0.2)
            except TimeoutError:
                print("gave up")

        asyncio.run(main())
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert (done.returncode, done.stdout) == (0, "gave up\n"), done.stderr
