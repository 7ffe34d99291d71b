"""Repository-wide test configuration.

Hypothesis profiles come from the plugin (``fusion_hypothesis_profile = "auto"``
in pyproject.toml): ``CI=true`` selects the derandomized ``fusion-ci`` profile,
so a CI run is reproducible; locally ``fusion-dev`` explores freshly each run;
``--fusion-hypothesis-profile=fusion-thorough`` (``./dev thorough``) runs
100,000 examples or more a property. The profile is the only switch: the
properties in ``tests/properties`` take their counts from it, scaled by a
per-property weight (``tests/_support/budget.py``).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from _pytest.pytester import SysModulesSnapshot

from tests._support import hypothesis_globals

pytest_plugins = ("pytester",)


@pytest.fixture
def pytester(pytester: pytest.Pytester) -> Iterator[pytest.Pytester]:
    """A pytester whose in-process runs forget only the temp project's own modules.

    pytester restores ``sys.modules`` after each in-process run (and at the
    end of the test), dropping every module first imported during it. The
    libraries under test import much on first use (fusion_core's public
    names, pydantic's ``json_schema``, the MCP SDK), and keep what they
    import: a ``Presenter`` made in one run would then outlive the
    ``pydantic.main`` it was built on, and the next run's models (a fresh
    ``BaseModel``) would be refused. Failures that depend on test order and
    on xdist's distribution. Here only modules whose file lies in the temp
    project (its tests, its app, its conftest) are forgotten, as a real
    process would never see them again either. Hypothesis's forced seed and
    profile, which an in-process run may set, are restored after the test
    (``tests/_support/hypothesis_globals.py``).
    """
    root = pytester.path

    def preserve(name: str) -> bool:
        module = sys.modules.get(name)
        places = [getattr(module, "__file__", None), *getattr(module, "__path__", ())]
        return not any(place and Path(place).is_relative_to(root) for place in places)

    # pytester's own hook for this is private: both snapshots it takes use it.
    pytester._Pytester__take_sys_modules_snapshot = lambda: SysModulesSnapshot(preserve)  # type: ignore[attr-defined]
    pytester._sys_modules_snapshot = SysModulesSnapshot(preserve)
    with hypothesis_globals.kept():
        yield pytester
