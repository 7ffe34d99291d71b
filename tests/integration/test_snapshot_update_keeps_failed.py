"""``--fusion --snapshot-update`` never deletes the snapshots of a test that failed.

The gate fails a test whose result breaks the contract before the test's
snapshot assertion runs; syrupy then saw the snapshot unused and deleted it.
A failed test now counts as skipped for syrupy's clean-up: its snapshots stay
byte for byte.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests._support.pytester_app import ROOT

BARE_SERVER = f"{sys.executable} {ROOT / 'tests' / '_support' / 'bare_sdk_server.py'}"

TESTS = """
def test_well_formed(fusion_call, fusion_snapshot):
    assert fusion_call("well_formed") == fusion_snapshot


def test_malformed(fusion_call, fusion_snapshot):
    assert fusion_call("malformed") == fusion_snapshot


def test_error_without_envelope(fusion_call, fusion_snapshot):
    assert fusion_call("error_without_envelope") == fusion_snapshot


def test_fails_before_its_snapshot(fusion_call, fusion_snapshot):
    result = fusion_call("well_formed")
    assert {SNAPSHOT_FAILS}
    assert result == fusion_snapshot
"""


def _snapshots(root: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in root.rglob("*.wire")}


@pytest.mark.parametrize("workers", [[], ["-p", "xdist", "-n", "2"]], ids=["serial", "xdist"])
def test_failed_tests_keep_their_snapshots(pytester: pytest.Pytester, workers: list[str]) -> None:
    """Gate on, update on, results that break the contract: every snapshot is intact."""
    server = f"--fusion-server={BARE_SERVER}"
    pytester.makepyfile(test_snaps=TESTS.replace("{SNAPSHOT_FAILS}", "True"))
    # The snapshots to keep, written in process (no gate, nothing drawn); the run
    # under test, the gate's, is a subprocess as a user's is.
    accepted = pytester.runpytest(server, "--snapshot-update", "-p", "no:cacheprovider")
    accepted.assert_outcomes(passed=4)
    before = _snapshots(pytester.path)
    assert len(before) == 4
    pytester.makepyfile(test_snaps=TESTS.replace("{SNAPSHOT_FAILS}", "False"))
    gated = pytester.runpytest_subprocess(
        server, "--fusion", "--snapshot-update", "-m", "not fusion", "-p", "no:cacheprovider",
        *workers,
    )  # fmt: skip
    # Which results the gate refuses depends on its rules (well_formed suggests a
    # tool the server does not list); these two fail whatever the rules are.
    failed = {line.split()[1] for line in gated.outlines if line.startswith("FAILED ")}
    assert {"test_snaps.py::test_malformed", "test_snaps.py::test_fails_before_its_snapshot"} <= (
        failed
    )
    gated.stdout.fnmatch_lines(["*breaks the Fusion contract*"])
    assert _snapshots(pytester.path) == before
