"""A server dying in a call fails that test, naming the call and the exit; the rest go on."""

from __future__ import annotations

import sys

import pytest

from tests._support.dying import DYING_SERVER

TESTS = """
def test_before(fusion_call):
    assert fusion_call("ok").raw.content[0].text == "fine"


def test_crash(fusion_call):
    fusion_call("crash")


def test_after(fusion_call):
    assert fusion_call("ok").raw.content[0].text == "fine"
"""


def test_a_server_dying_in_a_call_fails_that_test_only(pytester: pytest.Pytester) -> None:
    """The failure names the call, the exit code and the last stderr; the server restarts."""
    pytester.makepyfile(dies=DYING_SERVER, test_calls=TESTS)
    result = pytester.runpytest_subprocess(
        f"--fusion-server={sys.executable} dies.py", "-p", "no:randomly"
    )
    result.assert_outcomes(passed=2, failed=1)
    output = result.stdout.str()
    assert "tools/call 'crash' {} on " in output
    assert "got no answer: it exited with code 3\nthe server's stderr (last lines):" in output
    assert "| fatal: the cache is corrupt" in output
    assert "Traceback" not in output
