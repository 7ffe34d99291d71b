"""``python -m fusion_core serve pkg.module:app [--http] [--host H] [--port P]``.

Serves an app over stdio (the default: what MCP hosts launch) or over
streamable HTTP. Usage errors and app specs that do not lead to an app are
reported on stderr with exit status 2; stdout belongs to the protocol.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from functools import partial

from ._server import DEFAULT_SERVER_NAME, AppLoadError, load_app, serve_http, serve_stdio

__all__ = ["main"]

_DEFAULT_HOST = "127.0.0.1"
_DEFAULT_PORT = 8000


def _parsers() -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    """The top-level parser and its ``serve`` subparser (which reports serve's errors)."""
    parser = argparse.ArgumentParser(
        prog="python -m fusion_core",
        description="Serve a Fusion app over MCP with the official mcp SDK.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    serve = commands.add_parser(
        "serve",
        help="serve an app over stdio (default) or streamable HTTP",
        description="Serve an app over stdio (default) or streamable HTTP.",
    )
    serve.add_argument("app", metavar="MODULE:APP", help="the app to serve, e.g. billing.app:app")
    serve.add_argument("--http", action="store_true", help="serve streamable HTTP instead of stdio")
    serve.add_argument(
        "--host", help=f"HTTP interface to bind (default {_DEFAULT_HOST}; needs --http)"
    )
    serve.add_argument(
        "--port", type=int, help=f"HTTP port to bind (default {_DEFAULT_PORT}; needs --http)"
    )
    serve.add_argument(
        "--name", default=DEFAULT_SERVER_NAME, help="serverInfo name (default %(default)s)"
    )
    return parser, serve


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    parser, serve = _parsers()
    args = parser.parse_args(argv)
    if not args.http and (args.host is not None or args.port is not None):
        serve.error("--host and --port need --http (stdio has no address)")
    if args.port is not None and not 0 <= args.port <= 65535:
        serve.error(f"--port must be between 0 and 65535, got {args.port}")
    try:
        app = load_app(args.app)
    except AppLoadError as exc:
        serve.error(str(exc))
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)

    import anyio  # noqa: PLC0415 - only the serve path needs an event loop

    if args.http:
        runner = partial(
            serve_http,
            app,
            host=args.host or _DEFAULT_HOST,
            port=_DEFAULT_PORT if args.port is None else args.port,
            name=args.name,
        )
    else:
        runner = partial(serve_stdio, app, name=args.name)
    try:
        anyio.run(runner)
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    # The whole command line (list, call, check, --version; serve comes back here).
    from ._cli import main as cli

    sys.exit(cli())
