"""Servers written with another framework: ``MCPServer``, ``Server``, ``FastMCP``.

The ``mcp`` SDK's ``MCPServer`` and low-level ``Server``, and the standalone
``fastmcp`` package's ``FastMCP``.

Such a server is not a :class:`~fusion_core.ToolApp` (it has no ``definitions()``
and ``call()``): it is driven through the ``mcp`` SDK's in-memory client
(``mcp.Client(server)``; for a ``FastMCP``, on the SDK ``Server`` it is built on,
which ``fastmcp.Client(server)`` drives too), so what a test sees is what the
framework sends over stdio, ``isError: false`` included.

A spec may name the server itself or a zero-argument factory of one (a
function that builds and returns it). A factory lets every isolation scope of
the pytest plugin start from a fresh server: see :class:`ServerSource`.

Neither framework is imported here: an object is recognised by the classes of
the modules already loaded (a server instance implies its framework module is).
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, final

__all__ = [
    "FRAMEWORKS",
    "ServerSource",
    "runner_of",
    "server_kind",
    "source_of",
]

FRAMEWORKS: Final = {
    "MCPServer": ("mcp.server.mcpserver", "MCPServer"),
    "FastMCP": ("fastmcp", "FastMCP"),
    "Server": ("mcp.server.lowlevel", "Server"),
}
"""The server classes driven in process, by name: (module, class)."""

_RUNNERS: Final = {
    "MCPServer": "{server}.run() (stdio; .run('streamable-http') for HTTP)",
    "FastMCP": "{server}.run() (stdio; .run(transport='http') for HTTP)",
    "Server": (
        "{server}.run(read, write, {server}.create_initialization_options()) inside "
        "mcp.server.stdio.stdio_server()"
    ),
}


def runner_of(kind: str, server: str) -> str:
    """How a ``kind`` server named ``server`` (``mcp``, a factory's ``make_server()``) runs."""
    if server.endswith("()"):  # a factory: build one server, then run it
        return f"server = {server}; " + _RUNNERS[kind].format(server="server")
    return _RUNNERS[kind].format(server=server)


def server_kind(obj: object) -> str | None:
    """``"MCPServer"``, ``"FastMCP"`` or ``"Server"`` for a framework's server, else ``None``."""
    for kind, (module_name, class_name) in FRAMEWORKS.items():
        module = sys.modules.get(module_name)
        cls = getattr(module, class_name, None) if module is not None else None
        if isinstance(cls, type) and isinstance(obj, cls):
            return kind
    return None


@final
@dataclass(frozen=True, slots=True)
class ServerSource:
    """A framework server a spec or a fixture named: the server, or its factory.

    :meth:`server` gives the server to connect to: the same instance every
    time, or a fresh one from the factory (its first product is reused once,
    so that loading a spec does not build a server for nothing).
    """

    target: Any
    """What was named: the server instance or the zero-argument factory."""
    kind: str
    """``"MCPServer"``, ``"FastMCP"`` or ``"Server"``."""
    label: str
    """How messages name it (``helpdesk.server:make_server()``)."""
    factory: bool
    """Whether :attr:`target` is a factory (each :meth:`server` call builds a new one).

    Known when the source is made: the plugin asks on every call (which
    session it belongs to), and working it out scanned the loaded modules.
    """
    _first: list[Any]

    def server(self) -> Any:
        """The server to connect to (fresh from a factory)."""
        if not self.factory:
            return self.target
        if self._first:
            return self._first.pop()
        return _built(self.target, self.label)


def _built(factory: Callable[[], Any], label: str) -> Any:
    server = factory()
    if server_kind(server) is None:
        msg = (
            f"{label} returned a {type(server).__qualname__}, not an MCPServer, a FastMCP "
            "or a low-level Server: a factory must build and return the server"
        )
        raise TypeError(msg)
    return server


def _zero_argument(obj: object) -> bool:
    """Whether ``obj`` is a function (not a class) callable with no arguments."""
    if isinstance(obj, type) or not callable(obj):
        return False
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return False
    return all(
        parameter.default is not parameter.empty
        or parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD)
        for parameter in signature.parameters.values()
    )


def source_of(obj: object, label: str) -> ServerSource | None:
    """The :class:`ServerSource` for a framework server or a zero-argument factory of one.

    ``None`` when ``obj`` is neither (a factory is called once to find out).
    A factory that raises, or returns something else, raises ``TypeError``
    naming ``label``. An ``async def`` factory is refused the same way: the
    plugin builds servers outside any event loop.
    """
    kind = server_kind(obj)
    if kind is not None:
        return ServerSource(obj, kind, label, factory=False, _first=[])
    if not _zero_argument(obj):
        return None
    if inspect.iscoroutinefunction(obj):
        msg = f"{label} is an async function: a server factory must be a plain function"
        raise TypeError(msg)
    product = obj()  # type: ignore[operator]  # callable, checked by _zero_argument
    kind = server_kind(product)
    if kind is None:
        return None
    return ServerSource(obj, kind, f"{label}()", factory=True, _first=[product])
