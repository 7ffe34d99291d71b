"""Running a tool call without an event loop, until it needs one.

``FusionApp.call_sync`` (and, through it, the plugin's in-process transport)
is called from code that owns its thread and waits for the answer: nothing
else runs there meanwhile. For such a caller, starting an event loop
(``asyncio.run``: about 230 µs) and handing a sync handler to a worker thread
(about 40 µs) cost far more than the rest of a small call (about 20 µs). So
:func:`drive` runs the call's coroutine by hand, in a copy of the caller's
context, and a sync handler runs right there, in the calling thread, with no
event loop running: as in a worker thread, it may block, and it may start a
loop of its own (``asyncio.run``).

The first time the call is about to await code of the app (an async handler,
an async context factory, an awaitable a sync handler returned), it awaits
:meth:`Inline.leave` instead, and the driver hands the rest of the coroutine
to an event loop (the caller's, or a fresh one) in the same context; from
there on the call runs as ``await app.call()`` does, sync handlers in the
app's worker threads. A served call (``await app.call()``) never goes this
way: it keeps the worker pool and every guarantee the pool gives (no loop
stall, bounded concurrency, cancellation).
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import Coroutine, Generator
from typing import Any, Final, TypeVar, final

__all__ = ["Inline", "drive"]

T = TypeVar("T")


@final
class _NeedLoop:
    """What a call driven without a loop yields when it needs one."""

    __slots__ = ()

    def __await__(self) -> Generator[Any, None, None]:
        yield self


_NEED_LOOP: Final = _NeedLoop()


@final
class Inline:
    """One call driven by :func:`drive`: whether it still runs without a loop."""

    __slots__ = ("loopless",)

    def __init__(self) -> None:
        self.loopless = True

    async def leave(self) -> None:
        """Before the call awaits the app's code: continue on an event loop (once)."""
        if self.loopless:
            self.loopless = False
            await _NEED_LOOP


@final
class _Rest:
    """The rest of a call suspended at :meth:`Inline.leave`, as an awaitable."""

    __slots__ = ("call",)

    def __init__(self, call: Coroutine[Any, Any, Any]) -> None:
        self.call = call

    def __await__(self) -> Generator[Any, Any, Any]:
        # The first send resumes the call where it left off.
        return (yield from self.call.__await__())


async def _rest(call: Coroutine[Any, Any, T]) -> T:
    result: T = await _Rest(call)
    return result


async def _within(call: Coroutine[Any, Any, T], deadline: float) -> T:
    async with asyncio.timeout(deadline - time.monotonic()):
        return await call


def drive(
    call: Coroutine[Any, Any, T],
    inline: Inline,
    loop: asyncio.AbstractEventLoop | None,
    deadline: float | None = None,
) -> T:
    """Run ``call`` here without a loop; from its first :meth:`Inline.leave` on, on ``loop``.

    ``loop`` (not running) is the caller's event loop for the rest; ``None``
    runs it on a fresh loop, closed afterwards, as ``asyncio.run`` would.
    Past ``deadline`` (a ``time.monotonic()`` time) the rest is cancelled and
    ``TimeoutError`` raised; what runs here before it cannot be cut short.
    """
    context = contextvars.copy_context()
    try:
        yielded = context.run(call.send, None)
    except StopIteration as stop:
        result: T = stop.value
        return result
    if yielded is not _NEED_LOOP or inline.loopless:  # pragma: no cover - a bug here, not the app
        call.close()
        msg = "a call run without an event loop awaited something else than its loop"
        raise RuntimeError(msg)
    rest = _rest(call) if deadline is None else _within(_rest(call), deadline)
    try:
        if loop is None:
            with asyncio.Runner() as runner:
                return runner.run(rest, context=context)
        task = loop.create_task(rest, context=context)
    except BaseException:
        rest.close()  # never started (a closed loop): no "never awaited" warning
        call.close()
        raise
    return loop.run_until_complete(task)
