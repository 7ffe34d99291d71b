"""A contract test's search: it ends at the first failure, after a bounded shrink."""

from __future__ import annotations

import copy

import pytest
from hypothesis import Phase, given, seed, settings
from hypothesis import strategies as st

from pytest_mcpfusion import strategies
from pytest_mcpfusion._contract._search import (
    BATCH,
    SHRINK_CALLS,
    ShrinkBudget,
    examples_for,
    search_settings,
    search_settings_of,
)


class _Stop(BaseException):
    def __init__(self, failure: Exception) -> None:
        super().__init__(str(failure))
        self.failure = failure


def test_no_failure_spends_nothing() -> None:
    """Before any failure, calls are never counted (generation runs every example)."""
    budget = ShrinkBudget(_Stop, limit=2)
    for _ in range(100):
        budget.spend()


def test_after_a_failure_the_budget_ends_the_search_with_the_last_failure() -> None:
    """``limit`` more calls, then the stop exception carrying the latest (smallest) failure."""
    budget = ShrinkBudget(_Stop, limit=3)
    first, smaller = ValueError("first"), ValueError("smaller")
    assert budget.failed(first) is first
    budget.spend()
    budget.failed(smaller)
    budget.spend()
    budget.spend()
    with pytest.raises(_Stop) as stopped:
        budget.spend()
    assert stopped.value.failure is smaller


def test_hypothesis_shrinking_is_bounded_by_the_budget() -> None:
    """A failing property that hypothesis would shrink at length stops after the budget.

    Without the budget (the old contract test) hypothesis made 203 calls
    here, most of them shrinking this failure.
    """
    calls = 0
    first_failure: list[int] = []
    budget = ShrinkBudget(_Stop)

    @seed(7)
    @settings(**search_settings(25))
    @given(st.lists(st.dictionaries(st.text(), st.integers()), min_size=3))
    def run(values: list[dict[str, int]]) -> None:
        nonlocal calls
        budget.spend()
        calls += 1
        if sum(len(mapping) for mapping in values) > 6:
            first_failure[:] = first_failure or [calls]
            raise budget.failed(AssertionError(values))

    with pytest.raises(_Stop) as stopped:
        run()
    assert calls - first_failure[0] == SHRINK_CALLS
    assert isinstance(stopped.value.failure, AssertionError)


def test_settings_end_at_the_first_failure_without_explaining() -> None:
    """One failure per action (no second bug searched for); no explain phase replays."""
    chosen = search_settings(26)
    assert chosen["max_examples"] == 2 + 25 // BATCH  # the simplest call, batches, one spare
    assert chosen["report_multiple_bugs"] is False
    assert Phase.explain not in chosen["phases"]
    assert {Phase.generate, Phase.shrink} <= set(chosen["phases"])


@pytest.mark.parametrize(("calls", "examples"), [(0, 1), (1, 1), (2, 3), (6, 3), (7, 4), (25, 7)])
def test_examples_send_the_calls_asked_for_and_a_spare_batch(calls: int, examples: int) -> None:
    """The simplest call, batches of BATCH for the rest, and one more (mutations repeat calls)."""
    assert examples_for(calls) == examples
    if calls > 1:
        sent = 1 + (examples - 1) * BATCH
        assert calls + BATCH <= sent < calls + 2 * BATCH


def test_strategies_are_built_once_per_schema() -> None:
    """Equal definitions share one strategy (hypothesis caches its checks on the object)."""
    definition = {
        "name": "t",
        "inputSchema": {
            "type": "object",
            "properties": {"id": {"type": "string", "pattern": "^X-[0-9]+$"}},
            "required": ["id"],
        },
    }
    first = strategies.action_arguments(definition, None, valid=False)
    assert strategies.action_arguments(copy.deepcopy(definition), None, valid=False) is first
    assert strategies.action_arguments(definition, None, valid=True) is not first
    anything = {"name": "any", "inputSchema": {"type": "object"}}
    for _ in range(2):  # the refusal is remembered, and raised again each time
        with pytest.raises(ValueError, match="accepts every object"):
            strategies.action_arguments(anything, None, valid=False)


def test_the_settings_are_made_once_per_count_and_profile() -> None:
    """One settings object per count; loading a profile makes them again, inheriting from it."""
    first = search_settings_of(26)
    assert search_settings_of(26) is first
    assert search_settings_of(3) is not first
    assert first.max_examples == examples_for(26)
    previous = settings.get_current_profile_name()
    settings.register_profile("search-settings-probe", stateful_step_count=7)
    settings.load_profile("search-settings-probe")
    try:
        again = search_settings_of(26)
        assert again is not first
        assert again.stateful_step_count == 7
        assert again.max_examples == examples_for(26)
    finally:
        settings.load_profile(previous)
    restored = settings.default
    assert restored is not None
    assert search_settings_of(26).stateful_step_count == restored.stateful_step_count
