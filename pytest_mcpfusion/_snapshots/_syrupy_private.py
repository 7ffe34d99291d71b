"""Every reach into syrupy's private parts, in one module: checked against syrupy 7.0.2.

syrupy offers no public way to do these; each is used for a measured reason,
and nothing else in the package touches a private syrupy name:

=======================================  ===============================================
``config._syrupy``                       the run's ``SnapshotSession``: the fixture
                                         builds its assertion on it (as syrupy's own
                                         ``snapshot`` fixture does, without registering
                                         the test twice, which cost as much as the rest)
``SnapshotSession.select_items``,        a deselected or failed test counts as skipped,
``SnapshotSession.ran_item``             so ``--snapshot-update`` keeps its snapshots
                                         (``_cleanup``, ``_safekeeping``)
``SnapshotSession.remove_unused_snapshots``  replaced for a run that did not reach every
                                         test: its clean-up deletes nothing
``SnapshotSession.report.num_unused``    how many unused snapshots such a run kept
``SnapshotAssertion._assert``            the one method that runs a comparison: the
                                         pending ``.wire.new`` file is written or
                                         removed right after it (:class:`HookedAssertion`)
``SingleFileSnapshotExtension``          binary, which the ``.wire`` files rely on (no
``._write_mode``                         newline translated): checked, not set
=======================================  ===============================================

The public parts used elsewhere (``SingleFileSnapshotExtension``'s class
methods, ``SnapshotAssertion.executions``, ``num_executions``, ``index``) are
syrupy's documented extension surface. :func:`shape_problems` lists every name
above that no longer has the shape this module expects; a test
(``tests/pytest_mcpfusion/_snapshots/test_syrupy_private.py``) fails loudly with
that list and the installed version, so a new syrupy is read here first.
"""

from __future__ import annotations

import inspect
from functools import cached_property
from typing import TYPE_CHECKING, Any, Final

from syrupy.assertion import SnapshotAssertion
from syrupy.session import SnapshotSession

if TYPE_CHECKING:
    from collections.abc import Sequence

    import pytest
    from syrupy.types import SerializableData

__all__ = [
    "CHECKED_AGAINST",
    "HookedAssertion",
    "keep_unused",
    "mark_skipped",
    "select_and_skip",
    "session_of",
    "shape_problems",
    "unused_kept",
]

CHECKED_AGAINST: Final = "7.0.2"
"""The syrupy version whose private parts this module was last read against."""


def session_of(config: pytest.Config) -> SnapshotSession | None:
    """The run's ``SnapshotSession`` (syrupy's), or ``None`` when its plugin is not loaded."""
    found = getattr(config, "_syrupy", None)
    return found if isinstance(found, SnapshotSession) else None


def mark_skipped(config: pytest.Config, nodeid: str) -> None:
    """Record a test as skipped in syrupy's view of the run (its snapshots are kept)."""
    session = session_of(config)
    if session is not None:
        session.ran_item(nodeid, "skipped")


def select_and_skip(config: pytest.Config, items: Sequence[pytest.Item]) -> None:
    """Tell syrupy of tests it did not select (deselected ones), each as skipped."""
    session = session_of(config)
    if session is None or not items:
        return
    session.select_items(list(items))
    for item in items:
        session.ran_item(item.nodeid, "skipped")


def keep_unused(config: pytest.Config) -> None:
    """Make the session's clean-up delete nothing (for a syrupy that ignores no_cleanup)."""
    session = session_of(config)
    if session is not None:
        session.remove_unused_snapshots = _delete_nothing  # type: ignore[method-assign,assignment]


def unused_kept(config: pytest.Config) -> int | None:
    """How many unused snapshots syrupy's report counts, ``None`` before it has one."""
    report = getattr(session_of(config), "report", None)
    return None if report is None else int(report.num_unused)


def _delete_nothing(**_: Any) -> None:
    """What syrupy's clean-up does after a run that did not reach every test."""


class HookedAssertion(SnapshotAssertion):
    """syrupy's assertion with one hook of ours after each comparison."""

    def _assert(self, data: SerializableData) -> bool:
        self.before_assert()
        success = super()._assert(data)
        self.after_assert(success)
        return success

    def before_assert(self) -> None:
        """Runs before the comparison (which may fail the test instead)."""

    def after_assert(self, success: bool) -> None:
        """Runs after the comparison; ``executions`` then holds its result."""


def shape_problems() -> list[str]:
    """Each private syrupy name this module uses that is missing or has changed shape."""
    problems: list[str] = []
    assert_method = getattr(SnapshotAssertion, "_assert", None)
    if assert_method is None or list(inspect.signature(assert_method).parameters) != [
        "self",
        "data",
    ]:
        problems.append("SnapshotAssertion._assert(self, data) is gone or takes other arguments")
    problems.extend(
        f"SnapshotSession.{name} is gone"
        for name in ("select_items", "ran_item", "remove_unused_snapshots")
        if not callable(getattr(SnapshotSession, name, None))
    )
    ran = getattr(SnapshotSession, "ran_item", None)
    if callable(ran) and list(inspect.signature(ran).parameters)[:3] != [
        "self",
        "nodeid",
        "outcome",
    ]:
        problems.append("SnapshotSession.ran_item(nodeid, outcome) takes other arguments")
    if "report" not in getattr(SnapshotSession, "__dataclass_fields__", {}) and not hasattr(
        SnapshotSession, "report"
    ):
        problems.append("SnapshotSession.report is gone")
    from syrupy.report import SnapshotReport  # noqa: PLC0415 - only to check its shape

    if not isinstance(getattr(SnapshotReport, "num_unused", None), property | cached_property):
        problems.append("SnapshotReport.num_unused is no longer a property")
    from syrupy.extensions.single_file import (  # noqa: PLC0415 - only to check its shape
        SingleFileSnapshotExtension,
        WriteMode,
    )

    if getattr(SingleFileSnapshotExtension, "_write_mode", None) != WriteMode.BINARY:
        problems.append("SingleFileSnapshotExtension no longer writes binary files by default")
    problems.extend(
        f"SnapshotAssertion.{name} is no longer a property"
        for name in ("executions", "num_executions", "index")
        if not isinstance(getattr(SnapshotAssertion, name, None), property)
    )
    return problems
