"""Shared pieces of the plugin's integration tests (pytester)."""

from __future__ import annotations

import pydantic  # noqa: F401 - loaded before any pytester run (below)
import pytest

import fusion_core
import pytest_mcpfusion
from pytest_mcpfusion import _lifecycle  # noqa: F401 - loaded before any pytester run (below)
from tests._support.pytester_app import APP_SOURCE

# In-process pytester runs drop the modules they imported when they end. With
# fusion_core's lazy imports, the first run would import pydantic and the
# Presenter machinery itself, and the next run a second copy of pydantic,
# whose BaseModel the first copy's Presenter code does not recognize. Loaded
# here, before any run, every run shares one copy (as a real session does).
# The plugin's own modules load lazily too (its front door and _lifecycle):
# loaded here, the runs share one FusionResult class, as a real session does.
for _name in fusion_core.__all__:
    getattr(fusion_core, _name)
for _name in pytest_mcpfusion.__all__:
    getattr(pytest_mcpfusion, _name)


@pytest.fixture(autouse=True)
def _not_an_xdist_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """Inner pytest runs are not xdist workers, even when this suite runs under -n.

    syrupy (and xdist) read these variables: left set, an inner run would
    defer its unused-snapshot report to a controller that does not exist.
    """
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def shop(pytester: pytest.Pytester) -> pytest.Pytester:
    """A pytester directory holding the ``shop`` app module."""
    pytester.makepyfile(shop=APP_SOURCE)
    pytester.syspathinsert()
    return pytester
