"""The billing example's own tests: run them with ``pytest examples/billing/tests``.

This is the conftest a downstream project writes for pytest-mcpfusion:

- ``fusion_app`` (session scope) hands the plugin the served app, so the suite
  runs with no flags. With ``--fusion --fusion-app=examples.billing.app:app``
  the plugin also collects contract tests for every action; both name the same
  app object, so one in-process transport serves every test.
- ``fusion_context`` gives each test a freshly seeded store, as the app's
  ``context_factory`` would in production: a test that pays an invoice
  cannot change what the next test sees, on any xdist worker.
- ``pytest_fusion_allow_writes`` lets the contract tests call the actions
  that write (``invoices.pay``, ``invoices.void``): they write only to the
  app's in-memory store, which ends with the test process. Without it the
  gate sends them no generated call (a real server's writes would be real).

The repository's ``testpaths`` is ``tests/``, so a bare ``pytest`` does not
collect this directory (and never collects it twice).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from examples.billing.app import BillingContext, app
from examples.billing.data import BillingStore
from fusion_core import FusionApp

if TYPE_CHECKING:
    from collections.abc import Mapping


@pytest.fixture(scope="session")
def fusion_app() -> FusionApp:
    """The billing app, exactly as ``python -m fusion_core serve`` serves it."""
    return app


@pytest.fixture
def fusion_context(pytestconfig: pytest.Config) -> BillingContext | None:
    """What the handlers get as ``ctx``: a store seeded afresh for each test.

    Over stdio or HTTP the server process makes its own context, which no
    fixture can reach (the plugin warns if one is given): run those with
    ``--fusion-isolate=test`` for a freshly seeded server per test.
    """
    if pytestconfig.getoption("fusion_transport") in ("stdio", "http"):
        return None
    return BillingContext(BillingStore.seeded())


@pytest.fixture
def anyio_backend() -> str:
    """Async tests (``@pytest.mark.anyio``) run on asyncio."""
    return "asyncio"


@pytest.hookimpl(optionalhook=True)
def pytest_fusion_allow_writes(
    tool: str, action: str | None, definition: Mapping[str, Any], config: pytest.Config
) -> bool | None:
    """The billing app's writing actions only touch a store seeded for the call: allow them."""
    del action, definition, config
    return True if tool in app.tools else None
