"""fusion_core: the Fusion wire format for MCP tool results, byte for byte.

>>> from fusion_core import response, ui
>>> result = response({"id": 7}).ui_block(ui.summary("1 invoice")).build()
>>> print(result.texts[1])
<ui_passthrough type="summary">
📊 **Summary**: 1 invoice
</ui_passthrough>
"""

from __future__ import annotations

from . import ui
from ._builder import ResponseBuilder, response
from ._errors import (
    CycleError,
    FusionError,
    NestingError,
    SerializationError,
    UIError,
    WireFormatError,
)
from ._helpers import error, required, success, success_structured, tool_error, toon_success
from ._json import MAX_DEPTH, to_json, to_plain
from ._response import ToolResponse, view_of
from ._ui import UiBlock, UiMeta, fence
from ._view import ErrorEnvelope, ResponseView, Suggestion

__all__ = [
    "MAX_DEPTH",
    "CycleError",
    "ErrorEnvelope",
    "FusionError",
    "NestingError",
    "ResponseBuilder",
    "ResponseView",
    "SerializationError",
    "Suggestion",
    "ToolResponse",
    "UIError",
    "UiBlock",
    "UiMeta",
    "WireFormatError",
    "error",
    "fence",
    "required",
    "response",
    "success",
    "success_structured",
    "to_json",
    "to_plain",
    "tool_error",
    "toon_success",
    "ui",
    "view_of",
]

__version__ = "0.1.0"
