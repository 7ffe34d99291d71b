"""What the plugin must never lose: a failure report, and a failed test's snapshots.

**Reports xdist cannot send.** A lone surrogate (U+D800 to U+DFFF, unpaired) is what this
library refuses to put on the wire, so it turns up in this domain's captured
output, assertion messages and report sections. pytest-xdist sends a worker's
reports through execnet, which encodes text as strict UTF-8: one such
character crashes the worker and the failure vanishes (the run can even end
green). :func:`escape_surrogates` rewrites every string of a serialized report
with such characters backslash-escaped (six ASCII characters each), so
the report always arrives and says what it said.

**Snapshots of failed tests.** Under ``--snapshot-update`` syrupy deletes the
snapshots a test that ran did not assert. A test that failed before its
snapshot assertion (a contract violation under ``--fusion``, or anything else)
did not assert them either, and they were deleted: accepted snapshots lost to
an unrelated failure. :class:`KeepFailedSnapshots` tells syrupy such a test
counts as skipped, which keeps its snapshots as they are.
"""

from __future__ import annotations

from typing import Any

import pytest

__all__ = ["KeepFailedSnapshots", "escape_surrogates"]


def escape_surrogates(value: Any) -> Any:
    """``value`` with every lone surrogate in its strings (and keys) backslash-escaped.

    Walks dicts, lists and tuples; anything else is returned unchanged, as is
    every string without a surrogate (the usual case, no copy made).
    """
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", "backslashreplace").decode("utf-8")
        return value
    if isinstance(value, dict):
        return {escape_surrogates(key): escape_surrogates(item) for key, item in value.items()}
    if isinstance(value, list):
        return [escape_surrogates(item) for item in value]
    if isinstance(value, tuple):
        return tuple(escape_surrogates(item) for item in value)
    return value


class KeepFailedSnapshots:
    """Marks a failed test as skipped for syrupy, so its snapshots are never deleted."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    @pytest.hookimpl(trylast=True)  # after syrupy recorded the outcome
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """A failed setup or call becomes "skipped" in syrupy's record of the run."""
        if not report.failed or report.when == "teardown":
            return
        try:
            from pytest_mcpfusion._snapshots._syrupy_private import mark_skipped  # noqa: PLC0415 - syrupy loads on first use
        except ImportError:  # syrupy is not installed: no snapshot to keep
            return
        mark_skipped(self.config, report.nodeid)
