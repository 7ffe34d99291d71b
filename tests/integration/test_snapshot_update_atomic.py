"""``--snapshot-update`` replaces an accepted ``.wire`` whole, or not at all.

syrupy's writer opened the accepted file for writing (emptying it), then
wrote: a crash in between left a 0-byte accepted snapshot, an interrupt
too. Every snapshot file is now written as a pending one is: a temporary
file in the same folder, flushed, renamed over the old one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

TESTS = """
from fusion_core import response

ANSWER = "{answer}"


def test_get(fusion_snapshot):
    assert response(ANSWER).build() == fusion_snapshot
"""

# A plugin that makes the first write of snapshot bytes fail: the process dies
# (os._exit, as a crash or a kill would) or is interrupted, before any byte.
# It wraps every way a file is opened for writing: open() (syrupy's writer)
# and os.fdopen() of a descriptor from tempfile.mkstemp (ours).
DYING = """
import builtins
import os
import tempfile

HOW = os.environ["DYING_HOW"]
_open, _fdopen, _mkstemp = builtins.open, os.fdopen, tempfile.mkstemp
_snapshot_fds = set()


class _Dying:
    def __init__(self, file):
        self._file = file

    def write(self, data):
        if HOW == "exit":
            os._exit(70)
        raise KeyboardInterrupt

    def __getattr__(self, name):
        return getattr(self._file, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self._file.close()


def _opened(file, mode="r", *args, **kwargs):
    handle = _open(file, mode, *args, **kwargs)
    dying = "w" in mode and "__snapshots__" in str(file)
    return _Dying(handle) if dying else handle


def _mkstemp_recorded(*args, **kwargs):
    fd, path = _mkstemp(*args, **kwargs)
    if "__snapshots__" in path:
        _snapshot_fds.add(fd)
    return fd, path


def _fdopened(fd, mode="r", *args, **kwargs):
    handle = _fdopen(fd, mode, *args, **kwargs)
    return _Dying(handle) if "w" in mode and fd in _snapshot_fds else handle


builtins.open, os.fdopen, tempfile.mkstemp = _opened, _fdopened, _mkstemp_recorded
"""

BASE = ("-p", "no:cacheprovider", "-p", "no:randomly")


@pytest.mark.parametrize(("how", "code"), [("exit", 70), ("interrupt", 2)])
def test_a_write_that_dies_leaves_the_accepted_snapshot_whole(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, how: str, code: int
) -> None:
    """The process dies or is interrupted while updating: the old snapshot is there, whole."""
    pytester.makepyfile(test_wire=TESTS.replace("{answer}", "accepted"))
    pytester.runpytest(*BASE, "--snapshot-update").assert_outcomes(passed=1)
    (accepted,) = pytester.path.rglob("*.wire")
    before = accepted.read_bytes()
    assert b"accepted" in before
    pytester.makepyfile(test_wire=TESTS.replace("{answer}", "changed"), dying=DYING)
    monkeypatch.setenv("DYING_HOW", how)
    pytester.syspathinsert()
    result = pytester.runpytest_subprocess(*BASE, "-p", "dying", "--snapshot-update")
    assert result.ret == code
    assert accepted.read_bytes() == before
    left = sorted(path.name for path in accepted.parent.iterdir())
    if how == "interrupt":  # cleaned up; only a killed process leaves its temporary file
        assert left == [accepted.name]
    else:
        assert left[1:] == [accepted.name]
        assert left[0].startswith(".fusion-")
    assert _folder_still_compares(pytester, accepted)


def _folder_still_compares(pytester: pytest.Pytester, accepted: Path) -> bool:
    """A later run reads the accepted snapshot (a left temporary file is no snapshot)."""
    pytester.makepyfile(test_wire=TESTS.replace("{answer}", "accepted"))
    result = pytester.runpytest(*BASE)
    result.assert_outcomes(passed=1)
    return accepted.exists()
