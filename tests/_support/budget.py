"""How many examples a property runs: the loaded hypothesis profile's count, weighted.

One switch sets the budget of every property: the profile
(``--fusion-hypothesis-profile``: ``fusion-ci`` 100, ``fusion-dev`` 100,
``fusion-thorough`` 100,000). A property's *weight* scales that count, so a
cheap property can run more examples than a slow one in the same budget; the
core properties (order, fences, forgery, lossless, masking) have a weight of
at least 1, so a thorough run checks each on 100,000 examples or more.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, settings

__all__ = ["examples", "profile_examples"]


def profile_examples() -> int:
    """``max_examples`` of the loaded profile (hypothesis's default without one)."""
    return settings.default.max_examples if settings.default is not None else 100


def examples(weight: float, **overrides: Any) -> Callable[[Any], Any]:
    """Settings for a property: ``weight`` times the profile's examples, no deadline."""
    overrides.setdefault(
        "suppress_health_check", [HealthCheck.too_slow, HealthCheck.data_too_large]
    )
    return settings(
        max_examples=max(1, round(profile_examples() * weight)), deadline=None, **overrides
    )
