"""The shape every ``use_fusion`` shares: one core, a thin module per framework.

``fusion_core.mcpserver`` and ``fusion_core.fastmcp`` each say only how their
framework is hooked (an :class:`Integration`); this module does the rest, once:
the runtime check of the server's class, calling it twice doing nothing, and
the four answers every integration gives in the framework's own result type —
a tool's Fusion response with its blocks as built (:meth:`Answers.result`),
refused arguments as the ``<validation_error>`` envelope (:meth:`Answers.refused`),
a name no tool has as the ``UNKNOWN_TOOL`` envelope (:meth:`Answers.unknown`)
and a tool that raised as the ``INTERNAL_ERROR`` envelope (:meth:`Answers.crashed`),
which says as much of the exception as ``expose_errors`` allows and never a
value a Presenter hid during the call (:meth:`Answers.recording`), as a
``FusionApp``'s does.

The framework's private parts an integration touches are not here: each has
its own ``_upstream_*`` module, which names the version it was checked against.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from types import GeneratorType
from typing import TYPE_CHECKING, Any, Final, TypeVar, final

from fusion_core._mcp._frameworks import server_kind
from fusion_core._present._redact import ERROR_EXPOSURES, ErrorExposure

if TYPE_CHECKING:
    from fusion_core._present._record import CallRecord
    from fusion_core._write._response import ToolResponse

__all__ = ["Answers", "Integration", "adopt", "fusion_answer", "validation_answer"]

_S = TypeVar("_S")
MARK: Final = "_fusion_answers"
"""Set on a server once hooked (its :class:`Answers`), and on a FastMCP tool (``True``)."""


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
    exposure_of: Callable[[Any], ErrorExposure]
    """How much of a tool's exception the framework itself would show for a server."""
    logs_crashes: bool
    """Whether the framework has logged a tool's exception before the integration sees it."""


@final
@dataclass(slots=True)
class Answers:
    """The answers an integration gives, in its framework's result type.

    Kept on the hooked server (its ``MARK`` attribute): ``use_fusion`` called
    again with ``expose_errors`` changes :attr:`exposure` for every tool.
    """

    result_of: Callable[[Any], Any]
    exposure: ErrorExposure
    """How much of a tool's exception :meth:`crashed` shows (``expose_errors``)."""
    logs_crashes: bool

    def result(
        self,
        raw: object,
        otherwise: Callable[[Any], Any],
        *,
        schema: Callable[[Any], Any] | None = None,
    ) -> Any:
        """A Fusion response's blocks as built; anything else is ``otherwise(raw)``.

        Anything else but a list, tuple, dict or generator holding a builder,
        which is no response: ``SerializationError`` naming where it sits
        (:func:`_refuse_nested_builder`), which the integration answers as a
        crash.

        ``schema``, when the tool publishes an ``outputSchema`` (both
        frameworks make one from a return annotation such as ``-> Ticket``):
        the framework's conversion of a value for it. A success must carry
        ``structuredContent`` or clients refuse it, so a response without one
        gets its data as the framework writes it for that schema
        (``schema(data).structured_content``: wrapped, aliased, validated as
        the framework does); data that does not fit raises
        ``OutputSchemaError`` naming the fix, which the integration answers as
        a crash.
        """
        answer = fusion_answer(raw)
        if answer is None:
            if isinstance(raw, GeneratorType):  # read once here: the framework sends its items
                items = list(raw)
                _refuse_nested_builder(items)
                return otherwise(iter(items))
            _refuse_nested_builder(raw)
            return otherwise(raw)
        if schema is not None and not answer.is_error and "structuredContent" not in answer:
            return self._wrapped({**answer, "structuredContent": _structured(answer, schema)})
        return self._wrapped(answer)

    def refused(
        self, tool: str, error: BaseException, schema: Mapping[str, Any] | None
    ) -> Any | None:
        """The ``<validation_error>`` answer when ``error`` is the framework's argument validation.

        That is: its ``__cause__`` is pydantic's ``ValidationError``. ``None``
        for any other error (the framework answers it as before). ``schema``:
        the tool's input schema, which says which parts of a location are
        declared names (a ``dict`` argument's keys are data: ``*``).
        """
        from pydantic import ValidationError  # noqa: PLC0415 - with the integration

        cause = error.__cause__
        if not isinstance(cause, ValidationError):
            return None
        return self._wrapped(validation_answer(tool, cause, schema))

    def unknown(self, tool: str) -> Any:
        """The ``UNKNOWN_TOOL`` answer to a call of ``tool``, a name the server has no tool by.

        The very envelope a ``FusionApp`` writes for the name as sent (escaped
        as it escapes it). A tool the framework hides from this caller
        (disabled, filtered out by tags, not authorized) is unknown to it:
        the framework's lookup says so, and the answer is the same bytes.
        """
        from fusion_core._tools._pipeline import unknown_tool  # noqa: PLC0415 - with the integration

        return self._wrapped(unknown_tool(tool))

    @staticmethod
    def recording() -> tuple[CallRecord, AbstractContextManager[CallRecord]]:
        """A record of what Presenters do while a tool runs (for :meth:`crashed`).

        Entered around the framework's run of the tool: a Presenter's
        ``make()`` in the tool then records the data it was given and what it
        hid (in a worker thread too: the framework copies the context).
        """
        from fusion_core._present._record import CallRecord, recording  # noqa: PLC0415

        record = CallRecord()
        return record, recording(record)

    def crashed(
        self,
        tool: str,
        error: BaseException,
        record: CallRecord,
        exposure: ErrorExposure | None = None,
    ) -> Any:
        """The ``INTERNAL_ERROR`` answer of a tool that raised ``error``.

        As a ``FusionApp`` writes it for a handler (``[tool] message``), as
        much of the message as :attr:`exposure` (or ``exposure``, for this
        crash) allows, every value a Presenter hid during the call
        (``record``) replaced by ``***``.
        """
        from fusion_core._tools._pipeline import failure  # noqa: PLC0415 - with the integration

        shown = exposure if exposure is not None else self.exposure
        return self._wrapped(failure(tool, error, shown, record.pairs(), log=not self.logs_crashes))

    def _wrapped(self, answer: Mapping[str, Any]) -> Any:
        from mcp_types import CallToolResult  # noqa: PLC0415 - mcp is slow to import

        return self.result_of(CallToolResult.model_validate(dict(answer)))


def _structured(answer: ToolResponse, convert: Callable[[Any], Any]) -> Any:
    """The ``structuredContent`` the framework writes for the data of ``answer``."""
    from fusion_core._errors import OutputSchemaError  # noqa: PLC0415
    from fusion_core._write._response import view_of  # noqa: PLC0415

    fix = (
        "the tool publishes an outputSchema (made from its return annotation), so its "
        "answer must carry structuredContent: return data that fits the schema, "
        "success_structured(...), or annotate the tool -> ResponseBuilder or "
        "-> ToolResponse to publish no outputSchema"
    )
    try:
        structured = getattr(convert(view_of(answer).data), "structured_content", None)
    except Exception as exc:
        msg = f"the Fusion response's data does not fit its outputSchema; {fix}"
        raise OutputSchemaError(msg) from exc
    if structured is None:
        msg = f"the Fusion response's data gives no structuredContent; {fix}"
        raise OutputSchemaError(msg)
    return structured


def adopt(server: _S, integration: Integration, expose_errors: ErrorExposure | None = None) -> _S:
    """Hook ``server`` once; refuse, naming it, anything but the integration's kind.

    ``expose_errors`` (``"message"``, ``"type"``, ``"none"``, as
    ``FusionApp(expose_errors=)``): how much of a tool's exception the client
    sees; ``None`` keeps what the framework itself shows for this server.
    """
    if server_kind(server) != integration.kind:  # a runtime check of what typing says
        msg = f"use_fusion() needs {integration.needs}, got {type(server).__qualname__}"
        raise TypeError(msg)
    if expose_errors is not None and expose_errors not in ERROR_EXPOSURES:
        msg = f"expose_errors must be one of {ERROR_EXPOSURES} or None, got {expose_errors!r}"
        raise ValueError(msg)
    hooked = getattr(server, MARK, None)
    if isinstance(hooked, Answers):
        if expose_errors is not None:
            hooked.exposure = expose_errors
        return server
    exposure = expose_errors if expose_errors is not None else integration.exposure_of(server)
    answers = Answers(integration.result_of, exposure, integration.logs_crashes)
    integration.install(server, answers)
    setattr(server, MARK, answers)
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


_NESTED_LOOKED_AT: Final = 256
"""Members of a returned list, tuple or dict looked at for a builder inside (a bound per call)."""
_NESTED_DEPTH: Final = 3


def _refuse_nested_builder(value: object) -> None:
    """Raise ``SerializationError`` for a builder inside a returned list, tuple or dict.

    ``[TICKET.make(a), TICKET.make(b)]`` is not a response: the framework
    would send each builder's ``repr`` as data. A ``FusionApp``'s JSON writer
    refuses the same value; here its first members (breadth first, a bounded
    number, so a large plain value costs a few microseconds) are looked at.
    """
    if not isinstance(value, _CONTAINERS):
        return
    from fusion_core._errors import SerializationError  # noqa: PLC0415 - only on a hit
    from fusion_core._write._builder import ResponseBuilder  # noqa: PLC0415 - with the integration

    level: list[tuple[Any, tuple[Any, ...]]] = [(value, ())]
    looked_at = 0
    for _ in range(_NESTED_DEPTH):
        deeper: list[tuple[Any, tuple[Any, ...]]] = []
        for container, where in level:
            members = container.items() if isinstance(container, dict) else enumerate(container)
            for key, member in members:
                looked_at += 1
                if looked_at > _NESTED_LOOKED_AT:
                    return
                if isinstance(member, ResponseBuilder):
                    path = _path_of((*where, key))
                    msg = (
                        "the tool returned a ResponseBuilder inside a "
                        f"{type(value).__name__}, which is no response: return one response "
                        "(a Presenter's make(rows) takes the whole list; response(...) holds "
                        "many UI blocks) or build the value as data"
                    )
                    raise SerializationError(msg, path=path, value=member)
                if isinstance(member, _CONTAINERS):
                    deeper.append((member, (*where, key)))
        level = deeper


_CONTAINERS: Final = (list, tuple, dict)


def _path_of(keys: tuple[Any, ...]) -> str:
    from fusion_core._write._json import child_path  # noqa: PLC0415 - only on a hit

    path = "$"
    for key in keys:
        path = f"{path}[{key}]" if isinstance(key, int) else child_path(path, key)
    return path


def validation_answer(tool: str, error: Any, schema: Mapping[str, Any] | None) -> ToolResponse:
    """The ``<validation_error>`` envelope of a framework's argument validation.

    The one a ``FusionApp`` writes (``action`` is the tool's name), with the
    field names and pydantic's messages, never the values sent: a part of a
    location the input ``schema`` does not declare (a ``dict`` argument's key)
    is ``*``.
    """
    from fusion_core._mcp._field_paths import declared_path  # noqa: PLC0415
    from fusion_core._tools._pipeline import field_problems, validation_error  # noqa: PLC0415

    def path(loc: Any) -> str:
        return declared_path(loc, schema)

    return validation_error(tool, field_problems(error, values=False, path=path))
