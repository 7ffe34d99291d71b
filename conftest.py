"""Repository-wide test configuration.

Hypothesis profiles come from the plugin (``fusion_hypothesis_profile = "auto"``
in pyproject.toml): ``CI=true`` selects the derandomized ``fusion-ci`` profile,
so a CI run is reproducible; locally ``fusion-dev`` explores freshly each run;
``--fusion-hypothesis-profile=fusion-thorough`` runs 100,000 examples a property.
"""

from __future__ import annotations

pytest_plugins = ("pytester",)
