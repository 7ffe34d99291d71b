"""Serving an app over streamable HTTP: uvicorn, with the guards and limits a public server needs.

The app is served by the same SDK server as over stdio
(:func:`fusion_core._mcp._server.build_server`), so the bytes of an answer are
the same on both transports. Host/Origin checks and the bearer token are in
:mod:`fusion_core._mcp._server_http_guard`; what one client may hold (timeouts,
connections, log lines) in :mod:`fusion_core._mcp._server_http_limits`.
uvicorn and the SDK are imported inside :func:`serve_http` (each costs about a
second to import).
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable, Sequence
from typing import Any, Final

from fusion_core._mcp._server import ContextFactory, ToolApp, build_server, settle_heap
from fusion_core._mcp._server_http_limits import (
    DEFAULT_BODY_TIMEOUT,
    DEFAULT_HEADER_TIMEOUT,
    DEFAULT_LOG_LINES_PER_MINUTE,
    DEFAULT_SHUTDOWN_TIMEOUT,
)

__all__ = ["serve_http"]

# The loggers of an HTTP server: where a flood would come from, and what quotes clients.
_SERVER_LOGGERS: Final = ("asyncio", "uvicorn.error", "uvicorn.access")


async def serve_http(
    app: ToolApp,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    path: str = "/mcp",
    name: str | None = None,
    version: str | None = None,
    context_factory: ContextFactory | None = None,
    log_level: str = "warning",
    allowed_hosts: Sequence[str] = (),
    allowed_origins: Sequence[str] = (),
    bearer_token: str | None = None,
    on_listening: Callable[[str], None] | None = None,
    json_response: bool | None = None,
    header_timeout: float = DEFAULT_HEADER_TIMEOUT,
    body_timeout: float = DEFAULT_BODY_TIMEOUT,
    max_connections: int | None = None,
    shutdown_timeout: float = DEFAULT_SHUTDOWN_TIMEOUT,
    log_lines_per_minute: int = DEFAULT_LOG_LINES_PER_MINUTE,
) -> None:
    """Serve ``app`` over streamable HTTP at ``http://host:port/path`` until stopped.

    Every loopback bind (any spelling of ``127.0.0.0/8`` or ``::1``, and
    ``localhost``) checks ``Host`` and ``Origin`` against DNS rebinding;
    ``allowed_hosts`` and ``allowed_origins`` add names (and turn the checks
    on for other binds). With ``bearer_token``, every request must carry
    ``Authorization: Bearer <token>``. ``on_listening`` is called with the URL
    once the server accepts connections (``port=0`` picks a free port).
    ``json_response`` chooses how a request's answer travels: one
    ``application/json`` body, or an SSE stream that can also carry the
    messages a handler sends while it runs (progress, logs, requests to the
    client). By default (``None``) the answer is JSON unless a
    ``context_factory`` is given: without one, a handler has no way to send
    such messages, and the stream would only ever carry the answer, at about
    twice the server's CPU per call.
    Before serving, the process's heap is collected and frozen
    (``gc.freeze()``), so that full collections skip what start-up built.

    What one client may hold (``_server_http_limits``): a request's headers
    must arrive within ``header_timeout`` seconds (10) and its body within
    ``body_timeout`` more (30), or the connection is closed; at most
    ``max_connections`` are open (default 1,000, fewer when the file limit
    leaves less: at the cap the one waiting longest for its headers makes
    room, else the new one gets 503); one log message repeats at most
    ``log_lines_per_minute`` times a minute (20), and every log line is
    terminal-safe; on SIGTERM, running requests get ``shutdown_timeout``
    seconds (5) to finish.
    """
    import uvicorn  # noqa: PLC0415 - comes with mcp; as slow to import

    from fusion_core._mcp._server_http_guard import (  # noqa: PLC0415
        BearerTokenMiddleware,
        bare_host,
        transport_security,
    )
    from fusion_core._mcp._server_http_limits import (  # noqa: PLC0415 - imports uvicorn
        ACCEPT_BURST,
        RepeatFilter,
        default_max_connections,
        limited_protocol,
    )
    from fusion_core._terminal import SafeLogFilter  # noqa: PLC0415

    server = build_server(app, name=name, version=version, context_factory=context_factory)
    settle_heap()
    security = transport_security(host, allowed_hosts, allowed_origins)
    if json_response is None:
        json_response = context_factory is None
    asgi_app: Any = server.streamable_http_app(
        streamable_http_path=path,
        host=host,
        transport_security=security,
        json_response=json_response,
    )
    if bearer_token is not None:
        asgi_app = BearerTokenMiddleware(asgi_app, bearer_token)
    protocol = limited_protocol(
        header_timeout=header_timeout,
        body_timeout=body_timeout,
        max_connections=default_max_connections() if max_connections is None else max_connections,
    )
    config = uvicorn.Config(
        asgi_app,
        host=bare_host(host),
        port=port,
        log_level=log_level,
        http=protocol,
        backlog=ACCEPT_BURST,
        timeout_graceful_shutdown=shutdown_timeout,  # type: ignore[arg-type] # a float works
    )
    sock = _without_nagle(config.bind_socket())
    bound = bare_host(host)
    url = f"http://{f'[{bound}]' if ':' in bound else host}:{sock.getsockname()[1]}{path}"

    class _Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets=sockets)
            if self.started and on_listening is not None:
                on_listening(url)

    guards = [SafeLogFilter(), RepeatFilter(log_lines_per_minute)]
    loggers = [logging.getLogger(name) for name in _SERVER_LOGGERS]
    for logger in loggers:
        for guard in guards:
            logger.addFilter(guard)
    try:
        await _Server(config).serve(sockets=[sock])
    finally:
        sock.close()
        for logger in loggers:
            for guard in guards:
                logger.removeFilter(guard)


def _without_nagle(sock: socket.socket) -> socket.socket:
    """``sock`` (a bound listening socket), its connections sent without Nagle's delay.

    asyncio turns Nagle's algorithm off on every TCP connection it serves,
    but only when the socket says ``proto == IPPROTO_TCP``; uvicorn's
    ``bind_socket()`` opens its listener with ``proto`` 0, which accepted
    connections inherit, so they kept Nagle. An answer written as two
    segments (headers, then body) then waited for the client's delayed ACK:
    44 ms for every JSON answer on Linux, against 2 ms of work. The same
    descriptor is returned as a TCP socket object, and the option is also set
    on the listener, which Linux passes on to accepted connections.
    """
    if sock.family not in (socket.AF_INET, socket.AF_INET6) or sock.type != socket.SOCK_STREAM:
        return sock  # a Unix socket: no Nagle
    tcp = socket.socket(sock.family, sock.type, socket.IPPROTO_TCP, fileno=sock.detach())
    tcp.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return tcp
