"""How a contract test searches: its hypothesis settings, and a bound on shrinking.

A contract test asks one question of an action: does any call break the
contract? So the search ends at the first failure it finds and shrinks:

* ``report_multiple_bugs=False``: hypothesis does not go on looking for a
  second, different failure of the same action once it has one (the test
  fails either way, and the report counts the failure it ends with).
* no ``explain`` phase: it replays the failing call many times to say which
  arguments matter; the failure screen (``_failure.describe``) shows the
  call itself, with the seed that sends it again.
* :class:`ShrinkBudget`: shrinking stops after :data:`SHRINK_CALLS` more
  calls, with the smallest failing call found so far. Against a server each
  call costs a round trip, and hypothesis alone may try hundreds. The same
  seed takes the same path, so the reproduce line sends the same call.
* no example database (nor its ``reuse`` phase): a contract test is replayed
  by its seed (the failure's reproduce line), never from saved examples, so
  one seed gives one report wherever the app runs. The test's ``@seed``
  turns the database off in any case; each item still has a database key of
  its own (``_upstream_hypothesis``), so no item could replay another's.

* batches of :data:`BATCH` calls: each hypothesis example draws that many
  calls. Hypothesis spends about 0.3 ms of bookkeeping per example whatever
  it draws (its data tree, its PRNG state, its executor): a quarter of the
  billing gate's contract tests at one call an example. The calls are drawn
  as before, independently; shrinking works on the batch as on any tuple,
  and the test ends at the first call that fails. ``--fusion-examples=N``
  (calls per test) runs :func:`examples_for` ``(N)`` hypothesis examples:
  its simplest call first, batches for the other ``N - 1``, and one more
  batch, because hypothesis's mutations copy calls within a batch (an
  identical call is judged by its first answer, not sent again): on the
  billing example, 3 seeds, the search then sends 258-269 distinct calls
  where one call an example sent 246-264 of 300.

Generation is otherwise unchanged: every generated call still runs until
one fails.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, TypeVar

if TYPE_CHECKING:
    from hypothesis import settings

__all__ = [
    "BATCH",
    "SHRINK_CALLS",
    "ShrinkBudget",
    "examples_for",
    "search_settings",
    "search_settings_of",
]

BATCH: Final = 5
"""Generated calls per hypothesis example."""
SHRINK_CALLS: Final = 64
"""Calls a contract test may make after its first failing one."""

_F = TypeVar("_F", bound=BaseException)


def examples_for(calls: int) -> int:
    """Hypothesis examples for ``calls`` distinct calls: the simplest, batches, one spare."""
    return 2 + -(-(calls - 1) // BATCH) if calls > 1 else 1


def search_settings(examples: int) -> dict[str, Any]:
    """The ``hypothesis.settings`` keywords of a contract test of ``examples`` calls."""
    from hypothesis import HealthCheck, Phase, Verbosity  # noqa: PLC0415 - hypothesis loads lazily

    return {
        "max_examples": examples_for(examples),
        "deadline": None,
        # Quiet: the failure is described by repr_failure, with the seed to replay it.
        "verbosity": Verbosity.quiet,
        "suppress_health_check": [HealthCheck.too_slow, HealthCheck.filter_too_much],
        "report_multiple_bugs": False,
        "database": None,
        "phases": [Phase.explicit, Phase.generate, Phase.shrink],
    }


def search_settings_of(examples: int) -> settings:
    """The ``hypothesis.settings`` of a contract test of ``examples`` calls, made once per count.

    ``settings(...)`` checks every option it is given; the contract tests of
    a session share one object (a decorator, as any ``settings``). It is
    made again when the default settings change (a profile loaded), whose
    other options it inherits.
    """
    from hypothesis import settings  # noqa: PLC0415 - hypothesis loads lazily

    default = settings.default
    known = _MADE.get(examples)
    if known is not None and known[0] is default:
        made: settings = known[1]
        return made
    made = settings(**search_settings(examples))
    if len(_MADE) >= 64:
        _MADE.clear()
    _MADE[examples] = (default, made)
    return made


_MADE: dict[int, tuple[Any, Any]] = {}


class ShrinkBudget:
    """Counts the calls after a test's first failure; past the budget, ends the search.

    ``stop(failure)`` makes the exception that ends it (a ``BaseException``,
    so hypothesis neither shrinks nor reports it); the test then fails with
    ``failure``, the last (smallest) failing call.
    """

    __slots__ = ("_failure", "_left", "_stop")

    def __init__(self, stop: Callable[[Any], BaseException], limit: int = SHRINK_CALLS) -> None:
        self._stop = stop
        self._left = limit
        self._failure: Any = None

    def spend(self) -> None:
        """Before a call: raise ``stop(last failure)`` when the budget is spent."""
        if self._failure is None:
            return
        if self._left <= 0:
            raise self._stop(self._failure)
        self._left -= 1

    def failed(self, failure: _F) -> _F:
        """A call failed with ``failure`` (returned, to raise); smaller ones replace it."""
        self._failure = failure
        return failure
