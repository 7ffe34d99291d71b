"""Writing a snapshot file so that no crash or interrupt leaves half of one.

Every snapshot file the plugin writes, accepted (``--snapshot-update``) or
pending (``.wire.new``), is written the same way: to a temporary file in the
same folder, flushed to the disk, then renamed over the target. A rename
within one folder is atomic, so a reader sees the old file or the new one,
never a truncated one; a process killed or interrupted before the rename
leaves the old file as it was. syrupy's own writer opens the target for
writing (which empties it) and then writes: a crash in between left a
0-byte accepted snapshot.

The temporary name does not grow with the target's (``.fusion-<random>.tmp``,
20 characters), so a target whose name is near the 255-byte limit of a file
name still gets one. It starts with a dot: syrupy's discovery and the review
skip it, and an interrupted write removes it; only a killed process can
leave one behind, which no later run reads.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["TEMPORARY_PREFIX", "write_atomically"]

TEMPORARY_PREFIX: Final = ".fusion-"
_TEMPORARY_SUFFIX: Final = ".tmp"


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path``: all of it, or (on any failure) nothing and the old file."""
    folder = path.parent
    folder.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(
        dir=folder, prefix=TEMPORARY_PREFIX, suffix=_TEMPORARY_SUFFIX
    )
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())  # the bytes are on the disk before the name points at them
        os.replace(temporary, path)
    except BaseException:  # KeyboardInterrupt too: the old file stays, the temporary goes
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
