"""Repository-wide test configuration.

Hypothesis profiles come from the plugin (``fusion_hypothesis_profile = "auto"``
in pyproject.toml): ``CI=true`` selects the derandomized ``fusion-ci`` profile,
so a CI run is reproducible; locally ``fusion-dev`` explores freshly each run;
``--fusion-hypothesis-profile=fusion-thorough`` (``./dev thorough``) runs
100,000 examples or more a property. The profile is the only switch: the
properties in ``tests/properties`` take their counts from it, scaled by a
per-property weight (``tests/properties/_budget.py``).
"""

from __future__ import annotations

pytest_plugins = ("pytester",)
