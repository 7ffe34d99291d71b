"""pytest_mcpfusion._contract._heap: a contract test collects its own young heap only."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from pytest_mcpfusion._contract._heap import young_heap_only


@pytest.fixture(autouse=True)
def _nothing_frozen() -> Iterator[None]:
    """Each test starts and ends with nothing frozen and the collector on."""
    # A server run in this process (tests._support.servers.serving) gives it back too.
    assert gc.get_freeze_count() == 0, "an earlier test left this process's heap frozen"
    assert gc.isenabled()
    yield
    gc.enable()
    gc.unfreeze()


class _Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the collector frees it


def test_the_earlier_heap_is_frozen_during_the_block_and_given_back() -> None:
    """Inside, the objects that existed are frozen; after, nothing is."""
    held = [object()]  # a list is tracked by the collector
    with young_heap_only():
        assert gc.get_freeze_count() >= len(gc.get_referrers(held[0]))
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0


def test_garbage_made_during_the_block_is_collected_during_it() -> None:
    """A cycle the test makes is young: a collection inside the block frees it."""
    with young_heap_only():
        node = _Node()
        gone = weakref.ref(node)
        del node
        gc.collect()
        assert gone() is None


def test_garbage_of_the_earlier_heap_is_freed_after_the_block() -> None:
    """An old cycle dropped inside the block survives it, and the next full collection frees it."""
    node = _Node()
    gone = weakref.ref(node)
    with young_heap_only():
        del node
        gc.collect()
        assert gone() is not None  # frozen with the heap it belonged to
    gc.collect()
    assert gone() is None


def test_an_exception_still_gives_the_heap_back() -> None:
    """However the test ends (a failure, KeyboardInterrupt), nothing stays frozen."""
    with pytest.raises(KeyboardInterrupt), young_heap_only():
        raise KeyboardInterrupt
    assert gc.get_freeze_count() == 0


def test_a_disabled_collector_is_left_as_it_is() -> None:
    """gc.disable() set by the user: no freeze, the collector stays off."""
    gc.disable()
    with young_heap_only():
        assert gc.get_freeze_count() == 0
    assert not gc.isenabled()


def test_what_its_owner_froze_stays_frozen() -> None:
    """A heap frozen before (gc.freeze before a fork): not frozen again, not released after."""
    gc.freeze()
    frozen = gc.get_freeze_count()
    with young_heap_only():
        assert gc.get_freeze_count() == frozen
    assert gc.get_freeze_count() == frozen
