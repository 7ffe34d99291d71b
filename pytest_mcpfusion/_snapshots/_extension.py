"""The syrupy extension for exact wire snapshots: a thin adapter.

The file format (``fusion_core._snapshot._format``) and the diff
(``fusion_core._snapshot._changes``) live in fusion_core; this class
picks the file extension, stores bytes (so no newline is ever translated),
applies the ``pytest_fusion_normalize`` hook, and delegates. A file's name is
``_names.snapshot_stem``'s and every file is written by ``_atomic``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Final

import pytest
from syrupy.assertion import SnapshotAssertion
from syrupy.data import (
    Snapshot,
    SnapshotCollection,
    SnapshotCollections,
    SnapshotEmptyCollection,
)
from syrupy.extensions.base import AbstractSyrupyExtension
from syrupy.extensions.single_file import SingleFileSnapshotExtension

from fusion_core._snapshot._format import block_kinds, dump_snapshot
from pytest_mcpfusion._result import FusionResult
from pytest_mcpfusion._snapshots._atomic import write_atomically
from pytest_mcpfusion._snapshots._names import (
    PENDING_SUFFIX,
    SHARED_FILE_RULES,
    NameTable,
    owner,
    snapshot_stem,
)
from pytest_mcpfusion._snapshots._pending import PendingFiles
from pytest_mcpfusion._snapshots._syrupy_private import HookedAssertion

if TYPE_CHECKING:
    import pluggy
    from syrupy.location import PyTestLocation
    from syrupy.types import (
        PropertyFilter,
        PropertyMatcher,
        SerializableData,
        SerializedData,
        SnapshotIndex,
    )

__all__ = ["FusionWireExtension"]

_ENCODING = "utf-8"
_ERRORS = "surrogatepass"


class _Names:
    """What syrupy asks again and again about a test's snapshots: folders, names, paths."""

    __slots__ = ("dirnames", "discovery", "locations", "names")

    def __init__(self) -> None:
        self.dirnames: dict[str, str] = {}
        self.discovery: dict[str, str] = {}
        self.names: dict[tuple[str, str, SnapshotIndex], str] = {}
        self.locations: dict[tuple[str, str, SnapshotIndex], str] = {}


class FusionWireExtension(SingleFileSnapshotExtension):
    """Snapshots of a response's exact blocks, one ``.wire`` file per snapshot."""

    file_extension = "wire"  # written as bytes: syrupy's default (_syrupy_private checks it)
    hook: ClassVar[pluggy.HookRelay | None] = None
    verbosity: ClassVar[int] = 0  # pytest's assertion verbosity (the plugin sets it)
    _cache: ClassVar[_Names]
    # Which snapshot folders belong to which test folders (see matches_test_location):
    # a dict only in the plugin's per-session class, since the file system may change
    # between sessions.
    _sites: ClassVar[dict[tuple[str, str], bool] | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Every subclass (the plugin makes one per session) caches its own names."""
        super().__init_subclass__(**kwargs)
        cls._cache = _Names()

    def serialize(
        self,
        data: SerializableData,
        *,
        exclude: PropertyFilter | None = None,
        include: PropertyFilter | None = None,
        matcher: PropertyMatcher | None = None,
    ) -> SerializedData:
        """A FusionResult, ToolResponse or MCP wire dict as snapshot bytes."""
        del exclude, include, matcher
        wire = _wire_of(data)
        kinds = block_kinds(wire)
        if self.hook is not None:
            texts = [block.get("text", "") for block in wire.get("content", [])]
            self.hook.pytest_fusion_normalize(blocks=texts, kinds=kinds)
            wire = {**wire, "content": [{"type": "text", "text": text} for text in texts]}
        return dump_snapshot(wire, kinds).encode(_ENCODING, _ERRORS)

    # syrupy rebuilds a snapshot's name and path five times per assertion and
    # sanitizes the name character by character each time; they depend only
    # on the test (its file, its node id) and the assertion's index, so each
    # is computed once per class (one class per session, see the plugin).
    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        """The snapshot folder of a test file (cached per file)."""
        return _cached(cls._cache.dirnames, test_location.filepath, test_location, super().dirname)

    @classmethod
    def discovery_dirname(cls, *, test_location: PyTestLocation) -> str:
        """The folder syrupy scans for a test file's snapshots (cached per file)."""
        compute = super().discovery_dirname
        return _cached(cls._cache.discovery, test_location.filepath, test_location, compute)

    @classmethod
    def get_snapshot_name(cls, *, test_location: PyTestLocation, index: SnapshotIndex = 0) -> str:
        """The snapshot's name: its file's stem (``_names.snapshot_stem``), cached."""
        key = (test_location.filepath, test_location.nodeid, index)
        found = cls._cache.names.get(key)
        if found is None:
            test_name = AbstractSyrupyExtension.get_snapshot_name(test_location=test_location)
            found = cls._cache.names[key] = snapshot_stem(test_name, index, _suffix_of(cls))
        return found

    @classmethod
    def get_location(cls, *, test_location: PyTestLocation, index: SnapshotIndex) -> str:
        """The snapshot's file (cached per test and index)."""
        key = (test_location.filepath, test_location.nodeid, index)
        found = cls._cache.locations.get(key)
        if found is None:
            name = cls.get_file_basename(test_location=test_location, index=index)
            found = os.path.join(cls.dirname(test_location=test_location), name + _suffix_of(cls))
            cls._cache.locations[key] = found
        return found

    @classmethod
    def write_snapshot_collection(
        cls, *, snapshot_collection: SnapshotCollection, name_order: dict[str, int] | None = None
    ) -> None:
        """Write the snapshot's bytes atomically (syrupy's writer empties the file first)."""
        data = next(iter(snapshot_collection)).data
        if not isinstance(data, bytes):  # syrupy's own error for it
            super().write_snapshot_collection(
                snapshot_collection=snapshot_collection, name_order=name_order
            )
            return
        write_atomically(Path(snapshot_collection.location), data)

    @classmethod
    def matches_test_location(
        cls, *, test_location: PyTestLocation, snapshot_location: str
    ) -> bool:
        """Whether a test owns a snapshot file: syrupy's answer, one per folder.

        After a run syrupy asks this of every snapshot file, and answers by
        resolving both the file and the test's folder (a dozen ``lstat`` calls
        each). For a file in the test file's own snapshot folder the answer is
        the folder's, the same for every file in it that is not a symlink:
        syrupy's, asked once for the first such file of the folder.
        """
        sites = cls._sites
        folder, name = os.path.split(snapshot_location)
        suffix = _suffix_of(cls)
        if test_location.is_item_parametrized and _cut_and_owned(cls, test_location, folder, name):
            return True
        if (
            sites is None
            or not suffix
            or not name.endswith(suffix)
            or os.path.basename(folder) != test_location.basename
            or test_location.is_item_parametrized
            or os.path.islink(snapshot_location)
        ):
            return super().matches_test_location(
                test_location=test_location, snapshot_location=snapshot_location
            )
        key = (os.path.dirname(test_location.filepath), folder)
        found = sites.get(key)
        if found is None:
            found = sites[key] = super().matches_test_location(
                test_location=test_location, snapshot_location=snapshot_location
            )
        return found

    def discover_snapshots(
        self,
        *,
        test_location: PyTestLocation,
        ignore_extensions: list[str] | None = None,
    ) -> SnapshotCollections:
        """The ``.wire`` files of the test file's snapshot folder's subfolders: syrupy's answer.

        syrupy walks the whole shared snapshot folder (``__snapshots__``) with
        ``rglob`` and builds paths for every file to keep those one level down,
        this extension's (twice a session: for the first assertion and for the
        report). Listing just that level finds the same files in the same order:
        ``rglob`` descends into hidden folders but not into symlinked ones, skips
        folders it may not read, and syrupy keeps regular files (or links to
        them) whose name ends in ``.wire`` and does not start with a dot.
        """
        suffix = _suffix_of(self)
        discovery = self.discovery_dirname(test_location=test_location)
        if (
            not _DIRECTORY_SCOPED
            or not suffix
            or discovery == self.dirname(test_location=test_location)
        ):
            return super().discover_snapshots(
                test_location=test_location, ignore_extensions=ignore_extensions
            )
        discovered = SnapshotCollections()
        if suffix[1:] in (ignore_extensions or ()):
            return discovered
        for folder in _entries(discovery):
            if not folder.is_dir(follow_symlinks=False):
                continue
            for entry in _entries(folder.path):
                name = entry.name
                if name.endswith(suffix) and not name.startswith(".") and entry.is_file():
                    collection = self.read_snapshot_collection(snapshot_location=entry.path)
                    if not collection.has_snapshots:
                        collection = SnapshotEmptyCollection(location=entry.path)
                    discovered.add(collection)
        return discovered

    def owns_snapshot_collection(self, *, filepath: str, test_location: PyTestLocation) -> bool:
        """Whether the test's discovery claims a file: syrupy's answer, with fewer paths built."""
        suffix = _suffix_of(self)
        if not suffix:
            return super().owns_snapshot_collection(filepath=filepath, test_location=test_location)
        if not filepath.endswith(suffix):
            return False
        discovery = self.discovery_dirname(test_location=test_location)
        if (
            discovery != self.dirname(test_location=test_location)
            and os.path.dirname(os.path.dirname(filepath)) == discovery
        ):
            return True
        return super().owns_snapshot_collection(filepath=filepath, test_location=test_location)

    def read_snapshot_collection(self, *, snapshot_location: str) -> SnapshotCollection:
        """The collection of one snapshot file: its name is the file's name, less ``.wire``."""
        suffix = _suffix_of(self)
        name = os.path.basename(snapshot_location)[: -len(suffix) or None]
        if not suffix or not snapshot_location.endswith(suffix) or name in ("", ".", ".."):
            return super().read_snapshot_collection(snapshot_location=snapshot_location)
        collection = SnapshotCollection(location=snapshot_location)
        collection.add(Snapshot(name=name))
        return collection

    def read_snapshot_data_from_location(
        self, *, snapshot_location: str, snapshot_name: str, session_id: str
    ) -> SerializableData | None:
        """The file's bytes, read unbuffered in one call (``None`` if it does not exist)."""
        del snapshot_name, session_id
        try:
            with open(snapshot_location, "rb", buffering=0) as file:
                return file.readall()
        except FileNotFoundError:
            return None

    def diff_lines(
        self, serialized_data: SerializedData, snapshot_data: SerializedData
    ) -> Iterator[str]:
        """Every differing block named on the first line, then each block's changed lines.

        ``fusion_core``'s one explanation of a snapshot change (the inline
        snapshots print the same): within pytest's default verbosity the
        first line names every changed block with its kind; ``-vv`` shows
        the whole unified diff of each.
        """
        from fusion_core._snapshot._changes import explain_snapshots  # noqa: PLC0415 - on a mismatch

        actual = _text_of(serialized_data)
        expected = _text_of(snapshot_data)
        yield from explain_snapshots(expected, actual, verbose=self.verbosity)


FusionWireExtension._cache = _Names()


# syrupy 7 scans the shared snapshot folder and keeps the files one level down
# (directory-scoped discovery); earlier versions scan the test file's own folder.
_DIRECTORY_SCOPED: Final = hasattr(SingleFileSnapshotExtension, "owns_snapshot_collection")


def _entries(folder: str) -> list[os.DirEntry[str]]:
    """The entries of ``folder`` in listing order; none if it is missing or unreadable."""
    try:
        with os.scandir(folder) as entries:
            return list(entries)
    except OSError:
        return []


def _suffix_of(extension: FusionWireExtension | type[FusionWireExtension]) -> str:
    """``.wire`` (or a subclass's own extension); empty if the subclass has none."""
    return f".{extension.file_extension}" if extension.file_extension else ""


def _cut_and_owned(
    cls: type[FusionWireExtension], test_location: PyTestLocation, folder: str, name: str
) -> bool:
    """Whether ``name`` in ``folder`` is a file of the parametrized test, by its own name.

    syrupy relates a parametrized test to the files whose names start with
    its id as it is; an id ``_names.snapshot_stem`` cleaned (``test[a/b]``) or
    cut is not, and syrupy's clean-up took such a skipped test's file for
    unused. A file the test's first stem extends (``_names.owner``) is its.
    """
    suffix = _suffix_of(cls)
    if (
        not suffix
        or not name.endswith(suffix)
        or folder != cls.dirname(test_location=test_location)
    ):
        return False
    first = cls.get_snapshot_name(test_location=test_location, index=0)
    return owner(name[: -len(suffix)], (first,)) == first


def _cached(
    cache: dict[str, str], key: str, test_location: PyTestLocation, compute: Callable[..., str]
) -> str:
    found = cache.get(key)
    if found is None:
        found = cache[key] = compute(test_location=test_location)
    return found


def _wire_of(data: Any) -> dict[str, Any]:
    if isinstance(data, FusionResult):
        return data.wire_dict
    if isinstance(data, Mapping) and "content" in data:
        return dict(data)
    msg = (
        f"fusion_snapshot compares a FusionResult, a ToolResponse or an MCP result dict, "
        f"not a {type(data).__qualname__}"
    )
    raise TypeError(msg)


def _text_of(data: Any) -> str:
    if isinstance(data, bytes | bytearray | memoryview):
        return bytes(data).decode(_ENCODING, _ERRORS)
    return "" if data is None else str(data)


class PendingSnapshotAssertion(HookedAssertion):
    """syrupy's assertion, plus the pending file: written on a mismatch, removed on a match.

    ``pending`` says whether to write; ``on_pending`` is told each file written.
    ``names`` is the session's claims on snapshot files: an assertion whose file
    another test or assertion already uses fails before anything is read or written.
    """

    pending: bool = False
    on_pending: Callable[[Path], None] | None = None
    files: PendingFiles | None = None
    names: NameTable | None = None

    def with_defaults(self, **kwargs: Any) -> SnapshotAssertion:
        """A copy with other defaults (as syrupy's), still writing pending files like this one."""
        copy = super().with_defaults(**kwargs)
        if isinstance(copy, PendingSnapshotAssertion):
            copy.pending, copy.on_pending, copy.files = self.pending, self.on_pending, self.files
            copy.names = self.names
        return copy

    def __repr__(self) -> str:
        r"""What a failing test's traceback shows for the fixture: the snapshot in brief.

        syrupy shows the serialized bytes, which for UTF-8 wire text read as
        escapes (``b'fusion-wire-snapshot 1\n\xe2\x94...'``); the diff
        below the traceback already shows the text, block by block.
        """
        result = self.executions.get(self.num_executions - 1)
        data = None if result is None else result.final_data
        if not isinstance(data, bytes):
            return super().__repr__()
        text = data.decode(_ENCODING, _ERRORS)
        blocks = text.count("\n── block ")
        return f"<fusion_snapshot: {blocks} block(s), {len(text):,} characters>"

    def before_assert(self) -> None:
        """Claim the assertion's file before anything is read or written."""
        if self.names is not None:
            self._claim(self.names)

    def after_assert(self, success: bool) -> None:
        """Write the pending file on a mismatch, remove it on a match."""
        result = self.executions.get(self.num_executions - 1)
        if result is None or result.snapshot_location is None:
            return
        pending = result.snapshot_location + PENDING_SUFFIX
        if success:
            # Matched (or written by --snapshot-update): nothing is pending any more.
            if self.files is not None:
                self.files.discard(pending)
            else:
                Path(pending).unlink(missing_ok=True)
        elif self.pending and isinstance(result.asserted_data, bytes):
            path = Path(pending)
            write_atomically(path, result.asserted_data)
            if self.files is not None:
                self.files.wrote(path)
            if self.on_pending is not None:
                self.on_pending(path)

    def _claim(self, names: NameTable) -> None:
        """Fail the test if this assertion's file is another test's or assertion's."""
        index = self.index
        location = self.extension.get_location(test_location=self.test_location, index=index)
        nodeid = self.test_location.nodeid
        claimant = names.claim(nodeid, index, location)
        if claimant is None:
            return
        other, other_index = claimant
        whose = "this test's" if other == nodeid else f"{other}'s"
        message = (
            f"the wire snapshot {_describe(index)} of {nodeid} would share the file "
            f"{os.path.basename(location)!a} with {whose} {_describe(other_index)}. "
            f"{SHARED_FILE_RULES}: give it a name that still differs"
        )
        pytest.fail(message, pytrace=False)


def _describe(index: SnapshotIndex) -> str:
    """An assertion's index as a user wrote it: ``name='totals'``, or its number."""
    if isinstance(index, str):
        return f"fusion_snapshot(name={index!a})"  # escaped: NFC and NFD look alike
    return f"snapshot #{index + 1}"
