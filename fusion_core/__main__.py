"""``python -m fusion_core serve pkg.module:app [--http] [--host H] [--port P]``.

Serves an app over stdio (the default: what MCP hosts launch) or over
streamable HTTP, and says on stderr what it serves and where. Usage errors and
app specs that do not lead to an app are reported on stderr with exit status
2; stdout belongs to the protocol.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from fusion_core._mcp._server import (
    AppLoadError,
    _server_identity,
    load_app,
    serve_stdio,
)
from fusion_core._mcp._server_http import serve_http
from fusion_core._mcp._server_http_guard import TOKEN_ENV, is_loopback, token_from_env
from fusion_core._mcp._server_http_limits import (
    DEFAULT_BODY_TIMEOUT,
    DEFAULT_HEADER_TIMEOUT,
    DEFAULT_SHUTDOWN_TIMEOUT,
)
from fusion_core._terminal import SafeLogFilter

__all__ = ["main"]

_DEFAULT_HOST = "127.0.0.1"
# The options bounding what one client may hold, and serve_http's parameters.
_HTTP_LIMITS = {
    "--header-timeout": "header_timeout",
    "--body-timeout": "body_timeout",
    "--max-connections": "max_connections",
    "--shutdown-timeout": "shutdown_timeout",
}
_DEFAULT_PORT = 8000
_EXAMPLES = """\
examples (tasks_app.py: the app of the docs' Getting started):
  fusion serve tasks_app:app
  python -m fusion_core serve tasks_app:app --http --port 9000
  FUSION_SERVE_TOKEN=s3cret python -m fusion_core serve pkg.app:app --http \\
      --host 0.0.0.0 --allowed-host mcp.example.com
"""


def _parsers() -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    """The top-level parser and its ``serve`` subparser (which reports serve's errors)."""
    parser = argparse.ArgumentParser(
        prog="fusion",  # the same command line as `fusion` (_cli), whichever way it starts
        description="Serve a Fusion app over MCP with the official mcp SDK.",
        allow_abbrev=False,
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    serve = commands.add_parser(
        "serve",
        help="serve an app over stdio (default) or streamable HTTP",
        description="Serve an app over stdio (default) or streamable HTTP.",
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        # No abbreviations: "--token SECRET" must be refused, not read as --token-env.
        allow_abbrev=False,
    )
    serve.add_argument("app", metavar="MODULE:APP", help="the app to serve, e.g. billing.app:app")
    serve.add_argument("--http", action="store_true", help="serve streamable HTTP instead of stdio")
    serve.add_argument(
        "--host", help=f"HTTP interface to bind (default {_DEFAULT_HOST}; needs --http)"
    )
    serve.add_argument(
        "--port",
        type=int,
        help=f"HTTP port to bind, 0 for any free port (default {_DEFAULT_PORT}; needs --http)",
    )
    serve.add_argument("--name", help="serverInfo name (default: the app's name)")
    serve.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="HOST",
        help="a Host header to accept besides loopback names, e.g. mcp.example.com or "
        "mcp.example.com:443 (repeatable; turns Host/Origin checks on for non-loopback binds)",
    )
    serve.add_argument(
        "--allowed-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="a browser Origin to accept, e.g. https://app.example.com (repeatable)",
    )
    serve.add_argument(
        "--header-timeout",
        type=float,
        metavar="SECONDS",
        help="close a connection whose request headers take longer "
        f"(default {DEFAULT_HEADER_TIMEOUT:g})",
    )
    serve.add_argument(
        "--body-timeout",
        type=float,
        metavar="SECONDS",
        help="close a connection whose request body takes longer "
        f"(default {DEFAULT_BODY_TIMEOUT:g})",
    )
    serve.add_argument(
        "--max-connections",
        type=int,
        metavar="N",
        help="open connections at most (default 1000, fewer when the file limit leaves less)",
    )
    serve.add_argument(
        "--shutdown-timeout",
        type=float,
        metavar="SECONDS",
        help="on SIGTERM, how long running requests may finish "
        f"(default {DEFAULT_SHUTDOWN_TIMEOUT:g})",
    )
    serve.add_argument(
        "--token-env",
        metavar="VAR",
        help=f"require 'Authorization: Bearer <token>', the token read from environment "
        f"variable VAR (default: {TOKEN_ENV}, when set); never pass a token on the command line",
    )
    return parser, serve


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    parser, serve = _parsers()
    args = parser.parse_args(argv)
    http_only = {
        "--host": args.host is not None,
        "--port": args.port is not None,
        "--allowed-host": bool(args.allowed_host),
        "--allowed-origin": bool(args.allowed_origin),
        "--token-env": args.token_env is not None,
        **{option: getattr(args, name) is not None for option, name in _HTTP_LIMITS.items()},
    }
    given = [option for option, present in http_only.items() if present]
    if not args.http and given:
        serve.error(f"{', '.join(given)} need --http (stdio has no address)")
    if args.port is not None and not 0 <= args.port <= 65535:
        serve.error(f"--port must be between 0 and 65535, got {args.port}")
    for option, name in _HTTP_LIMITS.items():
        value = getattr(args, name)
        if value is not None and not value > 0:
            serve.error(f"{option} must be more than 0, got {value:g}")
    token: str | None = None
    if args.http:
        try:
            token = token_from_env(args.token_env or TOKEN_ENV, required=args.token_env is not None)
        except ValueError as exc:
            serve.error(str(exc))
    try:
        app = load_app(args.app)
    except AppLoadError as exc:
        serve.error(str(exc))
    try:
        name, version = _server_identity(app, args.name)
    except ValueError as exc:
        serve.error(str(exc))
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    for handler in logging.getLogger().handlers:  # a log line quotes what clients sent
        handler.addFilter(SafeLogFilter())

    import anyio  # noqa: PLC0415 - only the serve path needs an event loop

    runner: Callable[[], Any]
    if args.http:
        host = args.host or _DEFAULT_HOST
        notes = _http_notes(host, args.allowed_host, token, args.token_env or TOKEN_ENV)
        runner = partial(
            serve_http,
            app,
            host=host,
            port=_DEFAULT_PORT if args.port is None else args.port,
            name=name,
            version=version,
            allowed_hosts=args.allowed_host,
            allowed_origins=args.allowed_origin,
            bearer_token=token,
            **{name: getattr(args, name) for name in _HTTP_LIMITS.values() if getattr(args, name)},
            on_listening=lambda url: _say(
                f"serving {name} {version} over streamable HTTP at {url}", *notes
            ),
        )
    else:
        _say(f"serving {name} {version} over stdio (MCP on stdin/stdout)")
        runner = partial(serve_stdio, app, name=name, version=version)
    try:
        anyio.run(runner)
    except KeyboardInterrupt:
        return 130
    return 0


def _http_notes(host: str, allowed_hosts: list[str], token: str | None, variable: str) -> list[str]:
    """What protects an HTTP server, as lines for stderr (warnings when nothing does)."""
    notes: list[str] = []
    if is_loopback(host) or allowed_hosts:
        notes.append("Host and Origin headers are checked (DNS-rebinding protection)")
    else:
        notes.append(
            f"warning: {host} is not loopback and no --allowed-host was given: "
            "Host and Origin headers are not checked"
        )
    if token is not None:
        notes.append(f"every request needs 'Authorization: Bearer' with the token in {variable}")
    elif not is_loopback(host):
        notes.append(
            f"warning: no bearer token ({variable} is unset): anyone who can reach "
            f"{host} can call every tool"
        )
    return notes


def _say(*lines: str) -> None:
    """Report on stderr (stdout belongs to the protocol)."""
    for line in lines:
        print(f"fusion_core: {line}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    # The whole command line (list, call, check, --version; serve comes back here).
    from fusion_core._cli import main as cli

    sys.exit(cli())
