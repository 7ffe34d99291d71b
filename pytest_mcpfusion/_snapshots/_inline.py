"""Inline wire snapshots: the value inline-snapshot stores, and the diff when it differs.

``assert result.inline == snapshot()`` stores the response in the test's own
source as ``(kind, text)`` pairs (``fusion_core._snapshot._inline``);
``--inline-snapshot=create,fix`` writes and updates it there. inline-snapshot
is optional (the ``inline`` extra): nothing here imports it until a mismatch
has to be explained, and then only its public ``get_snapshot_value``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fusion_core import ToolResponse, WireFormatError
from fusion_core._snapshot._changes import explain_snapshots
from fusion_core._snapshot._format import dump_snapshot
from fusion_core._snapshot._inline import InlineWire, inline_of, wire_of_inline
from pytest_mcpfusion._result import FusionResult

__all__ = ["explain_inline", "inline_wire"]


def inline_wire(value: Any) -> InlineWire:
    """The inline form of any response, to compare with an inline-snapshot ``snapshot()``.

    ``value`` is a ``FusionResult``, a ``ToolResponse``, an MCP wire dict, or the
    ``mcp`` SDK's ``CallToolResult`` (what an ``MCPServer`` or FastMCP client returns).
    """
    if isinstance(value, FusionResult):
        return inline_of(value.wire_dict)
    if isinstance(value, ToolResponse | Mapping):
        return inline_of(value)
    dump = getattr(value, "model_dump", None)
    if callable(dump):  # a CallToolResult: the JSON-RPC result as it travels
        return inline_of(dump(mode="json", by_alias=True, exclude_none=True))
    msg = f"no inline wire for {type(value).__name__}: pass a result, a response or a wire dict"
    raise TypeError(msg)


def explain_inline(left: object, right: object, *, verbose: int = 0) -> list[str] | None:
    """Every differing block, each named by index and kind; ``None`` if a side is no wire.

    The ``.wire`` snapshots' explanation (``explain_snapshots``): the first
    line names every changed block; below ``-vv`` only the changed lines
    follow (pytest keeps about eight lines of an explanation), with ``-vv``
    the whole per-block diff.
    """
    expected, actual = right, left
    if not isinstance(left, InlineWire):  # `snapshot(...) == result.inline`
        expected, actual = left, right
    old, new = _wire_or_none(_stored_value(expected)), _wire_or_none(actual)
    if old is None or new is None:
        return None
    return explain_snapshots(
        dump_snapshot(old), dump_snapshot(new), verbose=verbose, subject="the inline wire"
    )


def _stored_value(value: object) -> object:
    """The value behind an inline-snapshot ``snapshot(...)``, or ``value`` itself."""
    if isinstance(value, Sequence):
        return value
    try:
        from inline_snapshot import get_snapshot_value  # noqa: PLC0415 - an optional extra
    except ImportError:
        return value
    try:
        return get_snapshot_value(value)
    except Exception:  # noqa: BLE001 - anything else is simply not a snapshot
        return value


def _wire_or_none(value: object) -> dict[str, Any] | None:
    if not isinstance(value, Sequence) or isinstance(value, str | bytes):
        return None
    try:
        return wire_of_inline(value)
    except WireFormatError:
        return None
