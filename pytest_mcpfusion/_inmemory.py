"""The in-process transport of a framework's server: ``MCPServer``, ``FastMCP``, ``Server``.

The server is reached through its framework's own in-memory client (see
``FusionClient.in_memory``), one session per isolation scope, opened on first
use and kept for the scope's calls. Server and client run on one event loop, in
the session's helper thread; an async test awaits the call without blocking
its own loop. The bytes are those the framework sends over stdio.

Isolation scopes: the user's tests share one, the contract tests have their
own, so that what the contract tests write is never what the user's tests
read. ``--fusion-isolate=test`` gives every test a fresh one. Each scope gets a
fresh server when the spec names a factory; a server instance is one server
for every scope (its state is its own: the docs show the factory).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from fusion_core import ResponseView
from pytest_mcpfusion._transport import Limits, Remote

if TYPE_CHECKING:
    from fusion_core import BlockingFusionClient, ToolApp
    from fusion_core._mcp._frameworks import ServerSource

__all__ = ["CONTRACT_SCOPE", "TESTS_SCOPE", "InMemory"]

TESTS_SCOPE: Final = "tests"
"""The isolation scope of the user's own tests."""
CONTRACT_SCOPE: Final = "contract"
"""The isolation scope of the ``--fusion`` contract tests."""
_SHARED: Final = "shared"  # the one scope of a server instance (no factory)


class InMemory:
    """Calls a framework's server through its own in-memory client, a session per scope."""

    name = "inproc"

    def __init__(self, source: ServerSource, limits: Limits, scope: str = TESTS_SCOPE) -> None:
        self.app: ToolApp | None = None  # no FusionApp: the server makes its own context
        self.source = source
        self._limits = limits
        self._scope = scope
        self._sessions: dict[str, Remote] = {}

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

    def _session(self) -> Remote:
        key = self._key
        session = self._sessions.get(key)
        if session is None:
            session = self._sessions[key] = Remote(
                self._connect, name=self.name, target=self.source.label
            )
        return session

    def _connect(self) -> BlockingFusionClient:
        from fusion_core import BlockingFusionClient  # noqa: PLC0415 - mcp loads lazily

        return BlockingFusionClient.in_memory(
            self.source.server(),
            timeout=self._limits.timeout,
            max_response_bytes=self._limits.max_response_bytes,
        )

    def definitions(self) -> list[dict[str, Any]]:
        """The server's ``tools/list``, fetched once per session."""
        return self._session().definitions()

    def call(
        self, tool: str, arguments: Mapping[str, Any], ctx: Any
    ) -> tuple[dict[str, Any], ResponseView]:
        """One ``tools/call`` through the in-memory client; the view is parsed from the bytes."""
        return self._session().call(tool, arguments, ctx)

    async def call_async(
        self, tool: str, arguments: Mapping[str, Any], ctx: Any
    ) -> tuple[dict[str, Any], ResponseView]:
        """The same, awaited from the test's own event loop (the server keeps its loop)."""
        return await self._session().call_async(tool, arguments, ctx)

    def _close(self, key: str) -> None:
        session = self._sessions.pop(key, None)
        if session is not None:
            session.close()

    def close(self) -> None:
        """Close every scope's session (and the loop thread each runs on)."""
        for key in list(self._sessions):
            self._close(key)
