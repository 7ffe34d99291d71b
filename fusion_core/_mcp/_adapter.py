"""The shape every ``use_fusion`` shares: one core, a thin module per framework.

``fusion_core.mcpserver`` and ``fusion_core.fastmcp`` each say only how their
framework is hooked (an :class:`Integration`); this module does the rest, once:
the runtime check of the server's class, calling it twice doing nothing, and
the two answers every integration gives in the framework's own result type —
a tool's Fusion response with its blocks as built (:meth:`Answers.result`) and
refused arguments as the ``<validation_error>`` envelope (:meth:`Answers.refused`).

The framework's private parts an integration touches are not here: each has
its own ``_upstream_*`` module, which names the version it was checked against.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, TypeVar, final

from fusion_core._mcp._frameworks import server_kind

if TYPE_CHECKING:
    from fusion_core._write._response import ToolResponse

__all__ = ["Answers", "Integration", "adopt", "fusion_answer", "validation_answer"]

_S = TypeVar("_S")
MARK: Final = "_fusion_answers"
"""The attribute set on a server (and, for FastMCP, on a tool) once hooked."""


@final
@dataclass(frozen=True, slots=True)
class Integration:
    """How one framework is hooked: its kind, the words for it, the hook."""

    kind: str
    """What ``server_kind`` says of its servers (``"MCPServer"``, ``"FastMCP"``)."""
    needs: str
    """How the refusal names it: ``"an MCPServer"``."""
    install: Callable[[Any, Answers], None]
    """Hooks one server (called once per server)."""
    result_of: Callable[[Any], Any]
    """The framework's result type made from an MCP ``CallToolResult``."""


@final
@dataclass(frozen=True, slots=True)
class Answers:
    """The answers an integration gives, in its framework's result type."""

    result_of: Callable[[Any], Any]

    def result(self, raw: object, otherwise: Callable[[Any], Any]) -> Any:
        """A Fusion response's blocks as built; anything else is ``otherwise(raw)``."""
        answer = fusion_answer(raw)
        if answer is None:
            return otherwise(raw)
        return self._wrapped(answer)

    def refused(self, tool: str, error: BaseException) -> Any | None:
        """The ``<validation_error>`` answer when ``error`` is the framework's argument validation.

        That is: its ``__cause__`` is pydantic's ``ValidationError``. ``None``
        for any other error (the framework answers it as before).
        """
        from pydantic import ValidationError  # noqa: PLC0415 - with the integration

        cause = error.__cause__
        if not isinstance(cause, ValidationError):
            return None
        return self._wrapped(validation_answer(tool, cause))

    def _wrapped(self, answer: ToolResponse) -> Any:
        from mcp_types import CallToolResult  # noqa: PLC0415 - mcp is slow to import

        return self.result_of(CallToolResult.model_validate(dict(answer)))


def adopt(server: _S, integration: Integration) -> _S:
    """Hook ``server`` once; refuse, naming it, anything but the integration's kind."""
    if server_kind(server) != integration.kind:  # a runtime check of what typing says
        msg = f"use_fusion() needs {integration.needs}, got {type(server).__qualname__}"
        raise TypeError(msg)
    if getattr(server, MARK, False):
        return server
    integration.install(server, Answers(integration.result_of))
    setattr(server, MARK, True)
    return server


def fusion_answer(value: object) -> ToolResponse | None:
    """The Fusion response a framework's tool returned, built; ``None`` for anything else.

    A ``ToolResponse`` as is, a builder (``response(...)``, ``Presenter.make(...)``)
    built. The integrations hand it to the framework as its own result type,
    so its blocks reach the client unchanged.
    """
    from fusion_core._write._builder import ResponseBuilder  # noqa: PLC0415 - with the integration
    from fusion_core._write._response import ToolResponse  # noqa: PLC0415

    if isinstance(value, ToolResponse):
        return value
    if isinstance(value, ResponseBuilder):
        return value.build()
    return None


def validation_answer(tool: str, error: Any) -> ToolResponse:
    """The ``<validation_error>`` envelope of a framework's argument validation.

    The one a ``FusionApp`` writes (``action`` is the tool's name), with the
    field names and pydantic's messages, never the values sent.
    """
    from fusion_core._tools._pipeline import field_problems, validation_error  # noqa: PLC0415

    return validation_error(tool, field_problems(error, values=False))
