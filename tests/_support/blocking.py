"""A blocking job that counts how many of its calls run at once (for worker bounds)."""

from __future__ import annotations

import threading
from typing import Final

__all__ = ["WAIT", "Holder"]

WAIT: Final = 10.0
"""Seconds a blocked call waits before giving up (only when the test fails)."""


class Holder:
    """``hold()`` blocks until ``release`` is set; ``active`` is [running now, most at once].

    ``two_in`` is set as soon as two calls are running together.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.active = [0, 0]
        self.two_in = threading.Event()
        self.release = threading.Event()

    def hold(self) -> str:
        """Block until released: ``"done"``, or ``"timed out"`` after :data:`WAIT`."""
        with self.lock:
            self.active[0] += 1
            self.active[1] = max(self.active[1], self.active[0])
            if self.active[0] == 2:
                self.two_in.set()
        try:
            return "done" if self.release.wait(WAIT) else "timed out"
        finally:
            with self.lock:
                self.active[0] -= 1
