"""The watchdog of calls in process: a call past its limit is said once; others never.

The end-to-end cases (a sync MCPServer tool, a FusionApp handler holding the
thread under ``--fusion-timeout``) are in tests/integration/test_option_limits.py.
"""

from __future__ import annotations

import threading
import time

from pytest_mcpfusion._watchdog import Watchdog


def _dog(said: list[tuple[str, float]]) -> Watchdog:
    return Watchdog(lambda call, seconds: said.append((call, seconds)), grace=0.05, look=0.01)


def test_a_call_past_its_limit_is_said_once_with_how_long_it_held() -> None:
    """Past the limit and the grace: the call's words and its time so far, once."""
    said: list[tuple[str, float]] = []
    dog = _dog(said)
    with dog.watch(0.05, lambda: "tools/call 'hold' {}"):
        time.sleep(0.5)
    dog.close()
    assert len(said) == 1
    call, seconds = said[0]
    assert call == "tools/call 'hold' {}"
    assert 0.1 <= seconds < 0.5


def test_calls_within_their_limit_are_never_said() -> None:
    """A call that ended is not watched any more, however long the thread then looks."""
    said: list[tuple[str, float]] = []
    dog = _dog(said)
    for _ in range(50):
        with dog.watch(0.2, lambda: "quick"):
            pass
    time.sleep(0.4)  # past every one of their deadlines
    dog.close()
    assert said == []


def test_each_late_call_is_said_and_only_while_it_lasts() -> None:
    """Two late calls in turn: each said once, in order."""
    said: list[tuple[str, float]] = []
    dog = _dog(said)
    for name in ("first", "second"):
        with dog.watch(0.05, lambda name=name: name):  # type: ignore[misc]
            time.sleep(0.3)
    time.sleep(0.2)
    dog.close()
    assert [call for call, _ in said] == ["first", "second"]


def _threads(dog: Watchdog) -> list[threading.Thread]:
    return [thread for thread in (dog._thread,) if thread is not None]


def test_no_limit_no_thread_and_close_ends_the_thread() -> None:
    """No thread for calls without a limit; ``close()`` ends it at once (a transport's close)."""
    said: list[tuple[str, float]] = []
    unwatched = _dog(said)
    with unwatched.watch(None, lambda: "unbounded"):
        pass
    assert _threads(unwatched) == []  # a call without a limit starts nothing
    watched = _dog(said)
    with watched.watch(1.0, lambda: "bounded"):
        pass
    (thread,) = _threads(watched)
    assert thread.is_alive()
    assert thread.daemon
    watched.close()
    assert not thread.is_alive()
    with watched.watch(0.01, lambda: "after close"):
        time.sleep(0.1)
    assert said == []  # a closed watchdog watches nothing more


def test_a_report_that_cannot_be_written_changes_nothing() -> None:
    """A say function that raises: the thread goes on watching."""

    def broken(call: str, seconds: float) -> None:
        raise OSError("no terminal")

    dog = Watchdog(broken, grace=0.01, look=0.01)
    with dog.watch(0.01, lambda: "call"):
        time.sleep(0.2)
    (thread,) = _threads(dog)
    assert thread.is_alive()  # the failing report did not end the thread
    dog.close()
    assert not thread.is_alive()
