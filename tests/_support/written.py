"""The files a pytester run writes, kept once per process and written again elsewhere.

A set-up run that many tests repeat byte for byte (accept 41 snapshots, a
failing CI run that writes pending files) runs once per process; the tests
after it start from a copy of what it wrote into their own fresh folder,
which holds the same inputs. The run's own assertions still run, once.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

__all__ = ["Written"]


def _files(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in root.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }


class Written:
    """What ``run`` wrote or changed under a folder, the first time it ran."""

    def __init__(self) -> None:
        self._files: dict[str, bytes] | None = None

    def make(self, root: Path, run: Callable[[], object]) -> None:
        """Call ``run`` (it writes under ``root``) the first time; later, write what it wrote."""
        if self._files is None:
            before = _files(root)
            run()
            after = _files(root)
            assert set(before) <= set(after), "the set-up run deleted files"
            self._files = {name: data for name, data in after.items() if before.get(name) != data}
            return
        for name, data in self._files.items():
            target = root / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)

    def keep(self, root: Path, run: Callable[[], object]) -> None:
        """Call ``run`` always (a test checks its output), and keep what it wrote."""
        self._files = None
        self.make(root, run)
