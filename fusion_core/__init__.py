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
    from fusion_core import ui
    from fusion_core._errors import (
        AppLoadError,
        ArgumentsError,
        CharacterReferenceError,
        CycleError,
        FusionError,
        NestingError,
        OutputSchemaError,
        SchemaConflictError,
        SerializationError,
        ServerConnectionError,
        ServerLimitError,
        ServerResultError,
        SizeLimitError,
        UIError,
        WireFormatError,
    )
    from fusion_core._limits import MAX_MESSAGE_SIZE, MAX_RESPONSE_SIZE
    from fusion_core._mcp._client import FusionClient
    from fusion_core._mcp._client_blocking import BlockingFusionClient
    from fusion_core._mcp._server import ToolApp, build_server, load_app, serve_stdio
    from fusion_core._mcp._server_http import serve_http
    from fusion_core._present._presenter import FieldError, Presenter, PresenterValidationError
    from fusion_core._read._check import ContractError, Violation, ambiguities, check, check_strict
    from fusion_core._read._parse import parse
    from fusion_core._read._parsed_blocks import (
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
    from fusion_core._tools._app import FusionApp
    from fusion_core._tools._middleware import Middleware
    from fusion_core._tools._tool import Action, Group, Tool
    from fusion_core._write._builder import ResponseBuilder, response
    from fusion_core._write._json import MAX_DEPTH, to_json, to_plain
    from fusion_core._write._one_call import (
        error,
        required,
        success,
        success_structured,
        tool_error,
        toon_success,
    )
    from fusion_core._write._response import ToolResponse, view_of
    from fusion_core._write._ui import UiBlock, UiMeta, fence
    from fusion_core._write._view import (
        ErrorDetails,
        ErrorEnvelope,
        ResponseView,
        Suggestion,
        ValidationFailure,
    )

__all__ = [
    "MAX_DEPTH",
    "MAX_MESSAGE_SIZE",
    "MAX_RESPONSE_SIZE",
    "Action",
    "AppLoadError",
    "ArgumentsError",
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
    "Middleware",
    "NestingError",
    "OutputSchemaError",
    "ParsedResponse",
    "Presenter",
    "PresenterValidationError",
    "ResponseBuilder",
    "ResponseView",
    "RulesBlock",
    "SchemaConflictError",
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

if TYPE_CHECKING:
    __version__: str
    """The installed distribution's version (``pytest-mcpfusion``), read from its metadata."""

_DISTRIBUTION = "pytest-mcpfusion"

# Each public name, and the module that defines it. Nothing is imported until
# a name is first used, so ``from fusion_core import response`` pays for the
# builder alone: never for pydantic (Presenters, tools), lxml (``check``) or
# the mcp SDK (server and client). ``ui`` is the ``fusion_core.ui`` module.
_SOURCES: dict[str, str] = {
    "FusionApp": "._tools._app",
    "ResponseBuilder": "._write._builder",
    "response": "._write._builder",
    "ContractError": "._read._check",
    "Violation": "._read._check",
    "ambiguities": "._read._check",
    "check": "._read._check",
    "check_strict": "._read._check",
    "BlockingFusionClient": "._mcp._client_blocking",
    "FusionClient": "._mcp._client",
    "AppLoadError": "._errors",
    "ArgumentsError": "._errors",
    "CharacterReferenceError": "._errors",
    "CycleError": "._errors",
    "FusionError": "._errors",
    "NestingError": "._errors",
    "OutputSchemaError": "._errors",
    "SchemaConflictError": "._errors",
    "SerializationError": "._errors",
    "ServerConnectionError": "._errors",
    "ServerLimitError": "._errors",
    "ServerResultError": "._errors",
    "SizeLimitError": "._errors",
    "UIError": "._errors",
    "WireFormatError": "._errors",
    "error": "._write._one_call",
    "required": "._write._one_call",
    "success": "._write._one_call",
    "success_structured": "._write._one_call",
    "tool_error": "._write._one_call",
    "toon_success": "._write._one_call",
    "MAX_DEPTH": "._write._json",
    "to_json": "._write._json",
    "to_plain": "._write._json",
    "MAX_MESSAGE_SIZE": "._limits",
    "MAX_RESPONSE_SIZE": "._limits",
    "parse": "._read._parse",
    "Block": "._read._parsed_blocks",
    "DataBlock": "._read._parsed_blocks",
    "DirectivesBlock": "._read._parsed_blocks",
    "EmbedBlock": "._read._parsed_blocks",
    "ParsedResponse": "._read._parsed_blocks",
    "RulesBlock": "._read._parsed_blocks",
    "SuggestionsBlock": "._read._parsed_blocks",
    "ToolErrorBlock": "._read._parsed_blocks",
    "UiBlockText": "._read._parsed_blocks",
    "ValidationErrorBlock": "._read._parsed_blocks",
    "ValidationField": "._read._parsed_blocks",
    "FieldError": "._present._presenter",
    "Presenter": "._present._presenter",
    "PresenterValidationError": "._present._presenter",
    "ToolResponse": "._write._response",
    "view_of": "._write._response",
    "ToolApp": "._mcp._server",
    "build_server": "._mcp._server",
    "load_app": "._mcp._server",
    "serve_http": "._mcp._server_http",
    "serve_stdio": "._mcp._server",
    "Middleware": "._tools._middleware",
    "Action": "._tools._tool",
    "Group": "._tools._tool",
    "Tool": "._tools._tool",
    "UiBlock": "._write._ui",
    "UiMeta": "._write._ui",
    "fence": "._write._ui",
    "ErrorDetails": "._write._view",
    "ErrorEnvelope": "._write._view",
    "ResponseView": "._write._view",
    "Suggestion": "._write._view",
    "ValidationFailure": "._write._view",
    "ui": ".ui",
}


if not TYPE_CHECKING:  # type checkers see the imports above, and flag misspelt names

    def __getattr__(name: str) -> Any:
        """Import a public name on first use (PEP 562) and keep it in the module."""
        if name == "__version__":
            # Read once, on first use: importlib.metadata costs more to import
            # than the whole builder, and pyproject.toml is the one place the
            # version is written (as pluggy's package reads its own).
            from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415

            try:
                value = version(_DISTRIBUTION)
            except PackageNotFoundError:  # a source tree that was never installed
                value = "0+unknown"
            globals()[name] = value
            return value
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
