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
5. run the handler and apply the wrap rule, through the action's Presenter
   when it has one (``fusion_core._tools._pipeline.wrap``). A sync handler runs in a
   worker thread together with its wrap rule and output-schema check, so a
   blocking handler never stalls the event loop (at most ``worker_threads``
   at once, as Starlette and FastAPI do; ``fusion_core._tools._workers`` says why
   not through anyio's threads); an async handler runs on the loop.
   ``call_sync()`` runs a sync handler in the calling thread instead, with no
   loop running, and starts a loop only for what needs one
   (``fusion_core._tools._inline``);
6. any exception in any step — a validator that raises ``KeyError``, a
   handler, a Presenter, serialization, the output schema — is logged with
   its traceback and answered with the ``INTERNAL_ERROR`` envelope, which
   carries as much of the exception as ``expose_errors`` allows
   (``docs/errors.md``) and never a value a Presenter hid: ``call()`` never
   raises.

Caches. What a call reads of a tool (its actions, the ``_select`` keys, its
input schema and definition, whether each handler is async, the argument
names each handler receives) is computed once per tool, in a ``_Served``
entry, and reused while the tool is unchanged: the entry is dropped by
``add()`` and rebuilt when ``_state(tool)`` changes (an action or group
added, ``enable_select()``, ``toon_description()``, ``with_output_schema()``,
a new description...). So the cost of a call does not grow with the number
of tools or actions, and ``definitions()`` regenerates nothing until a tool
is added or changed. The arguments model of each action is cached by the
tool (``Tool.arguments_model``), the Presenter's validators by its ``Mask``.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import inspect
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, final

from pydantic import BaseModel, ValidationError

from fusion_core._errors import OutputSchemaError
from fusion_core._present._record import CallRecord, recording
from fusion_core._present._redact import ERROR_EXPOSURES, ErrorExposure, error_paths
from fusion_core._tools._inline import Inline, drive
from fusion_core._tools._input_schema import non_finite_numbers
from fusion_core._tools._middleware import Middleware, run_middleware
from fusion_core._tools._pipeline import (
    ROOT,
    check_select,
    failure,
    field_problems,
    invalid_discriminator,
    missing_discriminator,
    sent,
    unknown_action,
    unknown_tool,
    unrecognized,
    validation_error,
    wrap,
)
from fusion_core._tools._tool import SELECT_PARAM, Action, Tool
from fusion_core._tools._workers import WorkerPool
from fusion_core._write._response import ToolResponse

__all__ = ["FusionApp"]

ContextFactory = Callable[[], Any]

DEFAULT_WORKER_THREADS: Final = 40
"""Sync handlers running at once per app (anyio's own default)."""


@final
class FusionApp:
    """A set of tools and the pipeline that serves them.

    ``context_factory`` (sync or async, no arguments) makes the context of a
    call when ``call()`` is given none. ``worker_threads`` bounds how many
    sync handlers run at once (each in a worker thread, off the event loop);
    further calls to sync handlers wait for a free thread, while async
    handlers keep running on the loop. ``expose_errors`` says how much of an
    unexpected exception reaches the client: ``"message"`` (the default, as
    the reference: its message, cleaned of values a Presenter hid),
    ``"type"`` (its class name) or ``"none"`` (a fixed text); see
    ``docs/errors.md``.
    """

    __slots__ = ("_served", "_tools", "_workers", "context_factory", "expose_errors", "name")

    def __init__(
        self,
        tools: Iterable[Tool] = (),
        *,
        name: str = "fusion",
        context_factory: ContextFactory | None = None,
        worker_threads: int = DEFAULT_WORKER_THREADS,
        expose_errors: ErrorExposure = "message",
    ) -> None:
        if expose_errors not in ERROR_EXPOSURES:
            msg = f"expose_errors must be one of {ERROR_EXPOSURES}, got {expose_errors!r}"
            raise ValueError(msg)
        if isinstance(worker_threads, bool) or not isinstance(worker_threads, int):
            msg = f"worker_threads must be an int, got {worker_threads!r}"
            raise TypeError(msg)
        if worker_threads < 1:
            msg = f"worker_threads must be at least 1, got {worker_threads}"
            raise ValueError(msg)
        self.name = name
        self.context_factory = context_factory
        self.expose_errors: ErrorExposure = expose_errors
        self._tools: dict[str, Tool] = {}
        self._served: dict[str, _Served] = {}
        self._workers = WorkerPool(worker_threads)
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
        self._served.pop(tool.name, None)
        return tool

    @property
    def tools(self) -> dict[str, Tool]:
        """The registered tools by name."""
        return dict(self._tools)

    @property
    def worker_threads(self) -> int:
        """How many sync handlers may run at once (see the class docstring)."""
        return self._workers.size

    def definitions(self) -> list[dict[str, Any]]:
        """The MCP tool definitions, as ``tools/list`` returns them (a fresh copy)."""
        return copy.deepcopy(self._current_definitions())

    def tool_input_schema(self, name: str) -> Mapping[str, Any] | None:
        """The ``inputSchema`` of tool ``name`` (``None`` if there is none); read-only.

        The server's ``Mcp-Param-*`` header check asks for it on every call: it
        costs a dict lookup, not a ``definitions()`` rebuild.
        """
        tool = self._tools.get(name)
        if tool is None:
            return None
        schema: Mapping[str, Any] = self._served_of(tool).definition()["inputSchema"]
        return schema

    async def call(
        self, name: str, arguments: Mapping[str, Any] | None, ctx: Any = None
    ) -> ToolResponse:
        """Call a tool as ``tools/call`` does; every failure is an envelope, never a raise."""
        return await self._call(name, arguments, ctx, None)

    def call_sync(
        self,
        name: str,
        arguments: Mapping[str, Any] | None,
        ctx: Any = None,
        *,
        loop: asyncio.AbstractEventLoop | None = None,
        timeout: float | None = None,
    ) -> ToolResponse:
        """``call()`` for code without an event loop (tests, scripts).

        The call runs in this thread: a sync handler right here, with no event
        loop running (it may block, or start a loop of its own), and what
        needs a loop (an async handler or context factory) on ``loop``, an
        event loop that is not running (a fresh one, closed afterwards, by
        default). The answer is the one ``await app.call(...)`` gives.
        ``timeout`` (seconds) cancels what runs on the loop past it, raising
        ``TimeoutError``; a sync handler, running in this thread, cannot be
        cut short (time the call to refuse a late answer).
        """
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass  # no loop running in this thread: the call may run here
        else:
            msg = "call_sync() cannot run inside an event loop; use `await app.call(...)`"
            raise RuntimeError(msg)
        inline = Inline()
        deadline = None if timeout is None else time.monotonic() + timeout
        return drive(self._call(name, arguments, ctx, inline), inline, loop, deadline)

    async def _call(
        self, name: Any, arguments: Any, ctx: Any, inline: Inline | None
    ) -> ToolResponse:
        """``call()``; ``inline`` when ``_inline.drive`` runs it, else ``None``."""
        label = name
        record = CallRecord()
        try:
            tool = self._tools.get(name)
            if tool is None:
                return unknown_tool(name)
            served = self._served_of(tool)
            args = dict(arguments or {})
            key = args.pop(tool.discriminator, "")
            if key == "":
                return missing_discriminator(tool.discriminator, served.keys)
            if not isinstance(key, str):
                return invalid_discriminator(tool.discriminator, key, served.keys)
            action = served.actions.get(key)
            if action is None:
                return unknown_action(tool.discriminator, key, served.keys)
            label = f"{tool.name}/{key}"
            select = args.pop(SELECT_PARAM, None)
            params, problems = self._validate(tool, action, args)
            schema = served.input_schema()
            infinite = non_finite(schema, args)
            if infinite:
                params, problems = None, _in_schema_order(problems + infinite, schema)
            if served.select_keys and select is not None:
                select_problems = check_select(select, served.select_keys)
                root = [p for p in problems if p[0] == "(root)"]
                problems = [p for p in problems if p[0] != "(root)"] + select_problems + root
            else:
                select = None
            if problems:
                return validation_error(label, problems)
            if ctx is None and self.context_factory is not None:
                ctx = self.context_factory()
                if inspect.isawaitable(ctx):
                    if inline is not None:
                        await inline.leave()
                    ctx = await ctx
            chain = served.middleware[action.key]
            if chain:
                received: dict[str, Any] = {tool.discriminator: key}
                if params is not None:
                    received.update(params.model_dump(by_alias=True))
                ctx, stop = await run_middleware(chain, ctx, received, inline)
                if stop is not None:
                    with recording(record):
                        return _finish(
                            stop, record, tool=tool, action=action, ctx=ctx, select=select
                        )
            return await self._run(
                served, action, params, ctx, select=select, record=record, inline=inline
            )
        except Exception as exc:  # noqa: BLE001 - every failure of a call is an envelope
            return failure(label, exc, self.expose_errors, record.pairs())

    # ------------------------------------------------------------ internals

    def _served_of(self, tool: Tool) -> _Served:
        """The per-tool cache, rebuilt only when the tool changed since it was made."""
        state = _state(tool)
        served = self._served.get(tool.name)
        if served is None or served.state != state:
            served = _Served.of(tool, state)
            self._served[tool.name] = served
        return served

    def _current_definitions(self) -> list[dict[str, Any]]:
        """Every tool's cached definition, in registration order (not a copy)."""
        return [self._served_of(tool).definition() for tool in self._tools.values()]

    @staticmethod
    def _validate(
        tool: Tool, action: Action, args: dict[str, Any]
    ) -> tuple[BaseModel | None, list[tuple[str, str]]]:
        model = tool.arguments_model(action)
        non_str = [key for key in args if not isinstance(key, str)]
        if non_str:
            return None, [unrecognized([str(key) for key in non_str])]
        try:  # model_validate() without its Python wrapper: the same call
            return model.__pydantic_validator__.validate_python(args), []
        except ValidationError as exc:
            return None, field_problems(exc)

    async def _run(
        self,
        served: _Served,
        action: Action,
        params: BaseModel | None,
        ctx: Any,
        *,
        select: Any,
        record: CallRecord,
        inline: Inline | None,
    ) -> ToolResponse:
        kwargs = _kwargs(action, params, ctx, served.names[action.key])
        finish = functools.partial(_finish, tool=served.tool, action=action, ctx=ctx, select=select)
        if served.is_async[action.key]:
            if inline is not None:
                await inline.leave()
            with recording(record):
                try:
                    result = await action.handler(**kwargs)
                except SystemExit as exc:  # sys.exit() in a handler ends the call, not the server
                    raise _HandlerExitError(exc) from None
                return finish(result, record)
        job = functools.partial(_run_sync, action, kwargs, finish, record)
        if inline is not None and inline.loopless:
            # No loop here, and the caller waits: this thread is the worker. It is
            # also the thread a Ctrl-C reaches, so a KeyboardInterrupt goes to the caller.
            outcome = job(in_caller=True)
        else:
            outcome = await self._workers.run(job)
        if isinstance(outcome, ToolResponse):
            return outcome
        # A sync callable that returned an awaitable: await it here, on the loop.
        if inline is not None:
            await inline.leave()
        with recording(record):
            return finish(await outcome.awaitable, record)


class _HandlerExitError(RuntimeError):
    """A handler raised ``SystemExit`` or ``KeyboardInterrupt``: its call fails, serving goes on."""

    def __init__(self, exc: BaseException) -> None:
        detail = f"({exc.code!r})" if isinstance(exc, SystemExit) else ""
        super().__init__(f"the handler raised {type(exc).__name__}{detail}")


@dataclass(frozen=True, slots=True)
class _Pending:
    """An awaitable a sync-looking handler returned, to be awaited on the loop."""

    awaitable: Awaitable[Any]


def _run_sync(
    action: Action,
    kwargs: dict[str, Any],
    finish: Callable[[Any, CallRecord], ToolResponse],
    record: CallRecord,
    *,
    in_caller: bool = False,
) -> ToolResponse | _Pending:
    """In a worker thread: the handler, then the wrap rule and the output schema.

    ``SystemExit`` (``sys.exit()``, argparse's ``error()``) and
    ``KeyboardInterrupt`` raised in a worker thread come from the handler's own
    code (signals reach the main thread only): they end this call with an
    envelope. ``call_sync()`` runs the job in the calling thread
    (``in_caller``, ``fusion_core._tools._inline``), which a Ctrl-C does reach: there
    ``KeyboardInterrupt`` stops the caller (a test run), as it would without
    the app; ``SystemExit`` still ends only the call.
    """
    with recording(record):
        try:
            result = action.handler(**kwargs)
        except KeyboardInterrupt as exc:
            if in_caller:
                raise
            raise _HandlerExitError(exc) from None
        except SystemExit as exc:
            raise _HandlerExitError(exc) from None
        if inspect.isawaitable(result):
            return _Pending(result)
        return finish(result, record)


def _finish(
    result: Any, record: CallRecord, *, tool: Tool, action: Action, ctx: Any, select: Any
) -> ToolResponse:
    """The wrap rule, then the tool's output schema (``OutputSchemaError``)."""
    response = wrap(result, action.returns, ctx, select, record)
    if tool.output_schema is not None and "structuredContent" in response:
        try:
            tool.output_schema.model_validate(response["structuredContent"])
        except ValidationError as exc:
            fields = ", ".join(error_paths(exc, tool.output_schema.__pydantic_core_schema__))
            msg = f"structuredContent does not match the output schema (fields: {fields})"
            raise OutputSchemaError(msg) from None
    return response


def _kwargs(
    action: Action, params: BaseModel | None, ctx: Any, names: tuple[str, ...]
) -> dict[str, Any]:
    """The handler's keyword arguments: ``ctx`` and the validated parameters.

    ``names`` are the parameters a signature-typed handler receives
    (:func:`_parameter_names`).
    """
    kwargs: dict[str, Any] = {}
    if action.takes_ctx:
        kwargs["ctx"] = ctx
    if params is not None:
        if action.params is not None:
            if action.model_param is not None:
                kwargs[action.model_param] = params
        else:
            for name in names:
                kwargs[name] = getattr(params, name)
    return kwargs


def _parameter_names(tool: Tool, action: Action) -> tuple[str, ...]:
    """The fields a signature-typed handler receives: its own, or all (``**kwargs``)."""
    if action.params is not None:
        return ()
    model = tool.arguments_model(action) if action.takes_kwargs else action.fields_model
    return tuple(model.model_fields)


def _state(tool: Tool) -> tuple[object, ...]:
    """What a tool's definition and dispatch depend on, read in O(1).

    Adding an action or a group, ``enable_select()``, ``toon_description()``,
    ``with_output_schema()`` or a new description changes it, so a tool
    changed after it was first served is served as it is now.
    """
    return (
        len(tool._actions),
        len(tool._groups),
        tool._toon,
        tool._select,  # the flag: select_enabled also reads every Presenter (O(actions))
        tool.output_schema,
        tool.description,
        tool.instructions,
        tool.common,
        tool.discriminator,
        tuple(tool._middleware),
        tuple((name, tuple(chain)) for name, chain in tool._group_middleware.items()),
        tuple(tool._merged_middleware.items()),
    )


def non_finite(schema: dict[str, Any], args: dict[str, Any]) -> list[tuple[str, str]]:
    """One problem per ``NaN`` / ``±Infinity`` sent for a number (the reference refuses them)."""
    return [
        (path, f"Input should be a finite number. You sent: {sent(value)}.")
        for path, value in non_finite_numbers(schema, args)
    ]


def _in_schema_order(
    problems: list[tuple[str, str]], schema: dict[str, Any]
) -> list[tuple[str, str]]:
    """Problems in the order of their top-level parameter (stable), unknown keys last."""
    order = {key: index for index, key in enumerate(schema.get("properties", {}))}
    first: dict[str, str] = {}
    for name, message in problems:  # one problem per path: pydantic's, when it has one
        first.setdefault(name, message)
    unique = list(first.items())
    return sorted(
        unique, key=lambda p: (p[0] == ROOT, order.get(p[0].split(".", 1)[0], len(order)))
    )


@dataclass(slots=True)
class _Served:
    """What the pipeline reads of one tool on every call, computed once."""

    state: tuple[object, ...]
    tool: Tool
    actions: dict[str, Action]
    keys: tuple[str, ...]
    select_keys: list[str]
    is_async: dict[str, bool]
    names: dict[str, tuple[str, ...]]
    middleware: dict[str, tuple[Middleware, ...]]
    _definition: dict[str, Any] | None = field(default=None)
    _input_schema: dict[str, Any] | None = field(default=None)

    @classmethod
    def of(cls, tool: Tool, state: tuple[object, ...]) -> _Served:
        actions = tool.actions
        return cls(
            state=state,
            tool=tool,
            actions=actions,
            keys=tuple(actions),
            select_keys=tool.select_keys() if tool.select_enabled else [],
            is_async={key: _is_async(action.handler) for key, action in actions.items()},
            names={key: _parameter_names(tool, action) for key, action in actions.items()},
            middleware={key: tool.middleware_of(key) for key in actions},
        )

    def definition(self) -> dict[str, Any]:
        """The tool's MCP definition, generated on first use (pydantic schemas are slow)."""
        if self._definition is None:
            self._definition = self.tool.definition()
        return self._definition

    def input_schema(self) -> dict[str, Any]:
        """The tool's input schema alone (a call needs it even if the definition cannot leave)."""
        if self._input_schema is None:
            self._input_schema = (
                self._definition["inputSchema"]
                if self._definition is not None
                else self.tool.input_schema()
            )
        return self._input_schema


def _is_async(handler: Callable[..., Any]) -> bool:
    """Whether calling ``handler`` makes a coroutine (functions, partials, callables)."""
    return inspect.iscoroutinefunction(handler) or inspect.iscoroutinefunction(
        getattr(handler, "__call__", None)  # noqa: B004 - an object's async __call__
    )
