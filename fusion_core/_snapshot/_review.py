"""Reviewing pending wire snapshots, one change at a time, as ``cargo insta review`` does.

``fusion review [PATHS]`` finds every ``*.wire.new`` written by a
``pytest --fusion-pending`` run and shows, for each,
the test id and the per-block diff (kind, lengths, changed lines with CR and
invisible characters shown, a summary line and a semantic hint), then asks:
accept (the pending file replaces the accepted one), reject (the pending
file is deleted), skip, accept all remaining, or quit. ``--accept``,
``--reject`` and ``--list`` do the same without asking, and
``--format=markdown`` prints the review as a document for a pull-request
comment. The exit status is 0 when nothing is left pending, 1 otherwise.

The facts come from ``_changes``; the Markdown is in ``_review_markdown``;
the command line is ``fusion_core._cli``. It lives in fusion_core, not in the
plugin, so that the ``fusion`` command reaches it without importing pytest.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, TextIO

from fusion_core._snapshot._changes import SnapshotChange, compare_snapshots
from fusion_core._snapshot._suffixes import PENDING_SUFFIX, SNAPSHOT_SUFFIX
from fusion_core._terminal import show_invisible

__all__ = [
    "Pending",
    "Tally",
    "apply_to_all",
    "find_pending",
    "list_pending",
    "relative_path",
    "render_text",
    "review_interactively",
    "stdin_is_terminal",
    "use_color",
]

# Folders never holding a project's snapshots, which a walk from "." would crawl.
_SKIPPED: Final = frozenset({".git", ".hg", ".venv", "venv", "node_modules", "__pycache__", ".tox"})
_ENCODING: Final = "utf-8"
_ERRORS: Final = "surrogatepass"
_CHOICES: Final = "[a]ccept  [r]eject  [s]kip  [A]ccept all remaining  [q]uit"


@dataclass(frozen=True, slots=True)
class Pending:
    """One pending snapshot: the ``.wire.new`` file and the ``.wire`` it would replace."""

    path: Path

    @property
    def accepted(self) -> Path:
        """The accepted snapshot this file would replace (it may not exist yet)."""
        return self.path.with_name(self.path.name[: -len(PENDING_SUFFIX)])

    @property
    def test_id(self) -> str:
        """The test's id, derived from ``<dir>/__snapshots__/<file>/<name>.wire.new``."""
        name = self.accepted.name[: -len(SNAPSHOT_SUFFIX)]
        head, dot, rest = name.partition(".")
        if dot and head.startswith("Test"):  # a test in a class: Class.test[...]
            name = f"{head}::{rest}"
        folder = self.path.parent
        if folder.parent.name != "__snapshots__":
            return name
        test_file = folder.parent.parent / f"{folder.name}.py"
        return f"{relative_path(test_file)}::{name}"

    def change(self) -> SnapshotChange:
        """What accepting would change, block by block."""
        accepted = _read(self.accepted) if self.accepted.exists() else None
        return compare_snapshots(accepted, _read(self.path))

    def accept(self) -> None:
        """Replace the accepted snapshot by the pending one (an atomic rename)."""
        self.path.replace(self.accepted)

    def reject(self) -> None:
        """Delete the pending file; the accepted snapshot stays as it is."""
        self.path.unlink(missing_ok=True)


def _read(path: Path) -> str:
    return path.read_bytes().decode(_ENCODING, _ERRORS)


def relative_path(path: Path) -> str:
    """``path`` below the working directory as a relative POSIX path, else as given."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def find_pending(paths: Iterable[Path]) -> list[Pending]:
    """Every ``*.wire.new`` file named by ``paths`` or below them, sorted, once each."""
    found: set[Path] = set()
    for path in paths:
        if path.is_file() and path.name.endswith(SNAPSHOT_SUFFIX + PENDING_SUFFIX):
            found.add(path)
        elif path.is_dir():
            found.update(_walk(path))
    return [Pending(path) for path in sorted(found)]


def _walk(root: Path) -> Iterator[Path]:
    for folder, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(name for name in dirnames if name not in _SKIPPED)
        for name in filenames:
            if name.endswith(SNAPSHOT_SUFFIX + PENDING_SUFFIX) and not name.startswith("."):
                yield Path(folder, name)


def render_text(pending: Pending, change: SnapshotChange, *, color: bool = False) -> list[str]:
    """The terminal review of one pending snapshot, as lines without newlines."""
    state = "new snapshot" if change.new else "changed snapshot"
    lines = [
        f"━━ {show_invisible(pending.test_id)}  ({state})",
        f"   {show_invisible(relative_path(pending.path))}",
        f"   summary: {show_invisible(change.summary)}",
    ]
    for block in change.changes:
        hint = f" · {block.hint}" if block.hint else ""
        lines.append(f"── {show_invisible(block.header)}{hint}")
        lines.extend(_colored(line.rstrip("\n"), color) for line in block.diff)
    return lines


def _colored(line: str, color: bool) -> str:
    if not color or not line:
        return line
    code = {"+": "32", "-": "31", "@": "36"}.get(line[0])
    return f"\x1b[{code}m{line}\x1b[0m" if code else line


@dataclass(slots=True)
class Tally:
    """What a review did, for its closing line and exit status."""

    accepted: int = 0
    rejected: int = 0
    skipped: int = 0
    remaining: int = 0

    def line(self) -> str:
        """``accepted 1, rejected 1, skipped 0; 0 still pending``."""
        return (
            f"accepted {self.accepted}, rejected {self.rejected}, skipped {self.skipped}; "
            f"{self.remaining} still pending"
        )


def review_interactively(
    pendings: Sequence[Pending],
    *,
    ask: Callable[[str], str],
    out: TextIO,
    color: bool = False,
) -> Tally:
    """Show each pending snapshot and act on the reviewer's answer.

    ``ask`` reads one answer (``input``); end of input counts as quit.
    """
    tally = Tally()
    accept_all = False
    for position, pending in enumerate(pendings, start=1):
        change = pending.change()
        out.write(f"\n[{position}/{len(pendings)}]\n")
        out.write("\n".join(render_text(pending, change, color=color)) + "\n")
        answer = "a" if accept_all else _answer(ask, out)
        if answer == "A":
            accept_all, answer = True, "a"
        if answer == "q":
            break
        if answer == "a":
            pending.accept()
            tally.accepted += 1
            out.write(f"accepted: {relative_path(pending.accepted)}\n")
        elif answer == "r":
            pending.reject()
            tally.rejected += 1
            out.write(f"rejected: {relative_path(pending.path)} deleted\n")
        else:
            tally.skipped += 1
    tally.remaining = sum(pending.path.exists() for pending in pendings)
    return tally


def _answer(ask: Callable[[str], str], out: TextIO) -> str:
    """One of a, r, s, A, q (also spelled out); asks again on anything else."""
    words = {"accept": "a", "reject": "r", "skip": "s", "all": "A", "quit": "q"}
    while True:
        try:
            reply = ask(f"{_CHOICES} > ").strip()
        except EOFError:
            out.write("\n")
            return "q"
        reply = words.get(reply.lower(), reply)
        if reply in {"a", "r", "s", "A", "q"}:
            return reply
        out.write(f"please answer one of: {_CHOICES}\n")


def apply_to_all(pendings: Sequence[Pending], *, accept: bool, out: TextIO) -> Tally:
    """``--accept`` / ``--reject``: the same decision for every pending snapshot."""
    tally = Tally()
    for pending in pendings:
        if accept:
            pending.accept()
            tally.accepted += 1
            out.write(f"accepted: {show_invisible(pending.test_id)}\n")
        else:
            pending.reject()
            tally.rejected += 1
            out.write(f"rejected: {show_invisible(pending.test_id)}\n")
    return tally


def list_pending(pendings: Sequence[Pending], out: TextIO) -> None:
    """``--list``: one line per pending snapshot (test id, file, summary)."""
    for pending in pendings:
        change = pending.change()
        out.write(
            f"{show_invisible(pending.test_id)}\t{show_invisible(relative_path(pending.path))}\t"
            f"{show_invisible(change.summary)}\n"
        )
    out.write(f"{len(pendings)} pending\n")


def use_color(stream: TextIO) -> bool:
    """Color for a terminal, unless ``NO_COLOR`` is set (https://no-color.org)."""
    return stream.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


def stdin_is_terminal() -> bool:
    """Whether answers can be asked for."""
    return sys.stdin is not None and sys.stdin.isatty()
