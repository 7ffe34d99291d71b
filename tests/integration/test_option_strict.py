"""``--fusion-strict``, the ``fusion_strict`` ini key and ``@pytest.mark.fusion(strict=...)``.

A foreign server writes its rules before its UI block and an unknown
``<secret_notes>`` element; it answers a crash with bare text. By default
the run passes and the wire report warns (not of the misplaced rules: they
read as an embedded child's, the layout the reference writes); in strict
mode the test fails and names each block.
"""

from __future__ import annotations

import pytest

from tests._support.foreign import FOREIGN_SERVER, command

CALLS = """
import pytest


def test_misordered(fusion_call):
    result = fusion_call("misordered")
    assert result.system_rules == ()


@pytest.mark.fusion(strict=True)
def test_marked_strict(fusion_call):
    fusion_call("misordered")


@pytest.mark.fusion(strict=False)
def test_marked_lenient(fusion_call):
    fusion_call("misordered")


def test_crash(fusion_call):
    assert fusion_call("crash").is_error
"""


@pytest.fixture
def foreign(pytester: pytest.Pytester) -> pytest.Pytester:
    """The foreign server and the tests calling it."""
    pytester.makepyfile(foreign=FOREIGN_SERVER, test_calls=CALLS)
    return pytester


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """The gate over the foreign server: in process, or a subprocess under xdist."""
    run = pytester.runpytest_subprocess if "xdist" in args else pytester.runpytest
    return run(
        "--fusion", f"--fusion-server={command()}", "--fusion-examples=2", "-p",
        "no:cacheprovider", "-v", "test_calls.py", *args,
    )  # fmt: skip


def test_default_mode_passes_and_warns_in_the_report(foreign: pytest.Pytester) -> None:
    """An unknown element and a bare error are report warnings; only the marked test fails.

    A misplaced block reads exactly as an embedded child Presenter's (the
    layout the reference writes): only strict mode names it.
    """
    result = _run(foreign)
    result.stdout.fnmatch_lines(
        [
            "*test_calls.py::test_misordered PASSED*",
            "*test_calls.py::test_marked_strict FAILED*",
            "*test_calls.py::test_marked_lenient PASSED*",
            "*test_calls.py::test_crash PASSED*",
        ]
    )
    # One rule for the user's tests and the contract tests: a bare error warns in both.
    result.stdout.fnmatch_lines(["*crash?valid? PASSED*"])
    result.stdout.fnmatch_lines(
        [
            "*Fusion wire report*",
            "warnings: *",
            "*misordered: block 3: ?unknown-element? <secret_notes>*",
        ]
    )
    output = result.stdout.str()
    assert "crash: block 0: [bare-error]" in output
    # The report alone: pytest's short summary after it repeats the strict test's
    # failure in full when CI is set (no truncation), ambiguous-layout included.
    report = output[output.index("Fusion wire report") : output.index("short test summary info")]
    assert "[ambiguous-layout]" not in report


def test_strict_option_fails_each_ambiguous_result(foreign: pytest.Pytester) -> None:
    """Under --fusion-strict the unmarked tests fail, naming block, rule and attribute."""
    result = _run(foreign, "--fusion-strict")
    result.stdout.fnmatch_lines(
        [
            "*test_calls.py::test_misordered FAILED*",
            "*test_calls.py::test_marked_lenient PASSED*",
            "*test_calls.py::test_crash FAILED*",
        ]
    )
    result.stdout.fnmatch_lines_random(["*crash?valid? FAILED*"])  # and fails in both
    output = result.stdout.str()
    assert "block 1: [ambiguous-layout]" in output
    assert "result.system_rules does not include it" in output
    assert "block 3: [unknown-element] <secret_notes>" in output
    assert "block 0: [bare-error]" in output


def test_strict_ini_key(foreign: pytest.Pytester) -> None:
    """``fusion_strict = true`` in the ini file is --fusion-strict."""
    foreign.makeini("[pytest]\nfusion_strict = true\n")
    result = _run(foreign)
    result.stdout.fnmatch_lines(["*test_calls.py::test_misordered FAILED*"])


def test_warnings_from_xdist_workers_reach_the_report(foreign: pytest.Pytester) -> None:
    """Under -n 2 each worker's ambiguity warnings are merged into the controller's report."""
    result = _run(foreign, "-p", "xdist", "-n", "2")
    result.stdout.fnmatch_lines(
        [
            "*Fusion wire report*",
            "*crash: block 0: ?bare-error?*",
            "*misordered: block 3: ?unknown-element? <secret_notes>*",
        ]
    )
