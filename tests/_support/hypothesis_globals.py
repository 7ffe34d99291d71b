"""Hypothesis's process-wide state, kept across a test that runs pytest in process.

An in-process ``pytester`` run configures hypothesis's pytest plugin again:
``--hypothesis-seed`` sets ``hypothesis.core.global_force_seed`` and a
profile option loads that profile, and neither is undone when the run ends.
Every later test of the same worker then ran seeded, and unkeyed ``@given``
tests lost their example database (hypothesis drops the key under a forced
seed), while the properties' budgets (``budget.py``) read another profile:
failures that depended on xdist's distribution.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["kept"]


@contextmanager
def kept() -> Iterator[None]:
    """Restore hypothesis's forced seed and loaded profile when the block ends."""
    from hypothesis import core, settings  # noqa: PLC0415 - the state to keep lives there

    seed = core.global_force_seed
    profile = settings.get_current_profile_name()
    try:
        yield
    finally:
        core.global_force_seed = seed
        if settings.get_current_profile_name() != profile:
            settings.load_profile(profile)
