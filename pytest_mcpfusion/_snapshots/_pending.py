"""Pending snapshots: a changed wire is written next to the accepted one, for review.

With ``--fusion-pending`` (ini ``fusion_pending``; on by default when the
``CI`` environment variable is set), a snapshot that does not match — or
does not exist yet — is written as ``<name>.wire.new`` beside
``<name>.wire``, as cargo-insta writes ``.snap.new``: the accepted file is
never touched or deleted, the test still fails, and the terminal summary
counts the pending files. ``python -m pytest_mcpfusion review`` then walks
through them. A snapshot that matches again removes its stale pending file
(in every mode). In pending mode a test's pending files are also removed
when the test starts using ``fusion_snapshot`` (:meth:`PendingFiles.remove_stale`): a test
that now fails before its assertion leaves no pending file of an older run
behind, and one that still differs writes its file again.

Each file is written by the process that ran the test (an xdist worker
writes its own; the names are per test, so workers never share one), via a
temporary file and an atomic rename, and reported through the test report's
``user_properties``, which xdist forwards to the controller that prints the
count.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Final

from pytest_mcpfusion._snapshots._names import PENDING_SUFFIX, owner

if TYPE_CHECKING:
    from collections.abc import Iterable

    import pytest

__all__ = [
    "PENDING_SUFFIX",
    "WRITTEN",
    "PendingFiles",
    "PendingSummary",
]

WRITTEN: Final = "fusion_pending_written"


class PendingFiles:
    """The pending files of each snapshot folder, listed once per session.

    A matched snapshot removes its stale ``.wire.new``, and in pending mode
    each test removes its own older ones (:meth:`remove_stale`). Asking the
    file system for every test (a failed ``unlink``, or a listing of a
    folder of hundreds of snapshots, per test) cost more than the comparison
    itself; so each folder is listed once, for the names ending in
    ``.new``, and the list follows what this session writes and removes.
    Pending files appear only when a test's snapshot differs, and each is
    written by the process that ran its test, so the list stays true for the
    session. A folder that cannot be listed is asked about file by file,
    as before.
    """

    __slots__ = ("_folders",)

    def __init__(self) -> None:
        self._folders: dict[str, set[str] | None] = {}

    def _names(self, folder: str) -> set[str] | None:
        """The ``.new`` names in ``folder`` (none if it does not exist); ``None``: unknown."""
        try:
            return self._folders[folder]
        except KeyError:
            pass
        names: set[str] | None
        try:
            with os.scandir(folder) as entries:
                names = {entry.name for entry in entries if entry.name.endswith(PENDING_SUFFIX)}
        except (FileNotFoundError, NotADirectoryError):
            names = set()
        except OSError:
            names = None
        self._folders[folder] = names
        return names

    def discard(self, pending: str) -> None:
        """Remove the pending file ``pending`` (a path) if there is one."""
        folder, name = os.path.split(pending)
        names = self._names(folder)
        if names is None:
            Path(pending).unlink(missing_ok=True)
        elif name in names:
            Path(pending).unlink(missing_ok=True)
            names.discard(name)

    def wrote(self, pending: Path) -> None:
        """Note a pending file this session wrote."""
        names = self._names(str(pending.parent))
        if names is not None:
            names.add(pending.name)

    def remove_stale(self, first: Path, tests: Iterable[str] = ()) -> list[Path]:
        """Remove the pending files of the test whose first snapshot is ``first``; return them.

        ``first`` is the accepted file of the test's first assertion
        (``__snapshots__/test_file/test_get.wire``); later ones add ``.1``, ``.2``
        (``test_get.1.wire``), a custom name adds it in brackets
        (``fusion_snapshot(name="totals")``: ``test_get[totals].wire``).
        ``tests`` are the first stems of the folder's other tests: a file one of
        them owns (``_names.owner``: ``test_get[a][b].wire.new`` is the test
        ``test_get[a][b]``'s, not a custom name of ``test_get[a]``) is never
        removed, nor an accepted snapshot, nor a temporary file.
        """
        suffix = first.suffix + PENDING_SUFFIX
        own = first.name[: -len(first.suffix)]
        stems = {*tests, own}
        names = self._names(str(first.parent))
        if names is None:  # unlistable: every file of the folder, as they come
            candidates = [path.name for path in first.parent.iterdir()]
        else:
            candidates = sorted(names)
        removed: list[Path] = []
        for name in candidates:
            if not name.endswith(suffix) or name.startswith("."):
                continue
            path = first.parent / name
            if owner(name[: -len(suffix)], stems) == own and path.is_file():
                path.unlink(missing_ok=True)
                removed.append(path)
                if names is not None:
                    names.discard(name)
        return removed


class PendingSummary:
    """Counts the pending files a run wrote (on the controller, from every worker)."""

    def __init__(self) -> None:
        self.written: set[str] = set()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Collect the paths a test reported writing (xdist forwards user_properties)."""
        for name, value in report.user_properties:
            if name == WRITTEN:
                self.written.add(str(value))

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        """Say how many snapshots are pending and how to review them."""
        written = sorted(path for path in self.written if os.path.isfile(path))
        if not written:
            return
        count = len(written)
        noun = "snapshot" if count == 1 else "snapshots"
        terminalreporter.write_sep("=", "Fusion pending snapshots")
        terminalreporter.write_line(
            f"{count} pending wire {noun} written (.wire.new beside the accepted .wire, "
            "which is unchanged):"
        )
        for path in written:
            terminalreporter.write_line(f"  {_relative(path)}")
        folders = sorted({_relative(str(Path(path).parent.parent.parent)) for path in written})
        terminalreporter.write_line(
            f"review them with: python -m pytest_mcpfusion review {' '.join(folders)}"
        )


def _relative(path: str) -> str:
    """``path`` relative to the working directory when it lies below it."""
    try:
        return Path(path).relative_to(Path.cwd()).as_posix() or "."
    except ValueError:
        return path
