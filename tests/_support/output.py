"""Reading what a pytest run printed, and what it left in a snapshot folder."""

from __future__ import annotations

from pathlib import Path

__all__ = ["files_in", "pending_in", "section"]


def section(output: str, title: str, *, header: str = "_") -> list[str]:
    """The lines of one section of pytest's output, below its header and above the next.

    ``header`` is the character pytest draws the header with: ``_`` for a
    failure (``___ test_name ___``), ``=`` for a summary section
    (``=== Fusion wire report ===``). The section ends at the next ``_`` or
    ``=`` line, or at the end of the output.
    """
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header) and title in line)
    end = next(
        (i for i in range(start + 1, len(lines)) if lines[i].startswith(("_", "="))), len(lines)
    )
    return lines[start + 1 : end]


def files_in(folder: Path) -> dict[str, bytes]:
    """Every file of a snapshot folder, by name, with its bytes."""
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def pending_in(folder: Path) -> list[str]:
    """The names of the pending snapshots (``.wire.new``) of a snapshot folder, sorted."""
    return sorted(path.name for path in folder.glob("*.wire.new"))
