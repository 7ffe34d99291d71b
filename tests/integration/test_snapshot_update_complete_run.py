"""``--snapshot-update`` deletes an unused snapshot only after a run that reached every test.

syrupy deleted the accepted snapshots of every test a run never reached: a
syntax error in another test file, ``-x``/``--maxfail``, Ctrl-C,
``pytest.exit()``, ``--collect-only``, a module skipped at collection, and
(through ``-k`` matched against names only) a deselected marked test. Each
case here accepts 41 snapshots, stops a run early its own way, and finds all
41 byte for byte, with the summary saying how many were kept and why; a
run that does reach every test still deletes an orphan.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests._support.written import Written

COUNT = 41
BASE = ("-p", "no:cacheprovider", "-p", "no:randomly")
XDIST = ("-p", "xdist", "-n", "2")


def _tests(first: int, last: int, *, body: str = "") -> str:
    """Tests ``test_<first>`` to ``test_<last - 1>``, each asserting one snapshot."""
    lines = ["import pytest", "from fusion_core import response", ""]
    for n in range(first, last):
        lines += [
            "",
            f"def test_{n}(fusion_snapshot):",
            *([f"    {line}" for line in body.replace("{n}", str(n)).splitlines()]),
            f"    assert response('answer {n}').build() == fusion_snapshot",
            "",
        ]
    return "\n".join(lines)


_ACCEPTING_RUN = Written()


def _accepted(pytester: pytest.Pytester) -> dict[str, bytes]:
    """Accept 41 snapshots in two test files; return them by path.

    The accepting run happens once per process; later tests write the files
    it wrote (the same bytes for the same two test files) into their folder.
    """
    pytester.makepyfile(test_one=_tests(0, 20), test_two=_tests(20, COUNT))
    _ACCEPTING_RUN.make(
        pytester.path,
        lambda: pytester.runpytest(*BASE, "--snapshot-update").assert_outcomes(passed=COUNT),
    )
    snapshots = _snapshots(pytester.path)
    assert len(snapshots) == COUNT
    return snapshots


def _snapshots(root: Path) -> dict[str, bytes]:
    return {path.relative_to(root).as_posix(): path.read_bytes() for path in root.rglob("*.wire")}


def _kept(result: pytest.RunResult, kept: int | str, why: str) -> None:
    """The summary says how many unused snapshots were kept, and why; none was deleted.

    ``kept`` is what syrupy would have deleted: the snapshots of the tests
    not reached (a failed test's count as its own, never unused).
    """
    result.stdout.fnmatch_lines([f"{kept} unused snapshots kept, not deleted: {why}*"])
    assert "unused snapshot deleted" not in result.stdout.str()
    assert "unused snapshots deleted" not in result.stdout.str()


@pytest.mark.parametrize(
    ("workers", "kept"), [((), COUNT), (XDIST, COUNT - 20)], ids=["serial", "xdist"]
)
def test_a_syntax_error_in_a_test_file_deletes_nothing(
    pytester: pytest.Pytester, workers: tuple[str, ...], kept: int
) -> None:
    """A test file that no longer imports: every snapshot stays.

    Alone, pytest stops at the collection error (none of the 41 tests run);
    xdist runs the other file's 20 tests, and keeps the 21 of the broken one.
    """
    accepted = _accepted(pytester)
    pytester.makepyfile(test_two=_tests(20, COUNT) + "\ndef broken(:\n")
    run = pytester.runpytest_subprocess if workers else pytester.runpytest
    result = run(*BASE, *workers, "--snapshot-update")
    assert result.ret in {pytest.ExitCode.INTERRUPTED, pytest.ExitCode.TESTS_FAILED}
    _kept(result, kept, "collection failed for test_two.py")
    assert _snapshots(pytester.path) == accepted


@pytest.mark.parametrize(
    ("stop", "workers", "kept"),
    [(("-x",), (), "40"), (("--maxfail=2",), (), "39"), (("-x",), XDIST, "*")],
    ids=["x", "maxfail", "x-xdist"],
)
def test_a_run_stopped_after_failures_deletes_nothing(
    pytester: pytest.Pytester, stop: tuple[str, ...], workers: tuple[str, ...], kept: str
) -> None:
    """-x and --maxfail stop before most tests ran: their snapshots stay.

    (Under xdist how many tests the workers finished before the stop varies.)
    """
    accepted = _accepted(pytester)
    pytester.makepyfile(test_one=_tests(0, 20, body="assert {n} > 1"))
    run = pytester.runpytest_subprocess if workers else pytester.runpytest
    result = run(*BASE, *workers, *stop, "--snapshot-update")
    assert result.ret in {pytest.ExitCode.TESTS_FAILED, pytest.ExitCode.INTERRUPTED}
    _kept(result, kept, "the run stopped early (stopping after *")
    assert _snapshots(pytester.path) == accepted


def test_pytest_exit_deletes_nothing(pytester: pytest.Pytester) -> None:
    """pytest.exit() with exit code 0 in the third test: the rest stay."""
    accepted = _accepted(pytester)
    body = "if {n} == 2:\n    pytest.exit('enough', returncode=0)"
    pytester.makepyfile(test_one=_tests(0, 20, body=body))
    result = pytester.runpytest(*BASE, "--snapshot-update")
    assert result.ret == 0
    _kept(result, 39, "the run stopped early (stopped): 39 of 41 selected tests not run")
    assert _snapshots(pytester.path) == accepted


def test_a_keyboard_interrupt_in_a_test_deletes_nothing(pytester: pytest.Pytester) -> None:
    """A KeyboardInterrupt raised by the sixth test: the rest stay."""
    accepted = _accepted(pytester)
    body = "if {n} == 5:\n    raise KeyboardInterrupt"
    pytester.makepyfile(test_one=_tests(0, 20, body=body))
    result = pytester.runpytest_subprocess(*BASE, "--snapshot-update")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    _kept(result, 36, "the run stopped early (interrupted): 36 of 41 selected tests not run")
    assert _snapshots(pytester.path) == accepted


def test_ctrl_c_deletes_nothing(pytester: pytest.Pytester) -> None:
    """SIGINT to a pytest process while its fourth test waits: every snapshot stays."""
    accepted = _accepted(pytester)
    started = pytester.path / "started"
    body = f"if {{n}} == 3:\n    open({str(started)!r}, 'w').close()\n    time.sleep(30)"
    pytester.makepyfile(test_one="import time\n" + _tests(0, 20, body=body))
    command = [sys.executable, "-m", "pytest", *BASE, "--snapshot-update"]
    with subprocess.Popen(
        command, cwd=pytester.path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    ) as process:
        deadline = time.monotonic() + 30
        while not started.exists() and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.05)
        assert started.exists(), "the fourth test never started"
        process.send_signal(signal.SIGINT)
        output, _ = process.communicate(timeout=30)
    assert process.returncode == pytest.ExitCode.INTERRUPTED, output
    assert "unused snapshots kept, not deleted: the run stopped early (interrupted)" in output
    assert "unused snapshots deleted" not in output
    assert _snapshots(pytester.path) == accepted


def test_collect_only_deletes_nothing(pytester: pytest.Pytester) -> None:
    """--collect-only --snapshot-update runs no test: every snapshot stays."""
    accepted = _accepted(pytester)
    result = pytester.runpytest(*BASE, "--collect-only", "--snapshot-update")
    _kept(result, COUNT, "--collect-only ran no test")
    assert _snapshots(pytester.path) == accepted


def test_a_module_skipped_at_collection_keeps_its_snapshots(pytester: pytest.Pytester) -> None:
    """pytest.skip(allow_module_level=True) in one file: that file's 21 snapshots stay."""
    accepted = _accepted(pytester)
    skip = "import pytest\npytest.skip('not on this platform', allow_module_level=True)\n"
    pytester.makepyfile(test_two=skip + _tests(20, COUNT))
    result = pytester.runpytest(*BASE, "--snapshot-update")
    result.assert_outcomes(passed=20, skipped=1)
    _kept(result, 21, "collection skipped for test_two.py")
    assert _snapshots(pytester.path) == accepted


@pytest.mark.parametrize(
    "select",
    [("-k", "not slow"), ("-m", "not slow"), ("--deselect", "test_two.py::test_20")],
    ids=["k-marker", "m", "deselect"],
)
def test_a_deselected_test_keeps_its_snapshot(
    pytester: pytest.Pytester, select: tuple[str, ...]
) -> None:
    """A deselected test's snapshot is not unused; a complete run still deletes an orphan.

    syrupy matched ``-k`` against snapshot names, so ``-k "not slow"`` (a
    marker) deleted the ``slow`` test's snapshot.
    """
    accepted = _accepted(pytester)
    marked = _tests(20, COUNT).replace("\ndef test_20(", "\n@pytest.mark.slow\ndef test_20(")
    pytester.makeini("[pytest]\nmarkers =\n    slow: slow\n")
    pytester.makepyfile(test_two=marked)
    orphan = pytester.path / "__snapshots__" / "test_two" / "test_gone.wire"
    orphan.write_bytes(accepted["__snapshots__/test_two/test_21.wire"])
    result = pytester.runpytest(*BASE, *select, "--snapshot-update")
    result.assert_outcomes(passed=COUNT - 1, deselected=1)
    assert "kept, not deleted" not in result.stdout.str()
    assert not orphan.exists(), "a complete run deletes a snapshot no test owns"
    assert _snapshots(pytester.path) == accepted


@pytest.mark.parametrize("workers", [(), XDIST], ids=["serial", "xdist"])
def test_a_complete_run_still_deletes_unused_snapshots(
    pytester: pytest.Pytester, workers: tuple[str, ...]
) -> None:
    """Every selected test ran (some failed): the snapshot of a removed test is deleted."""
    accepted = _accepted(pytester)
    pytester.makepyfile(test_two=_tests(20, COUNT - 1, body="assert {n} != 25"))
    run = pytester.runpytest_subprocess if workers else pytester.runpytest
    result = run(*BASE, *workers, "--snapshot-update")
    result.assert_outcomes(passed=COUNT - 2, failed=1)
    result.stdout.fnmatch_lines(["*1 unused snapshot deleted*"])
    assert "kept, not deleted" not in result.stdout.str()
    left = _snapshots(pytester.path)
    assert sorted(accepted.keys() - left.keys()) == [
        f"__snapshots__/test_two/test_{COUNT - 1}.wire"
    ]
    assert all(left[name] == accepted[name] for name in left)


@pytest.mark.parametrize(("rerun", "passed"), [("--lf", COUNT - 1), ("--sw", 30)])
def test_rerunning_the_failures_keeps_the_other_snapshots(
    pytester: pytest.Pytester, rerun: str, passed: int
) -> None:
    """--lf (or --sw) after a failure reruns from it: the passed tests keep their snapshots."""
    pytester.makepyfile(test_one=_tests(0, 20), test_two=_tests(20, COUNT))
    pytester.runpytest("-p", "no:randomly", "--snapshot-update").assert_outcomes(passed=COUNT)
    accepted = _snapshots(pytester.path)
    pytester.makepyfile(test_two=_tests(20, COUNT, body="assert {n} != 30"))
    first = pytester.runpytest("-p", "no:randomly", *([rerun] if rerun == "--sw" else []))
    first.assert_outcomes(passed=passed, failed=1)
    result = pytester.runpytest("-p", "no:randomly", rerun, "--snapshot-update")
    result.assert_outcomes(failed=1, deselected=passed if rerun == "--sw" else None)
    assert "snapshot deleted" not in result.stdout.str()
    assert "snapshots deleted" not in result.stdout.str()
    assert _snapshots(pytester.path) == accepted


# A syrupy whose clean-up does not read --snapshot-no-cleanup (as one before it had the option).
DEAF_SYRUPY = """
from syrupy.report import SnapshotReport

SnapshotReport.should_delete_unused_snapshots = property(lambda report: report.update_snapshots)
"""


def test_a_syrupy_without_no_cleanup_still_deletes_nothing(pytester: pytest.Pytester) -> None:
    """If syrupy ignores the no-cleanup option, its session's clean-up still deletes nothing."""
    accepted = _accepted(pytester)
    pytester.makepyfile(test_one=_tests(0, 20, body="assert {n} > 1"), deaf=DEAF_SYRUPY)
    pytester.syspathinsert()
    result = pytester.runpytest(*BASE, "-p", "deaf", "-x", "--snapshot-update")
    result.assert_outcomes(failed=1)
    assert _snapshots(pytester.path) == accepted
