"""call_sync() runs a call in the calling thread, and starts a loop only for what needs one."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from typing import Any

import pytest

from fusion_core import FusionApp, Tool

_MARK: contextvars.ContextVar[str] = contextvars.ContextVar("test_inline_mark", default="unset")


def _where() -> dict[str, Any]:
    """The thread a handler runs in, and whether an event loop runs there."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        running = False
    else:
        running = True
    return {"thread": threading.get_ident(), "loop": running}


def test_a_sync_handler_runs_in_the_calling_thread_with_no_loop_running() -> None:
    """No worker thread and no event loop for a sync handler: it may start a loop of its own."""
    seen: dict[str, Any] = {}

    def handler() -> str:
        seen.update(_where())
        return asyncio.run(asyncio.sleep(0, "own loop"))

    answer = FusionApp([Tool("t").action("run", handler)]).call_sync("t", {"action": "run"})
    assert answer.texts == ["own loop"]
    assert seen == {"thread": threading.get_ident(), "loop": False}


def test_an_async_handler_runs_on_the_loop_it_is_given() -> None:
    """``loop=`` runs async handlers there, call after call (loop-bound state survives)."""
    loop = asyncio.new_event_loop()
    loops: list[asyncio.AbstractEventLoop] = []

    async def handler() -> str:
        await asyncio.sleep(0)
        loops.append(asyncio.get_running_loop())
        return "ok"

    app = FusionApp([Tool("t").action("run", handler)])
    try:
        for _ in range(2):
            assert app.call_sync("t", {"action": "run"}, loop=loop).texts == ["ok"]
    finally:
        loop.close()
    assert loops == [loop, loop]


def test_an_async_handler_gets_a_fresh_loop_without_one() -> None:
    """Without ``loop=``, what needs a loop runs on a fresh one, as ``asyncio.run`` would."""

    async def handler() -> str:
        await asyncio.sleep(0)
        return "ok"

    app = FusionApp([Tool("t").action("run", handler)])
    assert [app.call_sync("t", {"action": "run"}).texts for _ in range(2)] == [["ok"], ["ok"]]


def test_after_an_async_context_factory_a_sync_handler_runs_in_a_worker_thread() -> None:
    """Once the call is on a loop, sync handlers go to the worker pool, as when served."""
    seen: dict[str, Any] = {}

    async def factory() -> str:
        await asyncio.sleep(0)
        return "made"

    def handler(ctx: str) -> str:
        seen.update(_where())
        return ctx

    app = FusionApp([Tool("t").action("run", handler)], context_factory=factory)
    assert app.call_sync("t", {"action": "run"}).texts == ["made"]
    assert seen["thread"] != threading.get_ident()


def test_an_awaitable_a_sync_handler_returns_is_awaited_on_a_loop() -> None:
    """A ``def`` returning a coroutine: the coroutine runs on a loop, its value is the answer."""

    async def later() -> str:
        await asyncio.sleep(0)
        return "later"

    def handler() -> Any:
        return later()

    app = FusionApp([Tool("t").action("run", handler)])
    assert app.call_sync("t", {"action": "run"}).texts == ["later"]


def test_context_variables_a_handler_sets_stay_in_its_call() -> None:
    """The call runs in a copy of the caller's context: it sees its values, sets its own."""

    def handler() -> str:
        seen = _MARK.get()
        _MARK.set("handler")
        return seen

    app = FusionApp([Tool("t").action("run", handler)])
    token = _MARK.set("caller")
    try:
        assert app.call_sync("t", {"action": "run"}).texts == ["caller"]
        assert _MARK.get() == "caller"
    finally:
        _MARK.reset(token)


def test_call_sync_inside_a_running_loop_is_refused() -> None:
    """Inside a loop the call must be awaited: the error says so."""
    app = FusionApp([Tool("t").action("run", lambda: "x")])

    async def main() -> None:
        app.call_sync("t", {"action": "run"})

    with pytest.raises(RuntimeError, match=r"await app\.call"):
        asyncio.run(main())


def test_a_sync_handler_may_call_the_app_again() -> None:
    """A handler calling ``call_sync`` (no loop runs in its thread) gets its answer."""
    app = FusionApp()

    def inner() -> str:
        return "inner"

    def outer() -> str:
        return "outer+" + app.call_sync("t", {"action": "inner"}).texts[0]

    app.add(Tool("t").action("inner", inner).action("outer", outer))
    assert app.call_sync("t", {"action": "outer"}).texts == ["outer+inner"]


def test_a_closed_loop_is_refused_without_a_stray_coroutine() -> None:
    """``loop=`` a closed loop: asyncio's error, and no coroutine left never awaited."""
    loop = asyncio.new_event_loop()
    loop.close()

    async def handler() -> str:
        return "unreachable"

    app = FusionApp([Tool("t").action("run", handler)])
    with pytest.raises(RuntimeError, match="closed"):
        app.call_sync("t", {"action": "run"}, loop=loop)


def test_a_timeout_cancels_what_awaits_on_the_loop() -> None:
    """``timeout=``: an async handler still waiting at the deadline is cancelled."""
    cancelled: list[bool] = []

    async def handler(seconds: float) -> str:
        try:
            await asyncio.sleep(seconds)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise
        return "slept"

    app = FusionApp([Tool("t").action("wait", handler)])
    loop = asyncio.new_event_loop()
    try:
        with pytest.raises(TimeoutError):
            app.call_sync("t", {"action": "wait", "seconds": 30}, loop=loop, timeout=0.05)
        assert cancelled == [True]
        answer = app.call_sync("t", {"action": "wait", "seconds": 0}, loop=loop, timeout=5)
        assert answer.texts == ["slept"]  # the loop goes on
    finally:
        loop.close()


def test_a_timeout_cannot_cut_a_sync_handler_short() -> None:
    """A sync handler runs in this thread: its answer comes, late (the caller may time it)."""
    import time  # noqa: PLC0415 - this test only

    def handler() -> str:
        time.sleep(0.1)
        return "late"

    app = FusionApp([Tool("t").action("run", handler)])
    assert app.call_sync("t", {"action": "run"}, timeout=0.01).texts == ["late"]
