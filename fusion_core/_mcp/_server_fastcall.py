"""``tools/call`` over stdio answered beside the SDK's dispatcher, with the same bytes.

On a stdio session the SDK hands every request through a relay task and a
memory stream to its dispatcher, which spawns a task, builds a request
context and a session, runs the middleware chain, validates the request's
params twice and the result once, and writes the answer: some 200 µs of a
served call's CPU, three times what ``app.call`` itself costs. For the one
request a host sends over and over, :class:`FastCalls` does what the SDK
does for it, in the reader's order, and nothing else:

- the request's params are validated by the same two SDK validators (the
  protocol version's surface, then ``CallToolRequestParams``) and the
  result is validated and sieved by the SDK's ``serialize_server_result``
  for the negotiated version, and the answer is the SDK's own
  ``JSONRPCResponse`` dump: the bytes on the wire are the SDK path's;
- a handler runs in a task of its own, so reading goes on while it runs;
  ``notifications/cancelled`` naming it cancels it and no answer is sent
  (the SDK's ``interrupt`` mode); at the end of input the calls still
  running are cancelled and answered ``Connection closed``, as the SDK's
  dispatcher answers its own; a result the SDK would refuse is answered
  with the SDK's ``INTERNAL_ERROR`` "Handler returned an invalid result".

Everything else goes to the SDK unchanged, and so does a ``tools/call`` the
fast path is not sure of: before the ``initialize`` answer has been written
(the negotiated version is read from it), after a second ``initialize``, on
a 2026-07-28 connection, with ``_meta`` in its params (a progress token,
trace context, the log-level opt-in), with a tracer provider set (the SDK's
span is then wanted), with params either validator refuses (the SDK
answers the error), or for a server with a ``context_factory``, other
middleware or a cache hint for ``tools/call`` (:func:`fast_calls_for`).
The notification that cancels a fast call still reaches the SDK.

Checked against **mcp 2.3.0**. The SDK names used here are public
(``mcp_types`` and ``mcp.shared``'s ``__all__``); what is mirrored of the
SDK's behaviour (its dispatcher's cancellation and shutdown answers, its
runner's validation and sieve) is pinned by
``tests/fusion_core/_mcp/test_server_fastcall.py``, which serves the same
request streams both ways and compares the bytes: an SDK upgrade that
answers differently fails it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

import anyio
import anyio.abc
from mcp.shared.dispatcher import coerce_request_id
from mcp.shared.exceptions import MCPError
from mcp.shared.jsonrpc_dispatcher import (
    cancelled_request_id_from_params,
    handler_exception_to_error_data,
)
from mcp_types import (
    CONNECTION_CLOSED,
    INTERNAL_ERROR,
    CallToolRequestParams,
    ErrorData,
    JSONRPCError,
    JSONRPCMessage,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
    RequestId,
)
from mcp_types.methods import serialize_server_result, validate_client_request
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from pydantic import ValidationError

from fusion_core._mcp._server_tracing import tracing_inert

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

    from fusion_core._mcp._server_stdio import PipeWriter

__all__ = ["FastCalls", "fast_calls_for"]

logger = logging.getLogger("fusion_core.server")

CallTool = Callable[[str, Mapping[str, Any] | None], Awaitable[Mapping[str, Any]]]
"""Runs one tool by name and arguments and returns its wire dict (what the SDK handler returns)."""

_METHOD: Final = "tools/call"
_SHUTDOWN_WRITE_TIMEOUT: Final = 1.0  # the SDK dispatcher's bound on its shutdown answers
_CLOSED: Final = ErrorData(code=CONNECTION_CLOSED, message="Connection closed")


def _invalid_result() -> ErrorData:
    """The error the SDK answers a result its surface refuses with."""
    error = handler_exception_to_error_data(
        MCPError(code=INTERNAL_ERROR, message="Handler returned an invalid result")
    )
    assert error is not None  # an MCPError carries its ErrorData
    return error


def fast_calls_for(server: Server[Any], call: CallTool, pipe: PipeWriter) -> FastCalls | None:
    """A :class:`FastCalls` for ``server``, or ``None`` if it could answer differently.

    Only a server whose middleware is the guarded OpenTelemetry one alone
    (what :func:`~fusion_core._mcp._server.build_server` makes) and with no
    cache hint for ``tools/call`` answers exactly what the fast path writes.
    """
    layers = [type(layer).__name__ for layer in server.middleware]
    if layers not in ([], ["_SpansWhenTraced"]) or server.cache_hints.get(_METHOD) is not None:
        return None
    return FastCalls(call, pipe)


class _InFlight:
    """One fast call running: its cancel scope, and why it was cancelled, if it was."""

    __slots__ = ("cancelled", "closing", "scope", "task")

    def __init__(self) -> None:
        self.task: asyncio.Task[None] | None = None  # a reference: the loop keeps only a weak one
        self.scope = anyio.CancelScope()
        self.cancelled = False  # by the client: no answer
        self.closing = False  # at the end of input: answered "Connection closed"


class FastCalls:
    """``tools/call`` requests taken off the read stream and answered as the SDK answers them.

    ``take()`` is given every message read, in order, and says whether it
    handled it (the reader then goes on to the next line without giving it
    to the SDK); ``written()`` is given every message the SDK writes, to
    learn the negotiated protocol version from the ``initialize`` answer.
    :meth:`serve` runs while calls may be taken; :meth:`close` (at the end
    of input) cancels the calls still running, and ``serve`` returns once
    they are answered, raising what one of them raised (a write that
    failed, as it would end the SDK's dispatcher).

    Each call is an asyncio task of its own, started from the reader (a
    third of the cost of an anyio task-group task), and cancelled through
    an anyio cancel scope, as the SDK's dispatcher cancels its handlers, so
    that what the call shields stays shielded.
    """

    __slots__ = (
        "_call",
        "_closed",
        "_failure",
        "_idle",
        "_in_flight",
        "_initialize",
        "_initializes",
        "_loop",
        "_pipe",
        "_running",
        "_version",
    )

    def __init__(self, call: CallTool, pipe: PipeWriter) -> None:
        self._call = call
        self._pipe = pipe
        self._version: str | None = None  # the negotiated version, while the fast path is open
        self._initialize: RequestId | None = None  # the id of the last initialize seen
        self._initializes = 0  # how many were seen: after a second, nothing is taken
        self._in_flight: dict[RequestId, _InFlight] = {}  # by id, for the client's cancel
        self._running: set[_InFlight] = set()  # every call running, duplicate ids included
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closed = anyio.Event()
        self._idle = anyio.Event()
        self._failure: BaseException | None = None

    async def serve(self, *, task_status: anyio.abc.TaskStatus[None]) -> None:
        """Take calls until :meth:`close`; then cancel the ones running and wait for them.

        Off asyncio (trio), nothing is taken: every request goes to the SDK.
        """
        with contextlib.suppress(RuntimeError):  # no asyncio loop running
            self._loop = asyncio.get_running_loop()
        task_status.started()
        try:
            await self._closed.wait()
            self._cancel_running()
            while self._running:
                self._idle = anyio.Event()
                await self._idle.wait()
        finally:
            self.close()
            self._cancel_running()  # serve() itself cancelled: no call outlives it
        if self._failure is not None:
            raise self._failure

    def _cancel_running(self) -> None:
        """Cancel every call running; each answers ``Connection closed`` if it can."""
        for entry in self._running:
            entry.closing = True
            entry.scope.cancel()

    def close(self) -> None:
        """The end of input: take nothing more; cancel (and answer) the calls running."""
        self._version = None
        self._closed.set()

    def written(self, message: JSONRPCMessage) -> None:
        """See a message the SDK writes: the ``initialize`` answer opens the fast path."""
        if (
            self._initialize is not None
            and isinstance(message, JSONRPCResponse)
            and message.id == self._initialize
        ):
            version = message.result.get("protocolVersion")
            if (
                version in HANDSHAKE_PROTOCOL_VERSIONS
                and self._initializes == 1
                and not self._closed.is_set()
            ):
                self._version = version

    def take(self, message: JSONRPCMessage) -> bool:
        """Whether ``message`` is a ``tools/call`` answered here (else the SDK gets it)."""
        if isinstance(message, JSONRPCNotification):
            if message.method == "notifications/cancelled":
                self._cancel(cancelled_request_id_from_params(message.params))
            return False
        if not isinstance(message, JSONRPCRequest):
            return False
        if message.method == "initialize":
            self._initializes += 1
            self._initialize = message.id
            if self._initializes > 1:  # the version may change: the SDK alone from now on
                self._version = None
            return False
        version = self._version
        params = message.params
        loop = self._loop
        if (
            version is None
            or loop is None
            or message.method != _METHOD
            or params is None
            or "_meta" in params
            or not tracing_inert(None)
        ):
            return False
        try:
            validate_client_request(_METHOD, version, params)
            typed = CallToolRequestParams.model_validate(params, by_name=False)
        except (ValidationError, KeyError, ValueError):
            return False  # the SDK answers it, with the error it makes
        entry = _InFlight()
        self._in_flight[coerce_request_id(message.id)] = (
            entry  # a duplicate id overwrites, as there
        )
        self._running.add(entry)
        entry.task = loop.create_task(self._answer(message.id, typed, version, entry))  # held
        return True

    def _cancel(self, request_id: RequestId | None) -> None:
        """The client cancelled ``request_id``: if it is a fast call, it gets no answer."""
        if request_id is None:
            return
        entry = self._in_flight.get(coerce_request_id(request_id))
        if entry is not None:
            entry.cancelled = True
            entry.scope.cancel()

    async def _answer(
        self, request_id: RequestId, params: CallToolRequestParams, version: str, entry: _InFlight
    ) -> None:
        """Run the call and write its answer, as the SDK dispatcher's ``_handle_request`` does.

        What it raises (a write that failed) is kept for :meth:`serve`, which
        then ends; the task itself ends quietly.
        """
        started = False  # an answer started is never followed by a second one
        try:
            with entry.scope:
                try:
                    result = await self._call(params.name, params.arguments)
                finally:
                    key = coerce_request_id(request_id)
                    if self._in_flight.get(key) is entry:
                        del self._in_flight[key]
                if not entry.cancelled:
                    started = True
                    await self._pipe.write(_answer_text(request_id, result, version))
            if entry.closing and not entry.cancelled and not started:
                with anyio.move_on_after(_SHUTDOWN_WRITE_TIMEOUT, shield=True):
                    await self._pipe.write(_error_text(request_id, _CLOSED))
        except Exception as exc:  # noqa: BLE001 - handed to serve(), which raises it
            self._failure = self._failure or exc
            self.close()
        finally:
            self._running.discard(entry)
            if not self._running:
                self._idle.set()


def _answer_text(request_id: RequestId, result: Mapping[str, Any], version: str) -> str:
    """The line the SDK writes for ``result``: sieved for ``version``, or its refusal."""
    try:
        dumped = serialize_server_result(_METHOD, version, dict(result))
    except ValidationError:
        logger.exception("handler for %r returned an invalid result", _METHOD)
        return _error_text(request_id, _invalid_result())
    response = JSONRPCResponse(jsonrpc="2.0", id=request_id, result=dumped)
    return response.model_dump_json(by_alias=True, exclude_unset=True) + "\n"


def _error_text(request_id: RequestId, error: ErrorData) -> str:
    """The line the SDK writes for an error answer."""
    message = JSONRPCError(jsonrpc="2.0", id=request_id, error=error)
    return message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
