"""fusion_core: the Fusion wire format for MCP tool results, byte for byte.

>>> from fusion_core import response, ui
>>> result = response({"id": 7}).ui_block(ui.summary("1 invoice")).build()
>>> print(result.texts[1])
<ui_passthrough type="summary">
📊 **Summary**: 1 invoice
</ui_passthrough>
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
        ServerLimitError,
        ServerResultError,
        SizeLimitError,
        UIError,
        WireFormatError,
    )
    from ._helpers import error, required, success, success_structured, tool_error, toon_success
    from ._json import MAX_DEPTH, to_json, to_plain
    from ._limits import MAX_MESSAGE_SIZE, MAX_RESPONSE_SIZE
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
    "MAX_MESSAGE_SIZE",
    "MAX_RESPONSE_SIZE",
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
    "ServerLimitError",
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

# Each public name, and the module that defines it. Nothing is imported until
# a name is first used, so ``from fusion_core import response`` pays for the
# builder alone: never for pydantic (Presenters, tools), lxml (``check``) or
# the mcp SDK (server and client). ``ui`` is the ``fusion_core.ui`` module.
_SOURCES: dict[str, str] = {
    "FusionApp": "._app",
    "ResponseBuilder": "._builder",
    "response": "._builder",
    "ContractError": "._check",
    "Violation": "._check",
    "ambiguities": "._check",
    "check": "._check",
    "check_strict": "._check",
    "BlockingFusionClient": "._client",
    "FusionClient": "._client",
    "AppLoadError": "._errors",
    "CharacterReferenceError": "._errors",
    "CycleError": "._errors",
    "FusionError": "._errors",
    "NestingError": "._errors",
    "OutputSchemaError": "._errors",
    "SerializationError": "._errors",
    "ServerConnectionError": "._errors",
    "ServerLimitError": "._errors",
    "ServerResultError": "._errors",
    "SizeLimitError": "._errors",
    "UIError": "._errors",
    "WireFormatError": "._errors",
    "error": "._helpers",
    "required": "._helpers",
    "success": "._helpers",
    "success_structured": "._helpers",
    "tool_error": "._helpers",
    "toon_success": "._helpers",
    "MAX_DEPTH": "._json",
    "to_json": "._json",
    "to_plain": "._json",
    "MAX_MESSAGE_SIZE": "._limits",
    "MAX_RESPONSE_SIZE": "._limits",
    "parse": "._parse",
    "Block": "._parsed",
    "DataBlock": "._parsed",
    "DirectivesBlock": "._parsed",
    "EmbedBlock": "._parsed",
    "ParsedResponse": "._parsed",
    "RulesBlock": "._parsed",
    "SuggestionsBlock": "._parsed",
    "ToolErrorBlock": "._parsed",
    "UiBlockText": "._parsed",
    "ValidationErrorBlock": "._parsed",
    "ValidationField": "._parsed",
    "FieldError": "._presenter",
    "Presenter": "._presenter",
    "PresenterValidationError": "._presenter",
    "ToolResponse": "._response",
    "view_of": "._response",
    "ToolApp": "._server",
    "build_server": "._server",
    "load_app": "._server",
    "serve_http": "._server",
    "serve_stdio": "._server",
    "Action": "._tool",
    "Group": "._tool",
    "Tool": "._tool",
    "UiBlock": "._ui",
    "UiMeta": "._ui",
    "fence": "._ui",
    "ErrorDetails": "._view",
    "ErrorEnvelope": "._view",
    "ResponseView": "._view",
    "Suggestion": "._view",
    "ValidationFailure": "._view",
    "ui": ".ui",
}


if not TYPE_CHECKING:  # type checkers see the imports above, and flag misspelt names

    def __getattr__(name: str) -> Any:
        """Import a public name on first use (PEP 562) and keep it in the module."""
        source = _SOURCES.get(name)
        if source is None:
            msg = f"module {__name__!r} has no attribute {name!r}"
            raise AttributeError(msg)
        # __import__ (not importlib.import_module) so that -X importtime reports it.
        module = __import__(source[1:], globals(), None, ("__name__",), 1)
        value = module if name == "ui" else getattr(module, name)
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    """The public names and the module's dunders: no helper of this file."""
    return sorted({*__all__, *(name for name in globals() if name.startswith("__"))})
