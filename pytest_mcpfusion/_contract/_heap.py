"""The garbage collector during a contract test: the heap that was there before is not walked.

A contract test allocates fast (hypothesis's engine and draws, the app's
answers, their review): in the billing gate its allocations set off one
more full collection than the plain suite, a walk of the whole heap (80,000
objects there, far more in a large app's process) that cost 0.03-0.04 s of
the gate's CPU. Nothing the test made needs that walk: what it leaves as
cyclic garbage is young, and the young generations are collected as usual.

So :func:`young_heap_only` freezes the objects that exist when the test
starts (``gc.freeze``: the collector ignores them) and gives them back
(``gc.unfreeze``) when it ends, however it ends. Objects made during the
test are collected as before, full collections included (they walk the
test's own objects only); an object of the earlier heap that becomes
garbage meanwhile is freed at the next full collection after the test.
The user's own tests run with the collector as they set it.

Nothing changes when the collector is off (``gc.disable``) or something is
frozen already (a process that froze its heap before forking, say):
unfreezing would release what its owner froze. What the app itself freezes
during a contract test is given back with the rest when the test ends.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["young_heap_only"]


@contextlib.contextmanager
def young_heap_only() -> Iterator[None]:
    """During the block, collections leave the objects that existed before it alone."""
    if not gc.isenabled() or gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
