"""Who may talk to an HTTP server: Host/Origin checks and an optional bearer token.

The security model (``docs/serving.md`` says the same for users):

- **Loopback binds** (``127.0.0.0/8`` in any spelling — ``127.0.0.2``,
  ``127.1``, ``2130706433`` — ``::1`` in any spelling, an IPv4-mapped
  ``::ffff:127.x.y.z``, ``localhost``) are reachable only from this machine,
  but a web page can still reach them through DNS rebinding: a name the
  attacker controls resolves to the loopback address, and the browser sends
  the attacker's name as ``Host``. So every loopback bind checks ``Host``
  (the bind address itself, ``localhost``, ``127.0.0.1``, ``[::1]``, plus any
  ``--allowed-host``) and, when a browser sends one, ``Origin`` (the same names
  over http/https, plus any ``--allowed-origin``). The SDK answers a bad Host
  with 421 and a bad Origin with 403.
- **Other binds** (``0.0.0.0``, a LAN address) are reachable by whoever can
  route to them, under names the server cannot guess: Host/Origin checks are
  on only when ``--allowed-host`` names them. Such a server should require a
  bearer token.
- **Bearer token**: read from an environment variable (``FUSION_SERVE_TOKEN``
  by default), never from the command line, where any user of the machine
  can read it in the process list. With a token, every HTTP request without
  ``Authorization: Bearer <token>`` gets 401, compared in constant time.

Addresses are read with :mod:`ipaddress` (IPv4 shorthand through
``socket.inet_aton``, as the resolver reads it), never by string matching.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import socket
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = [
    "TOKEN_ENV",
    "BearerTokenMiddleware",
    "bare_host",
    "is_loopback",
    "token_from_env",
    "transport_security",
]

TOKEN_ENV: Final = "FUSION_SERVE_TOKEN"  # noqa: S105 - a variable name, not a token
"""The environment variable holding the bearer token, unless told otherwise."""

_LOOPBACK_NAMES: Final = ("localhost", "127.0.0.1", "[::1]")

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def bare_host(host: str) -> str:
    """``host`` without the brackets of an IPv6 literal (``[::1]`` -> ``::1``)."""
    if host.startswith("[") and host.endswith("]"):
        return host[1:-1]
    return host


def _address(host: str) -> Address | None:
    """The IP address ``host`` spells, in any form the resolver accepts, else ``None``."""
    bare = bare_host(host)
    try:
        return ipaddress.ip_address(bare)
    except ValueError:
        pass
    if ":" in bare or not bare:
        return None
    try:  # IPv4 shorthand: 127.1, 2130706433, 0x7f.1 (what inet_aton and bind accept)
        return ipaddress.IPv4Address(socket.inet_aton(bare))
    except OSError:
        return None


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` listens on a loopback interface only."""
    name = bare_host(host).rstrip(".").lower()
    if name == "localhost":
        return True
    address = _address(host)
    if address is None:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback
    return address.is_loopback


def _spellings(host: str) -> list[str]:
    """How a client writes ``host`` in a Host header: as given and canonical, IPv6 bracketed."""
    address = _address(host)
    if address is None:
        return [host]
    if address.version == 6:
        return [f"[{bare_host(host)}]", f"[{address}]"]
    return [host, str(address)]


def _names_port(value: str) -> bool:
    """Whether a Host value (``h``, ``h:80``, ``[::1]:80``) or origin names a port."""
    host = value.split("://", 1)[-1]
    if host.startswith("["):
        return "]:" in host
    return ":" in host


def _with_any_port(values: Iterable[str]) -> list[str]:
    """Each value as given, plus ``value:*`` (the SDK's any-port pattern) when it names no port."""
    patterns: list[str] = []
    for value in values:
        patterns.append(value)
        if not _names_port(value) and not value.endswith("*"):
            patterns.append(f"{value}:*")
    return list(dict.fromkeys(patterns))


def _origin_patterns(hosts: Iterable[str]) -> list[str]:
    """``http://`` and ``https://`` origins of each Host pattern, any port."""
    return _with_any_port(
        f"{scheme}://{host}"
        for host in hosts
        if not _names_port(host)
        for scheme in ("http", "https")
    )


def transport_security(
    host: str, allowed_hosts: Sequence[str] = (), allowed_origins: Sequence[str] = ()
) -> TransportSecuritySettings:
    """The SDK's Host/Origin settings for a server bound to ``host`` (see the module docstring)."""
    from mcp.server.transport_security import (  # noqa: PLC0415 - mcp costs ~1 s to import
        TransportSecuritySettings,
    )

    if is_loopback(host):
        hosts = [*_spellings(host), *_LOOPBACK_NAMES, *allowed_hosts]
    elif allowed_hosts:
        hosts = list(allowed_hosts)
    else:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    origins = [*_origin_patterns(hosts), *_with_any_port(allowed_origins)]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=_with_any_port(dict.fromkeys(hosts)),
        allowed_origins=list(dict.fromkeys(origins)),
    )


def token_from_env(variable: str = TOKEN_ENV, *, required: bool = False) -> str | None:
    """The bearer token in environment variable ``variable`` (``None`` when unset).

    Raises ``ValueError`` when the variable is set but blank (a token that
    protects nothing), or unset while ``required``.
    """
    value = os.environ.get(variable)
    if value is None:
        if required:
            msg = f"environment variable {variable} is not set (it must hold the bearer token)"
            raise ValueError(msg)
        return None
    token = value.strip()
    if not token:
        msg = f"environment variable {variable} is set but blank: set a token or unset it"
        raise ValueError(msg)
    return token


class BearerTokenMiddleware:
    """ASGI middleware: HTTP requests must carry ``Authorization: Bearer <token>``."""

    __slots__ = ("_app", "_expected")

    def __init__(self, app: ASGIApp, token: str) -> None:
        if not token:
            msg = "the bearer token must not be empty"
            raise ValueError(msg)
        self._app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse an HTTP request without the token with 401; pass everything else on."""
        if scope["type"] == "http" and not self._authorized(scope):
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [
                        (b"content-type", b"text/plain; charset=utf-8"),
                        (b"www-authenticate", b'Bearer realm="mcp"'),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": b"missing or wrong bearer token"})
            return
        await self._app(scope, receive, send)

    def _authorized(self, scope: Scope) -> bool:
        values = [value for key, value in scope.get("headers", ()) if key == b"authorization"]
        return len(values) == 1 and hmac.compare_digest(values[0], self._expected)
