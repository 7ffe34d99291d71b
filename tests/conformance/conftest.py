"""Conformance reports that survive any text the corpus holds.

A golden may hold lone surrogates (hostile cases). pytest puts the compared
texts into a failure's report, and xdist sends reports to the controller as
UTF-8, which a lone surrogate cannot be: the worker crashed while reporting
and ``-n 2`` ended in INTERNALERROR. Each report's text is made encodable here
(a lone surrogate reads as a backslash escape), so a failure is reported, not lost.
"""

from __future__ import annotations

from collections.abc import Generator

import pytest


def _encodable(text: str) -> str:
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport() -> Generator[None, pytest.TestReport, None]:
    """Replace text a UTF-8 channel cannot carry in the report."""
    outcome = yield
    report = outcome.get_result()
    if report.longrepr is not None:
        text = str(report.longrepr)
        if _encodable(text) != text:
            report.longrepr = _encodable(text)
    report.sections = [(title, _encodable(body)) for title, body in report.sections]
