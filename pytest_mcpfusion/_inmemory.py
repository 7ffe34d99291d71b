"""The in-process transport of a framework's server: ``MCPServer``, ``FastMCP``, ``Server``.

The server is reached through the ``mcp`` SDK's in-memory client (a FastMCP
server on the SDK ``Server`` it is built on: see ``FusionClient.in_memory``),
one session per isolation scope, opened on first
use and kept for the scope's calls. Server and client run on one private
event loop, which each call runs in the calling thread until its answer is
there (no thread hand-off per call: a portal thread cost more than the call);
an async test's call runs that loop in a worker thread, so the test's own loop
is not blocked. The bytes are those the framework sends over stdio.

Isolation scopes: the user's tests share one, the contract tests have their
own, so that what the contract tests write is never what the user's tests
read. ``--fusion-isolate=test`` gives every test a fresh one. Each scope gets a
fresh server when the spec names a factory; a server instance is one server
for every scope (its state is its own: the docs show the factory).

The contract tests' calls to a FastMCP server leave out FastMCP's warning for
the arguments it refused (the gate refuses some on purpose, and rendering each
warning cost as much as the call); the user's tests log as FastMCP does.

Such a server's tools get their framework's own context, never the plugin's:
a ``fusion_context`` (the fixture, the hook, ``context=``, ``merge_context=``)
given for one fails the test saying so (:meth:`InMemory.context_refusal`),
rather than being dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, TypeVar

import pytest

from fusion_core import ResponseView, ServerConnectionError, ServerLimitError
from pytest_mcpfusion._transport import CONTRACT_SCOPE, TESTS_SCOPE, Limits, StartupError
from pytest_mcpfusion._watchdog import Watchdog, watch_call

if TYPE_CHECKING:
    from fusion_core import FusionClient, ToolApp
    from fusion_core._mcp._frameworks import ServerSource

_T = TypeVar("_T")

__all__ = ["CONTRACT_SCOPE", "TESTS_SCOPE", "InMemory"]

_SHARED: Final = "shared"  # the one scope of a server instance (no factory)
_PAGES: Final = {"FastMCP": "docs/fastmcp.md"}  # the state section of the kind's page


class InMemory:
    """Calls a framework's server through the SDK's in-memory client, a session per scope."""

    name = "inproc"

    def __init__(self, source: ServerSource, limits: Limits, scope: str = TESTS_SCOPE) -> None:
        self.app: ToolApp | None = None  # no FusionApp: the server makes its own context
        self.source = source
        self._limits = limits
        self._scope = scope
        self._sessions: dict[str, _Session] = {}
        self._watchdog = Watchdog.of(limits.stalled)

    @property
    def target(self) -> Any:
        """What the spec or the fixture named: the server, or its factory."""
        return self.source.target

    def enter_scope(self, scope: str, *, fresh: bool) -> None:
        """The scope the next calls belong to; ``fresh`` drops its session (and server)."""
        self._scope = scope
        if fresh:
            self._close(self._key)

    @property
    def _key(self) -> str:
        return self._scope if self.source.factory else _SHARED

    def _session(self) -> _Session:
        key = self._key
        session = self._sessions.get(key)
        if session is None:
            session = self._sessions[key] = _Session(self._connect, self.source.label)
        return session

    def _connect(self) -> FusionClient:
        from fusion_core import FusionClient  # noqa: PLC0415 - mcp loads lazily

        return FusionClient.in_memory(
            self.source.server(),
            timeout=self._limits.timeout,
            max_response_bytes=self._limits.max_response_bytes,
        )

    def definitions(self) -> list[dict[str, Any]]:
        """The server's ``tools/list``, fetched once per session."""
        return self._guarded(lambda session: session.definitions())

    def context_refusal(self, what: str) -> str:
        """Why ``what`` (a context for the tools) cannot be used, and what to do instead."""
        page = _PAGES.get(self.source.kind, "docs/mcpserver.md")
        return (
            f"{what} cannot reach {self.source.label}, a server on {self.source.kind}: its "
            "tools get the framework's own context, not the plugin's. Give the server its state "
            "another way: a factory (a fresh server per isolation scope), its own tools, or a "
            f"pytest_fusion_reset hook ({page}, 'State'); or return None from the "
            "fusion_context fixture or the pytest_fusion_context hook"
        )

    def call(
        self, tool: str, arguments: Mapping[str, Any], ctx: Any
    ) -> tuple[dict[str, Any], ResponseView | None]:
        """One ``tools/call`` through the in-memory client.

        The view is left to :class:`~pytest_mcpfusion.FusionResult`, which reads
        it from the bytes when first asked (``None`` here): reading it was a
        tenth of a call that a test checking only the wire never needed.
        """
        if ctx is not None:  # the framework makes its own context: never dropped unseen
            what = f"the fusion_context ({type(ctx).__qualname__})"
            pytest.fail(self.context_refusal(what), pytrace=False)
        quiet: contextlib.AbstractContextManager[None] = contextlib.nullcontext()
        if self._scope == CONTRACT_SCOPE and self.source.kind == "FastMCP":
            from fusion_core._mcp._upstream_fastmcp import (  # noqa: PLC0415 - FastMCP's only
                refused_arguments_unlogged,
            )

            # The gate refuses arguments on purpose: FastMCP's warning for each
            # (rendered by its rich handler, as long as the call itself) says
            # nothing the contract test's verdict does not. Only the contract
            # scope's calls: the user's own tests log exactly as FastMCP does.
            quiet = refused_arguments_unlogged()
        # A sync tool's worker thread, or an async tool holding the loop, is waited for: watched.
        watched = watch_call(self._watchdog, self._limits.timeout, tool, arguments)
        with quiet, watched:
            return self._guarded(lambda session: session.call(tool, arguments)), None

    async def call_async(
        self, tool: str, arguments: Mapping[str, Any], ctx: Any
    ) -> tuple[dict[str, Any], ResponseView | None]:
        """The same, from an async test: the session's loop runs in a worker thread."""
        import anyio.to_thread  # noqa: PLC0415 - lazy

        return await anyio.to_thread.run_sync(self.call, tool, arguments, ctx)

    def _guarded(self, request: Callable[[_Session], _T]) -> _T:
        """Run ``request``; after a limit or a lost connection the next call opens a new session."""
        session = self._session()
        try:
            return request(session)
        except (ServerLimitError, ServerConnectionError):
            self._close(self._key)
            raise

    def _close(self, key: str) -> None:
        session = self._sessions.pop(key, None)
        if session is not None:
            session.close()

    def close(self) -> None:
        """Close every scope's session (and the loop thread each runs on), stop the watchdog."""
        for key in list(self._sessions):
            self._close(key)
        if self._watchdog is not None:
            self._watchdog.close()


class _Session:
    """One connected client on a private event loop, run by whichever thread calls.

    A holder task enters the client (and so the framework's session and
    lifespan) and waits for :meth:`close`; each request runs the loop until
    its own answer. A lock keeps two threads from running the loop at once.
    """

    def __init__(self, connect: Callable[[], FusionClient], label: str) -> None:
        self._loop = asyncio.new_event_loop()
        self._lock = threading.Lock()
        self._client = connect()
        self._stop: asyncio.Event | None = None
        self._definitions: list[dict[str, Any]] | None = None
        started: asyncio.Future[None] = self._loop.create_future()
        self._holder = self._loop.create_task(self._hold(started))
        try:
            self._run(started)
        except Exception as exc:
            self._loop.close()
            msg = f"could not connect to {label}: {exc}"
            raise StartupError(msg) from exc

    async def _hold(self, started: asyncio.Future[None]) -> None:
        self._stop = asyncio.Event()
        try:
            async with self._client:
                started.set_result(None)
                await self._stop.wait()
        except BaseException as exc:
            if not started.done():
                started.set_exception(exc)
                return
            raise

    def _run(self, awaitable: Awaitable[_T]) -> _T:
        with self._lock:
            return self._loop.run_until_complete(awaitable)

    def definitions(self) -> list[dict[str, Any]]:
        """``tools/list``, fetched once."""
        if self._definitions is None:
            self._definitions = self._run(self._client.list_tools())
        return self._definitions

    def call(self, tool: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """One ``tools/call``: the wire dict as the framework sent it."""
        return self._run(self._client.call(tool, dict(arguments)))

    def close(self) -> None:
        """Leave the client (the framework's session and lifespan end), then close the loop."""
        if self._loop.is_closed():
            return
        try:
            if self._stop is not None:
                self._stop.set()
            # A session whose connection already failed said so on the call that
            # saw it; leaving it cannot fail the test session a second time.
            with contextlib.suppress(Exception):
                self._run(self._holder)
            self._run(self._loop.shutdown_asyncgens())
        finally:
            self._loop.close()
