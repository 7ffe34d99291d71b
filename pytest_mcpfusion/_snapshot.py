"""The syrupy extension for exact wire snapshots: a thin adapter.

The file format and the diff live in ``fusion_core._snapshot``; this class
picks the file extension, stores bytes (so no newline is ever translated),
applies the ``pytest_fusion_normalize`` hook, and delegates.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from fusion_core._snapshot import block_kinds, diff_snapshots, dump_snapshot

from ._pending import PENDING_SUFFIX, write_pending
from ._result import FusionResult

if TYPE_CHECKING:
    import pluggy
    from syrupy.location import PyTestLocation
    from syrupy.types import PropertyFilter, PropertyMatcher, SerializableData, SerializedData

__all__ = ["FusionWireExtension"]

_ENCODING = "utf-8"
_ERRORS = "surrogatepass"


class FusionWireExtension(SingleFileSnapshotExtension):
    """Snapshots of a response's exact blocks, one ``.wire`` file per snapshot."""

    file_extension = "wire"
    _write_mode = WriteMode.BINARY
    hook: ClassVar[pluggy.HookRelay | None] = None

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

    # syrupy rebuilds these paths about ten times per snapshot; they depend only
    # on the test's file, so one computation per file serves every test in it.
    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        """The snapshot folder of a test file (cached per file)."""
        return _cached(_DIRNAMES, cls, test_location, super().dirname)

    @classmethod
    def discovery_dirname(cls, *, test_location: PyTestLocation) -> str:
        """The folder syrupy scans for a test file's snapshots (cached per file)."""
        return _cached(_DISCOVERY, cls, test_location, super().discovery_dirname)

    def diff_lines(
        self, serialized_data: SerializedData, snapshot_data: SerializedData
    ) -> Iterator[str]:
        """A unified diff per differing block, naming the block's kind."""
        actual = _text_of(serialized_data)
        expected = _text_of(snapshot_data)
        for line in diff_snapshots(expected, actual):
            yield line.rstrip("\n")


_DIRNAMES: dict[tuple[type, str], str] = {}
_DISCOVERY: dict[tuple[type, str], str] = {}


def _cached(
    cache: dict[tuple[type, str], str],
    cls: type,
    test_location: PyTestLocation,
    compute: Callable[..., str],
) -> str:
    key = (cls, str(test_location.filepath))
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


class PendingSnapshotAssertion(SnapshotAssertion):
    """syrupy's assertion, plus the pending file: written on a mismatch, removed on a match.

    ``pending`` says whether to write; ``on_pending`` is told each file written.
    """

    pending: bool = False
    on_pending: Callable[[Path], None] | None = None

    def with_defaults(self, **kwargs: Any) -> SnapshotAssertion:
        """A copy with other defaults (as syrupy's), still writing pending files like this one."""
        copy = super().with_defaults(**kwargs)
        if isinstance(copy, PendingSnapshotAssertion):
            copy.pending, copy.on_pending = self.pending, self.on_pending
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

    def _assert(self, data: SerializableData) -> bool:
        success = super()._assert(data)
        result = self._execution_results.get(self._executions - 1)
        if result is None or result.snapshot_location is None:
            return success
        path = Path(result.snapshot_location + PENDING_SUFFIX)
        if success:
            # Matched (or written by --snapshot-update): nothing is pending any more.
            path.unlink(missing_ok=True)
        elif self.pending and isinstance(result.asserted_data, bytes):
            write_pending(path, result.asserted_data)
            if self.on_pending is not None:
                self.on_pending(path)
        return success
