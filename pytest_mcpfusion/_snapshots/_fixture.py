"""What the ``fusion_snapshot`` fixture and its hooks in ``plugin`` do: syrupy, made on first use.

syrupy is optional (the plugin loads without it): it is imported here, when a
test first uses ``fusion_snapshot``. :func:`mark_clashes` finds, at
collection, the tests whose snapshots would share one file;
:func:`remove_stale` removes a test's pending files of earlier runs; and
:func:`assertion` builds the fixture's value.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Final

import pytest

from pytest_mcpfusion._keys import (
    NAMES_KEY,
    OPTIONS_KEY,
    PENDING_FILES_KEY,
    SNAPSHOT_CLASH_KEY,
    SNAPSHOT_EXTENSION_KEY,
    STALE_REMOVED_KEY,
)
from pytest_mcpfusion._snapshots._names import SHARED_FILE_RULES, file_key, windows_reserved
from pytest_mcpfusion._snapshots._pending import WRITTEN

if TYPE_CHECKING:
    from syrupy.assertion import SnapshotAssertion

    from pytest_mcpfusion._snapshots._extension import FusionWireExtension

__all__ = ["assertion", "mark_clashes", "remove_stale", "snapshot_extension"]

_NEEDS_SYRUPY: Final = (
    "fusion_snapshot needs syrupy's pytest plugin, which is not installed or not loaded "
    "(-p no:syrupy): pip install 'syrupy>=4.8' (pytest-mcpfusion's own dependency)"
)


def snapshot_extension(config: pytest.Config) -> type[FusionWireExtension]:
    """The session's snapshot extension class, made on first use (syrupy is optional).

    One class per session, bound to this config's hooks: syrupy walks every
    subclass of its file extensions when it discovers snapshots.
    """
    extension = config.stash.get(SNAPSHOT_EXTENSION_KEY, None)
    if extension is None:
        from pytest_mcpfusion._snapshots._extension import FusionWireExtension  # noqa: PLC0415 - syrupy loads on first use

        verbosity = config.get_verbosity(pytest.Config.VERBOSITY_ASSERTIONS)
        extension = config.stash[SNAPSHOT_EXTENSION_KEY] = type(
            "FusionWireSnapshot",
            (FusionWireExtension,),
            {"hook": config.hook, "_sites": {}, "verbosity": verbosity},
        )
    return extension


def mark_clashes(config: pytest.Config, users: list[pytest.Item]) -> None:
    """Mark the ``users`` of ``fusion_snapshot`` whose snapshots would share one file.

    See ``plugin.pytest_collection_modifyitems`` for the rules; the names
    that do not clash are claimed in the session's ``NameTable``.
    """
    try:
        from syrupy.location import PyTestLocation  # noqa: PLC0415 - syrupy is optional
    except ImportError:
        return
    extension = snapshot_extension(config)
    owners: dict[tuple[str, str], list[tuple[pytest.Item, str]]] = {}
    for item in users:
        where = extension.get_location(test_location=PyTestLocation(item), index=0)
        folder, name = os.path.split(where)
        owners.setdefault((folder, file_key(name)), []).append((item, where))
    names = config.stash[NAMES_KEY]
    for group in owners.values():
        if len(group) > 1:
            nodeids = ", ".join(item.nodeid for item, _ in group)
            message = (
                f"the wire snapshots of {len(group)} tests would share one file, "
                f"{os.path.basename(group[0][1])!r}: {nodeids}. {SHARED_FILE_RULES}: "
                "give the parameters ids that still differ (pytest.param(..., id=...) or ids=)"
            )
            for item, _ in group:
                item.stash[SNAPSHOT_CLASH_KEY] = message
            continue
        item, where = group[0]
        reserved = windows_reserved(os.path.basename(where))
        if reserved is not None:
            item.stash[SNAPSHOT_CLASH_KEY] = (
                f"the wire snapshot of {item.nodeid} would be the file "
                f"{os.path.basename(where)!r}, which Windows cannot hold ({reserved} is a "
                "device name): rename the test or its class"
            )
            continue
        names.claim(item.nodeid, 0, where)


def remove_stale(item: pytest.Item) -> None:
    """Remove the test's own pending files of earlier runs (once per test)."""
    if item.stash.get(STALE_REMOVED_KEY, False):
        return
    item.stash[STALE_REMOVED_KEY] = True
    try:
        from syrupy.location import PyTestLocation  # noqa: PLC0415 - syrupy is optional
    except ImportError:
        return
    config = item.config
    first = Path(
        snapshot_extension(config).get_location(test_location=PyTestLocation(item), index=0)
    )
    stems = config.stash[NAMES_KEY].stems(str(first.parent))
    config.stash[PENDING_FILES_KEY].remove_stale(first, stems)


def assertion(request: pytest.FixtureRequest) -> SnapshotAssertion:
    """The ``fusion_snapshot`` fixture's value for the requesting test."""
    # Built as syrupy's own ``snapshot`` fixture builds its assertion, but with
    # our extension from the start: ``snapshot.use_extension()`` would register
    # the test with syrupy twice, which costs as much as the rest of the check.
    # Failing outside the ``except`` keeps the ImportError out of the report:
    # the message names the package and the fix, the chained traceback is noise.
    try:
        from syrupy.location import PyTestLocation  # noqa: PLC0415

        from pytest_mcpfusion._snapshots._syrupy_private import session_of  # noqa: PLC0415
    except ImportError:
        session = None
    else:
        session = session_of(request.config)
    if session is None:
        pytest.fail(_NEEDS_SYRUPY, pytrace=False)
    clash = request.node.stash.get(SNAPSHOT_CLASH_KEY, None)
    if clash is not None:
        pytest.fail(clash, pytrace=False)
    from pytest_mcpfusion._snapshots._extension import PendingSnapshotAssertion  # noqa: PLC0415 - syrupy is optional

    config = request.config
    option = config.option
    made = PendingSnapshotAssertion(
        update_snapshots=option.update_snapshots,
        update_new_snapshots_only=getattr(option, "update_new_snapshots_only", False),
        extension_class=snapshot_extension(config),
        test_location=PyTestLocation(request.node),
        session=session,
    )
    made.pending = config.stash[OPTIONS_KEY].pending
    made.files = config.stash[PENDING_FILES_KEY]
    made.names = config.stash[NAMES_KEY]
    if made.pending:  # asked for by getfixturevalue: not removed at setup yet
        remove_stale(request.node)
    properties = request.node.user_properties
    made.on_pending = lambda path: properties.append((WRITTEN, str(path)))
    return made
