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
from ._app import FusionApp
from ._builder import ResponseBuilder, response
from ._check import ContractError, Violation, ambiguities, check, check_strict
from ._client import BlockingFusionClient, FusionClient
from ._errors import (
    AppLoadError,
    CharacterReferenceError,
    CycleError,
    FusionError,
    NestingError,
    OutputSchemaError,
    SerializationError,
    ServerConnectionError,
    ServerResultError,
    SizeLimitError,
    UIError,
    WireFormatError,
)
from ._helpers import error, required, success, success_structured, tool_error, toon_success
from ._json import MAX_DEPTH, to_json, to_plain
from ._parse import parse
from ._parsed import (
    Block,
    DataBlock,
    DirectivesBlock,
    EmbedBlock,
    ParsedResponse,
    RulesBlock,
    SuggestionsBlock,
    ToolErrorBlock,
    UiBlockText,
    ValidationErrorBlock,
    ValidationField,
)
from ._presenter import FieldError, Presenter, PresenterValidationError
from ._response import ToolResponse, view_of
from ._server import ToolApp, build_server, load_app, serve_http, serve_stdio
from ._tool import Action, Group, Tool
from ._ui import UiBlock, UiMeta, fence
from ._view import ErrorDetails, ErrorEnvelope, ResponseView, Suggestion, ValidationFailure

__all__ = [
    "MAX_DEPTH",
    "Action",
    "AppLoadError",
    "Block",
    "BlockingFusionClient",
    "CharacterReferenceError",
    "ContractError",
    "CycleError",
    "DataBlock",
    "DirectivesBlock",
    "EmbedBlock",
    "ErrorDetails",
    "ErrorEnvelope",
    "FieldError",
    "FusionApp",
    "FusionClient",
    "FusionError",
    "Group",
    "NestingError",
    "OutputSchemaError",
    "ParsedResponse",
    "Presenter",
    "PresenterValidationError",
    "ResponseBuilder",
    "ResponseView",
    "RulesBlock",
    "SerializationError",
    "ServerConnectionError",
    "ServerResultError",
    "SizeLimitError",
    "Suggestion",
    "SuggestionsBlock",
    "Tool",
    "ToolApp",
    "ToolErrorBlock",
    "ToolResponse",
    "UIError",
    "UiBlock",
    "UiBlockText",
    "UiMeta",
    "ValidationErrorBlock",
    "ValidationFailure",
    "ValidationField",
    "Violation",
    "WireFormatError",
    "ambiguities",
    "build_server",
    "check",
    "check_strict",
    "error",
    "fence",
    "load_app",
    "parse",
    "required",
    "response",
    "serve_http",
    "serve_stdio",
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
