"""Results the SDK cannot encode, from an app that bypasses every writer.

Served in process and over stdio (``tests._support.hostile_results:hostile_app``):
lone surrogates in text, structured content, its keys and ``_meta``, and an
object no JSON encoder reads; ``fine`` is the call that must still be answered.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = ["HOSTILE_RESULTS", "hostile_app"]


class _HostileResultsApp:
    """Results the SDK could not encode, from an app that bypasses every writer."""

    def definitions(self) -> list[dict[str, Any]]:
        return [{"name": name, "inputSchema": {"type": "object"}} for name in HOSTILE_RESULTS]

    async def call(self, name: str, arguments: Mapping[str, Any] | None, ctx: Any = None) -> Any:
        return HOSTILE_RESULTS[name]


HOSTILE_RESULTS: Final[dict[str, dict[str, Any]]] = {
    "surrogate_text": {"content": [{"type": "text", "text": "caf\u00e9 \ud800 tail"}]},
    "surrogate_late_block": {
        "content": [{"type": "text", "text": "fine"}, {"type": "text", "text": "\udfff"}]
    },
    "surrogate_structured": {
        "content": [{"type": "text", "text": "{}"}],
        "structuredContent": {"name": "\udc80"},
    },
    "surrogate_structured_key": {
        "content": [{"type": "text", "text": "{}"}],
        "structuredContent": {"\ud834": 1},
    },
    "object_structured": {
        "content": [{"type": "text", "text": "{}"}],
        "structuredContent": {"when": object()},
    },
    "surrogate_meta": {"content": [{"type": "text", "text": "ok"}], "_meta": {"x": "\ud800"}},
    "fine": {"content": [{"type": "text", "text": "still serving ✓"}]},
}

hostile_app: Final = _HostileResultsApp()
"""The app serving :data:`HOSTILE_RESULTS`, one tool per row."""
