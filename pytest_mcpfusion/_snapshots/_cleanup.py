"""syrupy deletes an unused snapshot only after a run that reached every test.

Under ``--snapshot-update`` syrupy deletes, when the session ends, every
accepted snapshot no assertion of the run used. A run that stopped early did
not use the snapshots of the tests it never reached, and lost them: a syntax
error in one test file (collection stops) deleted every snapshot, ``-x`` or
``--maxfail`` those of the tests after the failure, Ctrl-C those not yet run,
``--collect-only`` all of them. :class:`CleanupGuard` lets the clean-up
happen only when

- collection had no error and skipped no module (``pytest.skip`` or
  ``importorskip`` at module level: that module's snapshots are no less
  accepted), and
- every selected test ran to its teardown: no ``-x``/``--maxfail`` stop, no
  interrupt, no ``pytest.exit()``, no crashed xdist worker.

Otherwise syrupy's ``--snapshot-no-cleanup`` is turned on for the session
(syrupy then reports the snapshots as unused instead of deleted), the
session's ``remove_unused_snapshots`` deletes nothing (for a syrupy that does
not read that option), and the terminal summary says how many were kept
and why.

**Deselected tests** (``-k``, ``-m``, ``--deselect``, ``--lf``) are not run and
their snapshots are not unused: syrupy matches ``-k`` against snapshot names
only, so ``-k "not slow"`` (a marker) deleted the snapshots of the ``slow``
tests. Each deselected test counts as skipped for syrupy, which keeps the
snapshots it owns, as it does a skipped test's.

Everything is decided by the process that deletes: a single process, or the
xdist controller, which sees every worker's collection errors and test
reports. Workers never delete.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from collections.abc import Generator, Sequence

__all__ = ["CleanupGuard"]


class CleanupGuard:
    """Counts what a run collected and finished; keeps every unused snapshot if that is not all."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.selected: set[str] = set()
        self.finished: set[str] = set()
        self.failed_collectors: list[str] = []
        self.skipped_collectors: list[str] = []
        self.deselected: list[pytest.Item] = []
        self.reason: str | None = None
        self.kept = 0

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        """A collector that failed or was skipped (the xdist controller hears the workers')."""
        if report.failed:
            self.failed_collectors.append(report.nodeid or "the session")
        elif report.skipped and report.nodeid:
            self.skipped_collectors.append(report.nodeid)

    def pytest_deselected(self, items: Sequence[pytest.Item]) -> None:
        """Remember the deselected tests; syrupy hears of them after it selected the rest."""
        self.deselected.extend(items)

    @pytest.hookimpl(trylast=True)  # after syrupy recorded the selected tests
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """The tests to run; each deselected one counts as skipped for syrupy."""
        self.selected.update(item.nodeid for item in session.items)
        if self.deselected:
            try:
                from pytest_mcpfusion._snapshots._syrupy_private import select_and_skip  # noqa: PLC0415 - syrupy loads on first use
            except ImportError:  # syrupy is not installed: no snapshot to keep
                return
            select_and_skip(self.config, self.deselected)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: Sequence[str]) -> None:
        """On the xdist controller: the tests a worker will run from."""
        del node
        self.selected.update(ids)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """A test that reached its teardown has run to its end."""
        if report.when == "teardown":
            self.finished.add(report.nodeid)

    @pytest.hookimpl(wrapper=True)
    def pytest_sessionfinish(
        self, session: pytest.Session, exitstatus: int
    ) -> Generator[None, None, None]:
        """Before syrupy's clean-up: turn it off for a run that did not reach every test."""
        option = self.config.option
        deletes = (
            not hasattr(self.config, "workerinput")
            and getattr(option, "update_snapshots", False)
            and not getattr(option, "no_cleanup", False)
        )
        if not deletes:  # syrupy deletes nothing in this run: nothing to guard (or to import)
            return (yield)
        try:
            from pytest_mcpfusion._snapshots._syrupy_private import (  # noqa: PLC0415 - syrupy loads on first use
                keep_unused,
                session_of,
                unused_kept,
            )
        except ImportError:  # syrupy is not installed: it deletes nothing
            return (yield)

        if session_of(self.config) is not None:
            self.reason = self._incomplete(session, exitstatus)
            if self.reason is not None:
                option.no_cleanup = True
                keep_unused(self.config)
        try:
            return (yield)
        finally:
            kept = unused_kept(self.config)
            if self.reason is not None and kept is not None:
                self.kept = kept

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        """Say how many unused snapshots a run that stopped early kept, and why."""
        if self.reason is None or not self.kept:
            return
        noun = "snapshot" if self.kept == 1 else "snapshots"
        terminalreporter.write_sep("=", "Fusion snapshot clean-up")
        terminalreporter.write_line(
            f"{self.kept} unused {noun} kept, not deleted: {self.reason}. "
            "--snapshot-update deletes unused snapshots only after a run that collected "
            "without error and ran every selected test."
        )

    def _incomplete(self, session: pytest.Session, exitstatus: int) -> str | None:
        """Why this run did not reach every test, or ``None`` if it did."""
        if self.failed_collectors:
            return _listed("collection failed", self.failed_collectors)
        if self.skipped_collectors:
            return _listed("collection skipped", self.skipped_collectors)
        if self.config.option.collectonly:
            return "--collect-only ran no test"
        unfinished = len(self.selected - self.finished)
        if unfinished or session.shouldstop or session.shouldfail:
            why = str(session.shouldstop or session.shouldfail or "").rstrip(".")
            if not why:
                why = "interrupted" if exitstatus == pytest.ExitCode.INTERRUPTED else "stopped"
            total = len(self.selected)
            return f"the run stopped early ({why}): {unfinished} of {total} selected tests not run"
        return None


def _listed(what: str, nodeids: list[str]) -> str:
    shown = ", ".join(nodeids[:3]) + (f" and {len(nodeids) - 3} more" if len(nodeids) > 3 else "")
    return f"{what} for {shown}"
