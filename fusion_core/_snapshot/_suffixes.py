"""The names of snapshot files: what a file's suffix says it holds.

Its own module, importing nothing: the plugin's snapshot bookkeeping, which
every pytest session loads, needs these names but none of the format's
reader and writer (``_format``), which pull in the whole wire engine.
"""

from __future__ import annotations

from typing import Final

__all__ = ["PENDING_SUFFIX", "SNAPSHOT_SUFFIX"]

SNAPSHOT_SUFFIX: Final = ".wire"
"""The suffix of a snapshot file (``test_get.wire``)."""
PENDING_SUFFIX: Final = ".new"
"""Added to a snapshot file's name for a changed one awaiting review (``test_get.wire.new``)."""
