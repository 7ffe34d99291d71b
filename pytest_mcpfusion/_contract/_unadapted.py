"""Fusion responses a framework serialized as data: the integration was not applied.

An ``MCPServer`` or FastMCP tool returning a ``ToolResponse`` without
``use_fusion`` sends one text block holding the JSON of the whole wire dict
(FastMCP copies it into ``structuredContent`` too); a builder returned
unbuilt arrives as its ``repr`` (builders in a returned list or dict: each
one's, inside the JSON). These read as plain data to any other check,
so this one (a ``pytest_fusion_check`` implementation the plugin registers)
names them under ``--fusion`` and says what to apply.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from pytest_mcpfusion._result import FusionResult

__all__ = ["pytest_fusion_check"]

_FIX: Final = (
    "apply use_fusion(server) from fusion_core.mcpserver (MCPServer) or fusion_core.fastmcp "
    "(FastMCP), which sends a returned response's blocks as they are (docs/mcpserver.md)"
)


_BUILDER_REPR: Final = "ResponseBuilder(data="
_BUILDER_REPR_END: Final = re.compile(
    r", ui=\d+, raw=\d+, directives=\d+, rules=\d+, suggestions=\d+\)"
)
"""How ``repr(ResponseBuilder)`` ends: its counts, after the data's repr."""


def _holds_builder_repr(text: str) -> bool:
    """Whether a builder's ``repr`` is inside ``text`` (a list or dict of them, serialized)."""
    start = text.find(_BUILDER_REPR)
    return start >= 0 and _BUILDER_REPR_END.search(text, start) is not None


def _encoded_response(text: str) -> bool:
    """Whether ``text`` is the JSON of a whole MCP tool result (``{"content": [...]}``)."""
    stripped = text.lstrip()
    if not stripped.startswith("{") or '"content"' not in stripped:
        return False
    try:
        value: Any = json.loads(stripped)
    except ValueError:
        return False
    content = value.get("content") if isinstance(value, dict) else None
    return (
        isinstance(content, list)
        and bool(content)
        and all(isinstance(block, dict) and "type" in block for block in content)
    )


def pytest_fusion_check(result: FusionResult) -> list[str] | None:
    """``[unadapted]`` for a block that is a whole response serialized, or a builder's repr."""
    for index, text in enumerate(result.content):
        if _encoded_response(text):
            what = "the JSON of a whole tool result: the tool returned a ToolResponse"
            return [f"[unadapted] block {index} is {what} the framework sent as data; {_FIX}"]
        if text.lstrip('"').startswith("ResponseBuilder("):  # str(), or its JSON
            what = "the repr of a ResponseBuilder: the tool returned a builder"
            return [f"[unadapted] block {index} is {what} the framework cannot send; {_FIX}"]
        if _holds_builder_repr(text):  # builders in a list or dict, each sent as its repr
            what = "the repr of a ResponseBuilder: the tool returned builders inside a value"
            advice = "return one response (a Presenter's make(rows) takes the whole list), and"
            return [f"[unadapted] block {index} holds {what}; {advice} {_FIX}"]
    return None
