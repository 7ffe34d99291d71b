"""Every ``config.stash`` and ``item.stash`` key of the plugin, in one low module.

It imports nothing of this package (the types are for checkers only), so any
module may read the session's state without importing the module that made
it: this is what keeps ``plugin``, ``_session`` and ``_contract`` free of
import cycles (``tests/pytest_mcpfusion/test_import_graph.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import pytest

if TYPE_CHECKING:
    from pathlib import Path

    from pytest_mcpfusion._contract._verdicts import Gate
    from pytest_mcpfusion._options import FusionOptions
    from pytest_mcpfusion._session import FusionSession
    from pytest_mcpfusion._snapshots._extension import FusionWireExtension
    from pytest_mcpfusion._snapshots._names import NameTable
    from pytest_mcpfusion._snapshots._pending import PendingFiles

__all__ = [
    "ANCHOR_KEY",
    "CALL_FIXTURES",
    "GATE_KEY",
    "NAMES_KEY",
    "OPTIONS_KEY",
    "PENDING_FILES_KEY",
    "SESSION_KEY",
    "SNAPSHOT_CLASH_KEY",
    "SNAPSHOT_EXTENSION_KEY",
    "STALE_REMOVED_KEY",
]

# config.stash
OPTIONS_KEY: Final[pytest.StashKey[FusionOptions]] = pytest.StashKey()
"""Every ``--fusion-*`` option and ``fusion_*`` ini key, parsed once (``_options``)."""
SESSION_KEY: Final[pytest.StashKey[FusionSession]] = pytest.StashKey()
"""The session's transport, report and tokenizer (``_session``), made on first use."""
GATE_KEY: Final[pytest.StashKey[Gate]] = pytest.StashKey()
"""The gate's per-session state (``_contract._verdicts``)."""
ANCHOR_KEY: Final[pytest.StashKey[tuple[Path | None]]] = pytest.StashKey()
"""The file the contract tests hang from (``_contract._collect.contract_anchor``)."""
SNAPSHOT_EXTENSION_KEY: Final[pytest.StashKey[type[FusionWireExtension]]] = pytest.StashKey()
"""The session's syrupy extension class, made on first use."""
PENDING_FILES_KEY: Final[pytest.StashKey[PendingFiles]] = pytest.StashKey()
"""The pending ``.wire.new`` files of each snapshot folder (``_snapshots._pending``)."""
NAMES_KEY: Final[pytest.StashKey[NameTable]] = pytest.StashKey()
"""The snapshot file names claimed this session (``_snapshots._names``)."""

# item.stash
STALE_REMOVED_KEY: Final[pytest.StashKey[bool]] = pytest.StashKey()
"""Whether the test's pending files of earlier runs are gone already."""
SNAPSHOT_CLASH_KEY: Final[pytest.StashKey[str]] = pytest.StashKey()
"""Why the test's wire snapshot cannot have a file of its own."""

CALL_FIXTURES: Final = frozenset({"fusion_call", "fusion_call_async", "fusion_caller"})
"""The fixtures that reach the tools (a test naming one is isolated, and may be parametrized)."""
