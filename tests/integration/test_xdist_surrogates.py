"""Under ``-n 2`` no result is lost to a lone surrogate in a report.

pytest-xdist sends each report through execnet, which encodes text as strict
UTF-8; a lone surrogate in captured output, a failure message, a report
section or ``user_properties`` used to crash the worker and lose the failure.
The plugin escapes such characters when a report is serialized.
"""

from __future__ import annotations

import pytest

from pytest_mcpfusion._snapshots._safekeeping import escape_surrogates

SURROGATE_TESTS = r"""
import sys

import pytest


def test_prints_a_surrogate():
    print("captured: \ud800 end")
    sys.stderr.write("stderr: \udfff end\n")
    assert False, "failed after printing"


def test_fails_with_a_surrogate_in_its_message():
    assert "\ud83d" == "x"


def test_records_a_surrogate_property(record_property):
    record_property("seen", "\udc80")
    pytest.fail("property recorded")


def test_a_surrogate_in_a_report_section(request):
    request.node.add_report_section("call", "wire", "section \ud800 text")
    raise AssertionError("with a section")


def test_passes():
    print("\ud800 in a passing test")
"""


def test_every_failure_arrives_under_xdist(pytester: pytest.Pytester) -> None:
    """Four failing tests with surrogates in their reports: four failures reported."""
    pytester.makepyfile(test_surrogates=SURROGATE_TESTS)
    result = pytester.runpytest_subprocess(
        "-p", "xdist", "-n", "2", "-rA", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(failed=4, passed=1)
    output = result.stdout.str()
    assert "captured: \\ud800 end" in output
    assert "worker" not in output.lower() or "crashed" not in output.lower()
    assert "INTERNALERROR" not in output


def test_escaping_keeps_every_other_string_as_it_is() -> None:
    """Only strings that cannot be UTF-8 change, in keys, lists and tuples too."""
    data = {
        "plain": "héllo 🚀",
        "\ud800key": ["a", ("b\udfff", 3), {"n": None}],
        "number": 1.5,
    }
    escaped = escape_surrogates(data)
    assert escaped == {
        "plain": "héllo 🚀",
        "\\ud800key": ["a", ("b\\udfff", 3), {"n": None}],
        "number": 1.5,
    }
    assert escape_surrogates(escaped) == escaped  # nothing left to escape
    assert data["plain"] is escape_surrogates(data)["plain"]
