"""FusionApp: the tools of a server, and the pipeline that calls them.

``definitions()`` is exactly what ``tools/list`` returns; ``await call(name,
arguments, ctx)`` is exactly what ``tools/call`` returns. A call goes:

1. find the tool (``UNKNOWN_TOOL``);
2. read the discriminator (``MISSING_DISCRIMINATOR`` when absent or empty,
   ``INVALID_DISCRIMINATOR`` when not a string) and find the action
   (``UNKNOWN_ACTION``);
3. validate the arguments — common parameters, then the action's, no unknown
   keys — and ``_select`` when the tool enables it (``<validation_error>``);
   ``_select`` is ignored by tools that do not enable it, as in the reference;
4. build the context (``ctx``, else ``context_factory()``, sync or async);
5. run the handler (sync or async) and apply the wrap rule, through the
   action's Presenter when it has one (``fusion_core._pipeline.wrap``);
6. any exception in 5 — handler, Presenter, serialization, output schema —
   is logged with its traceback and answered with the ``INTERNAL_ERROR``
   envelope, which carries as much of the exception as ``expose_errors``
   allows (``docs/errors.md``) and never a value a Presenter hid.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, final

from pydantic import BaseModel, ValidationError

from ._errors import OutputSchemaError
from ._pipeline import (
    check_select,
    field_problems,
    internal_error,
    invalid_discriminator,
    missing_discriminator,
    unknown_action,
    unknown_tool,
    unrecognized,
    validation_error,
    wrap,
)
from ._presenter import CallRecord, recording
from ._redact import ERROR_EXPOSURES, ErrorExposure
from ._response import ToolResponse
from ._tool import SELECT_PARAM, Action, Tool

__all__ = ["FusionApp"]

logger = logging.getLogger("fusion_core")

ContextFactory = Callable[[], Any]


@final
class FusionApp:
    """A set of tools and the pipeline that serves them.

    ``context_factory`` (sync or async, no arguments) makes the context of a
    call when ``call()`` is given none. ``expose_errors`` says how much of an
    unexpected exception reaches the client: ``"message"`` (the default, as
    the reference: its message, cleaned of values a Presenter hid),
    ``"type"`` (its class name) or ``"none"`` (a fixed text); see
    ``docs/errors.md``.
    """

    __slots__ = ("_tools", "context_factory", "expose_errors", "name")

    def __init__(
        self,
        tools: Iterable[Tool] = (),
        *,
        name: str = "fusion",
        context_factory: ContextFactory | None = None,
        expose_errors: ErrorExposure = "message",
    ) -> None:
        if expose_errors not in ERROR_EXPOSURES:
            msg = f"expose_errors must be one of {ERROR_EXPOSURES}, got {expose_errors!r}"
            raise ValueError(msg)
        self.name = name
        self.context_factory = context_factory
        self.expose_errors: ErrorExposure = expose_errors
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.add(tool)

    def add(self, tool: Tool) -> Tool:
        """Register a tool (names are unique); returns it."""
        candidate: object = tool
        if not isinstance(candidate, Tool):
            msg = f"add() takes a Tool, got {type(tool).__qualname__}"
            raise TypeError(msg)
        if tool.name in self._tools:
            msg = f"a tool named {tool.name!r} is already registered"
            raise ValueError(msg)
        self._tools[tool.name] = tool
        return tool

    @property
    def tools(self) -> dict[str, Tool]:
        """The registered tools by name."""
        return dict(self._tools)

    def definitions(self) -> list[dict[str, Any]]:
        """The MCP tool definitions, as ``tools/list`` returns them."""
        return [tool.definition() for tool in self._tools.values()]

    async def call(
        self, name: str, arguments: Mapping[str, Any] | None, ctx: Any = None
    ) -> ToolResponse:
        """Call a tool as ``tools/call`` does; every failure is an envelope."""
        tool = self._tools.get(name)
        if tool is None:
            return unknown_tool(name)
        args = dict(arguments or {})
        keys = list(tool.actions)
        key = args.pop(tool.discriminator, "")
        if key == "":
            return missing_discriminator(tool.discriminator, keys)
        if not isinstance(key, str):
            return invalid_discriminator(tool.discriminator, key, keys)
        action = tool.actions.get(key)
        if action is None:
            return unknown_action(key, keys)
        label = f"{tool.name}/{key}"
        select = args.pop(SELECT_PARAM, None)
        params, problems = self._validate(tool, action, args)
        if tool.select_enabled and select is not None:
            select_problems = check_select(select, tool.select_keys())
            root = [p for p in problems if p[0] == "(root)"]
            problems = [p for p in problems if p[0] != "(root)"] + select_problems + root
        else:
            select = None
        if problems:
            return validation_error(label, problems)
        record = CallRecord()
        try:
            if ctx is None and self.context_factory is not None:
                ctx = await _resolve(self.context_factory())
            return await self._run(tool, action, params, ctx, select, record)
        except Exception as exc:
            logger.exception("tool call %s failed", label)
            given = [(pair[0], pair[1]) for pair in record.given]
            return internal_error(label, exc, self.expose_errors, given)

    def call_sync(
        self, name: str, arguments: Mapping[str, Any] | None, ctx: Any = None
    ) -> ToolResponse:
        """``call()`` for code without an event loop (tests, scripts)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass  # no loop running: run one below, outside this handler
        else:
            msg = "call_sync() cannot run inside an event loop; use `await app.call(...)`"
            raise RuntimeError(msg)
        return asyncio.run(self.call(name, arguments, ctx))

    @staticmethod
    def _validate(
        tool: Tool, action: Action, args: dict[str, Any]
    ) -> tuple[BaseModel | None, list[tuple[str, str]]]:
        model = tool.arguments_model(action)
        non_str = [key for key in args if not isinstance(key, str)]
        if non_str:
            return None, [unrecognized([str(key) for key in non_str])]
        try:
            return model.model_validate(args), []
        except ValidationError as exc:
            return None, field_problems(exc)

    async def _run(  # noqa: PLR0917 - one private call site, in call()
        self,
        tool: Tool,
        action: Action,
        params: BaseModel | None,
        ctx: Any,
        select: Any,
        record: CallRecord,
    ) -> ToolResponse:
        kwargs: dict[str, Any] = {}
        if action.takes_ctx:
            kwargs["ctx"] = ctx
        if params is not None:
            if action.params is not None:
                if action.model_param is not None:
                    kwargs[action.model_param] = params
            else:
                names = (
                    type(params).model_fields
                    if action.takes_kwargs
                    else action.fields_model.model_fields
                )
                kwargs.update({name: getattr(params, name) for name in names})
        with recording(record):
            result = await _resolve(action.handler(**kwargs))
            response = wrap(result, action.returns, ctx, select, record)
        if tool.output_schema is not None and "structuredContent" in response:
            try:
                tool.output_schema.model_validate(response["structuredContent"])
            except ValidationError as exc:
                fields = ", ".join(
                    ".".join(str(p) for p in e["loc"]) or "(root)" for e in exc.errors()
                )
                msg = f"structuredContent does not match the output schema (fields: {fields})"
                raise OutputSchemaError(msg) from None
        return response


async def _resolve(value: Any) -> Any:
    """Await ``value`` if it is awaitable (async handlers and factories)."""
    if inspect.isawaitable(value):
        awaited: Awaitable[Any] = value
        return await awaited
    return value
