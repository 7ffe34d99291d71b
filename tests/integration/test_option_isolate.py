"""State isolation against a server: ``--fusion-isolate`` and ``pytest_fusion_reset``.

Also the warning when a ``fusion_context`` cannot reach the server. The
runs are in process (the server is a subprocess either way), except the one
that reads the hook's prints with ``-s``, which in process would bypass the
run's captured output.
"""

from __future__ import annotations

import pytest

from tests._support.foreign import FOREIGN_SERVER, command

COUNTS = """
def test_first(fusion_call):
    assert fusion_call("counter").data == {"count": 1}


def test_second(fusion_call):
    assert fusion_call("counter").data == {"count": 1}
"""


@pytest.fixture
def foreign(pytester: pytest.Pytester) -> pytest.Pytester:
    """The foreign server (its counter keeps state) and two tests expecting a fresh one."""
    pytester.makepyfile(foreign=FOREIGN_SERVER, test_counts=COUNTS)
    return pytester


def test_one_server_per_session_shares_state(foreign: pytest.Pytester) -> None:
    """By default the second test sees the first one's call (the state the issue hit)."""
    result = foreign.runpytest(f"--fusion-server={command()}", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)


def test_a_server_per_test_isolates_and_the_reset_hook_runs(foreign: pytest.Pytester) -> None:
    """--fusion-isolate=test restarts the server before each test; the hook runs each time."""
    foreign.makeconftest(
        """
import pytest


@pytest.hookimpl(optionalhook=True)
def pytest_fusion_reset(config, item):
    print("RESET", item.name)
"""
    )
    result = foreign.runpytest_subprocess(
        f"--fusion-server={command()}", "--fusion-isolate=test", "-p", "no:cacheprovider", "-s"
    )
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*RESET test_first*", "*RESET test_second*"])


def test_isolation_ini_key(foreign: pytest.Pytester) -> None:
    """``fusion_isolate = test`` in the ini file is the option."""
    foreign.makeini(f"[pytest]\nfusion_isolate = test\nfusion_server = {command()}\n")
    foreign.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=2)


def test_a_context_override_over_stdio_warns(foreign: pytest.Pytester) -> None:
    """A fusion_context fixture override cannot reach a server: FusionContextWarning says so."""
    foreign.makeconftest(
        """
import pytest


@pytest.fixture
def fusion_context():
    return {"user": "alice"}
"""
    )
    result = foreign.runpytest(
        f"--fusion-server={command()}", "-p", "no:cacheprovider", "-k", "first",
        "-W", "error::pytest_mcpfusion.FusionContextWarning",
    )  # fmt: skip
    result.stdout.fnmatch_lines(
        ["*FusionContextWarning: the fusion_context (dict) cannot reach the server over stdio*"]
    )
    result.assert_outcomes(errors=1, deselected=1)
