"""The client for synchronous code: an anyio blocking portal runs the event loop in a thread.

:class:`BlockingFusionClient` keeps one connection open across calls, for
plain scripts, the command line and pytest; every call is the async
:class:`~fusion_core.FusionClient`'s, so both answer the same.
"""

from __future__ import annotations

import concurrent.futures
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Self, TextIO, final

from fusion_core._mcp._client import DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT, FusionClient
from fusion_core._read._parse import parse

if TYPE_CHECKING:
    from contextlib import AbstractContextManager
    from types import TracebackType

    from anyio.from_thread import BlockingPortal
    from mcp.server.lowlevel import Server
    from mcp_types import CallToolResult

    from fusion_core._mcp._frameworks import ServerSource
    from fusion_core._mcp._server import ToolApp
    from fusion_core._read._parsed_blocks import ParsedResponse

__all__ = ["BlockingFusionClient"]


@final
class BlockingFusionClient:
    """:class:`FusionClient` for synchronous code: one connection, many calls.

    ::

        with BlockingFusionClient.stdio("python -m billing.server") as client:
            result = client.call("invoices", {"action": "list"})

    The event loop runs in a helper thread (an anyio blocking portal) for as
    long as the ``with`` block; closing it closes the connection and stops
    the server process it started.
    """

    __slots__ = ("_client", "_client_cm", "_portal", "_portal_cm")

    def __init__(self, client: FusionClient) -> None:
        self._client = client
        self._portal_cm: AbstractContextManager[BlockingPortal] | None = None
        self._portal: BlockingPortal | None = None
        self._client_cm: AbstractContextManager[FusionClient] | None = None

    @classmethod
    def stdio(
        cls,
        command: str | Sequence[str],
        *,
        cwd: str | Path | None = None,
        env: Mapping[str, str] | None = None,
        errlog: TextIO | None = None,
        mode: str = "auto",
        timeout: float | None = DEFAULT_TIMEOUT,
        max_response_bytes: int | None = DEFAULT_MAX_RESPONSE_BYTES,
    ) -> BlockingFusionClient:
        """See :meth:`FusionClient.stdio`."""
        return cls(
            FusionClient.stdio(
                command,
                cwd=cwd,
                env=env,
                errlog=errlog,
                mode=mode,
                timeout=timeout,
                max_response_bytes=max_response_bytes,
            )
        )

    @classmethod
    def http(
        cls,
        url: str,
        *,
        mode: str = "auto",
        timeout: float | None = DEFAULT_TIMEOUT,
        max_response_bytes: int | None = DEFAULT_MAX_RESPONSE_BYTES,
    ) -> BlockingFusionClient:
        """See :meth:`FusionClient.http`."""
        return cls(
            FusionClient.http(
                url, mode=mode, timeout=timeout, max_response_bytes=max_response_bytes
            )
        )

    @classmethod
    def in_memory(
        cls,
        server: ToolApp | Server[Any] | ServerSource | object,
        *,
        mode: str = "auto",
        timeout: float | None = DEFAULT_TIMEOUT,
        max_response_bytes: int | None = DEFAULT_MAX_RESPONSE_BYTES,
    ) -> BlockingFusionClient:
        """See :meth:`FusionClient.in_memory`."""
        return cls(
            FusionClient.in_memory(
                server, mode=mode, timeout=timeout, max_response_bytes=max_response_bytes
            )
        )

    def __enter__(self) -> Self:
        from anyio.from_thread import start_blocking_portal  # noqa: PLC0415

        if self._portal_cm is not None:
            msg = "this BlockingFusionClient is already open"
            raise RuntimeError(msg)
        portal_cm = start_blocking_portal()
        portal = portal_cm.__enter__()
        try:
            client_cm = portal.wrap_async_context_manager(self._client)
            client_cm.__enter__()
        except BaseException:
            portal_cm.__exit__(*sys.exc_info())
            raise
        self._portal_cm, self._portal, self._client_cm = portal_cm, portal, client_cm
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> Literal[False]:
        portal_cm, client_cm = self._portal_cm, self._client_cm
        self._portal_cm = self._portal = self._client_cm = None
        if portal_cm is None or client_cm is None:
            return False
        try:
            client_cm.__exit__(exc_type, exc, traceback)
        except concurrent.futures.CancelledError:
            # The connection ended under the client (its calls said so), which
            # cancelled the task holding it: nothing is left to close.
            if self._client._lost is None:
                raise
        finally:
            portal_cm.__exit__(None, None, None)
        return False

    @property
    def _open_portal(self) -> BlockingPortal:
        if self._portal is None:
            msg = "the BlockingFusionClient is not open: use it in 'with'"
            raise RuntimeError(msg)
        return self._portal

    @property
    def protocol_version(self) -> str:
        """The MCP protocol version negotiated with the server."""
        self._open_portal  # noqa: B018 - raises the clear error when closed
        return self._client.protocol_version

    def list_tools(self) -> list[dict[str, Any]]:
        """See :meth:`FusionClient.list_tools`."""
        return self._open_portal.call(self._client.list_tools)

    def call(self, name: str, arguments: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """See :meth:`FusionClient.call`."""
        return self._open_portal.call(self._client.call, name, arguments)

    def call_raw(
        self, name: str, arguments: Mapping[str, Any] | None = None
    ) -> tuple[dict[str, Any], str]:
        """See :meth:`FusionClient.call_raw`."""
        answer: tuple[dict[str, Any], str] = self._open_portal.call(
            self._client.call_raw, name, arguments
        )
        return answer

    def call_parsed(self, name: str, arguments: Mapping[str, Any] | None = None) -> ParsedResponse:
        """See :meth:`FusionClient.call_parsed`."""
        return parse(self.call(name, arguments))

    def call_result(self, name: str, arguments: Mapping[str, Any] | None = None) -> CallToolResult:
        """See :meth:`FusionClient.call_result`."""
        result: CallToolResult = self._open_portal.call(self._client.call_result, name, arguments)
        return result

    def __repr__(self) -> str:
        return f"Blocking{self._client!r}"
