"""Hypothesis profiles for Fusion property tests: one switch from CI to thorough.

Three profiles, named so they never clash with hypothesis's built-in ``ci``:

* ``fusion-ci`` — bounded and reproducible: 100 examples a property,
  derandomized (the same examples every run), no example database, no deadline
  (shared CI machines are noisy).
* ``fusion-dev`` — for local runs: 100 fresh examples a property, failures
  kept in the example database and replayed first.
* ``fusion-thorough`` — 100,000 examples a property, for a night's run or a
  release; failures are kept in the database.

They are registered whenever hypothesis is imported, through hypothesis's own
``hypothesis`` entry point (``pyproject.toml``), so hypothesis's
``--hypothesis-profile=fusion-ci`` and ``settings.load_profile`` can name them
while a run that never imports hypothesis does not pay for it (about 0.3 s);
the plugin registers them too at configure when hypothesis is already
imported or ``--hypothesis-profile`` names one (``HYPOTHESIS_NO_PLUGINS``
turns the entry points off). The plugin loads one when
``--fusion-hypothesis-profile`` or the ``fusion_hypothesis_profile`` ini key
names it; ``auto`` is ``fusion-ci`` on a CI machine (the ``CI`` environment
variable set, and not to ``false`` or ``0``, as every major CI service sets
it) and ``fusion-dev`` elsewhere. Tests that set ``max_examples`` themselves
keep their number; properties that should scale with the profile leave it
unset.
"""

from __future__ import annotations

import os
from typing import Final

__all__ = ["AUTO", "CI", "DEV", "PROFILES", "THOROUGH", "choose", "load", "register"]

CI: Final = "fusion-ci"
DEV: Final = "fusion-dev"
THOROUGH: Final = "fusion-thorough"
AUTO: Final = "auto"
PROFILES: Final = (CI, DEV, THOROUGH)


# Strategies built from hostile text are slow to generate by design.
def register() -> None:
    """Register the three profiles (idempotent); nothing to do without hypothesis."""
    try:
        from hypothesis import HealthCheck, settings  # noqa: PLC0415 - hypothesis is optional
    except ImportError:
        return
    slow = [HealthCheck.too_slow]
    settings.register_profile(
        CI,
        max_examples=100,
        derandomize=True,
        database=None,
        deadline=None,
        print_blob=True,
        suppress_health_check=slow,
    )
    settings.register_profile(DEV, max_examples=100, deadline=None, suppress_health_check=slow)
    settings.register_profile(
        THOROUGH,
        max_examples=100_000,
        deadline=None,
        print_blob=True,
        suppress_health_check=[*slow, HealthCheck.data_too_large],
    )


def choose(name: str) -> str:
    """The profile to load for an option or ini value (``auto`` decided here).

    Raises ``ValueError`` naming the known profiles when ``name`` is none of them.
    """
    if name == AUTO:
        return CI if os.environ.get("CI", "").lower() not in ("", "0", "false") else DEV
    if name not in PROFILES:
        known = ", ".join([*PROFILES, AUTO])
        raise ValueError(f"unknown Fusion hypothesis profile {name!r}: use one of {known}")
    return name


def load(name: str) -> None:
    """Register the profiles and load ``name`` (one of :data:`PROFILES`).

    Raises ``ValueError`` naming the missing package when hypothesis is not installed.
    """
    try:
        from hypothesis import settings  # noqa: PLC0415 - hypothesis is optional
    except ImportError:
        msg = f"the hypothesis profile {name!r} needs hypothesis, which is not installed"
        raise ValueError(msg) from None
    register()
    settings.load_profile(name)
