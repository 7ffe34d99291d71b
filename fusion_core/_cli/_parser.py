"""The ``fusion`` command line's arguments: one parser, a subparser per command.

Each command's ``--help`` ends with examples; a test runs every example
that needs no other server against the app of the docs' Getting started.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Final

from fusion_core._mcp._server_http_limits import (
    DEFAULT_BODY_TIMEOUT,
    DEFAULT_HEADER_TIMEOUT,
    DEFAULT_SHUTDOWN_TIMEOUT,
)

__all__ = ["APP_SPEC", "HTTP_LIMITS", "parser"]

APP_SPEC: Final = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")
"""An app spec ``pkg.module:app`` (a target served in this process)."""

HTTP_LIMITS: Final = {
    "--header-timeout": "header_timeout",
    "--body-timeout": "body_timeout",
    "--max-connections": "max_connections",
    "--shutdown-timeout": "shutdown_timeout",
}
"""``serve``'s options bounding what one client may hold, and serve_http's parameters."""

_GETTING_STARTED: Final = "examples (tasks_app.py: the app of the docs' Getting started):"
# tasks_app:app is the app of the docs' Getting started page.
_EXAMPLES: Final = {
    "serve": f"""{_GETTING_STARTED}
  fusion serve tasks_app:app
  python -m fusion_core serve tasks_app:app --http --port 9000
  FUSION_SERVE_TOKEN=s3cret python -m fusion_core serve pkg.app:app --http \\
      --host 0.0.0.0 --allowed-host mcp.example.com""",
    "list": f"""{_GETTING_STARTED}
  fusion list tasks_app:app
  fusion list "python -m fusion_core serve tasks_app:app"
  fusion list http://127.0.0.1:8000/mcp""",
    "call": f"""{_GETTING_STARTED}
  fusion call tasks_app:app tasks get task_id=1
  fusion call tasks_app:app tasks list --raw
  fusion call "node server.js" search --json '{{"query": "red shoes", "limit": 3}}'""",
    "check": f"""{_GETTING_STARTED}
  fusion check tasks_app:app --call tasks list \\
      --call tasks get '{{"task_id": 99}}'
  fusion check "node server.js" --calls calls.json --strict

calls.json is a list of calls:
  [{{"tool": "tasks", "action": "get", "arguments": {{"task_id": 1}}}}]
("action" is optional: for tools with actions it fills the action parameter.)""",
    "review": """examples:
  CI=1 pytest                        # writes *.wire.new for changed snapshots
  fusion review                      # walk through them: accept, reject, skip
  fusion review tests/api            # only those below tests/api
  fusion review --list               # one line each; exit 1 if any is pending
  fusion review --accept             # accept every pending snapshot
  fusion review --reject             # delete every pending snapshot
  fusion review --format=markdown > review.md  # a PR comment
(also `python -m pytest_mcpfusion review ...`)

exit status: 0 nothing is pending (any more), 1 something is, 2 usage error""",
}

_TARGET_HELP: Final = (
    "the server: an app spec MODULE:APP (e.g. billing.app:app), a URL "
    "(http://host:port/mcp) or a command line that serves MCP on stdio (quote it)"
)
_DEFAULT_HOST: Final = "127.0.0.1"
_DEFAULT_PORT: Final = 8000


def _version() -> str:
    from fusion_core import __version__  # noqa: PLC0415 - read from the metadata on first use

    return __version__


def parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The ``fusion`` parser, and each command's subparser (which reports its usage errors)."""
    app = argparse.ArgumentParser(
        prog="fusion",
        description="The Fusion wire format from a shell: serve an app, list a server's "
        "tools, call one, check a server's output, review changed wire snapshots. "
        "Also runs as `python -m fusion_core`.",
        epilog="Run `fusion COMMAND --help` for a command's options and examples.",
        allow_abbrev=False,
    )
    app.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    commands = app.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, summary: str, description: str) -> argparse.ArgumentParser:
        return commands.add_parser(
            name,
            help=summary,
            description=description,
            epilog=_EXAMPLES[name],
            formatter_class=argparse.RawDescriptionHelpFormatter,
            # No abbreviations: "--token SECRET" must be refused, not read as --token-env.
            allow_abbrev=False,
        )

    subparsers = {
        "serve": _serve(
            command(
                "serve",
                "serve an app over stdio (default) or streamable HTTP",
                "Serve an app over stdio (default) or streamable HTTP.",
            )
        ),
        "list": command(
            "list",
            "the tools and actions of an app or a server, as a table",
            "Print every tool and action of the target as a table.",
        ),
        "call": _call(
            command(
                "call",
                "call one tool (or action) and print its blocks",
                "Call one tool and print the result block by block, as snapshots show it "
                "(--raw: the result as the server sent it). Arguments are KEY=VALUE pairs "
                "(VALUE read as JSON when it is JSON, else as a string) or --json.",
            )
        ),
        "check": _check(
            command(
                "check",
                "validate a server's output for a set of calls (exit 1 on violations)",
                "Make each call and check its result against the Fusion contract; "
                "print every violation. Exit status 0 when all are clean, 1 otherwise: for CI.",
            )
        ),
        "review": _review(
            command(
                "review",
                "review pending wire snapshots (*.wire.new): accept, reject, skip",
                "Review the pending wire snapshots (*.wire.new) a `pytest --fusion-pending` "
                "run wrote (on by default when CI is set): per test, the per-block diff and a "
                "choice to accept, reject, skip, accept all remaining, or quit.",
            )
        ),
    }
    subparsers["list"].add_argument("target", metavar="TARGET", help=_TARGET_HELP)
    return app, subparsers


def _serve(serve: argparse.ArgumentParser) -> argparse.ArgumentParser:
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
        help="require 'Authorization: Bearer <token>', the token read from environment "
        "variable VAR (default: FUSION_SERVE_TOKEN, when set); never pass a token on the "
        "command line",
    )
    return serve


def _call(call: argparse.ArgumentParser) -> argparse.ArgumentParser:
    call.add_argument("target", metavar="TARGET", help=_TARGET_HELP)
    call.add_argument("tool", metavar="TOOL", help="the tool's name")
    call.add_argument(
        "pairs",
        metavar="[ACTION] KEY=VALUE",
        nargs="*",
        help="the action (for tools with actions), then the arguments",
    )
    call.add_argument("--json", dest="json_args", metavar="OBJECT", help="arguments as JSON")
    call.add_argument(
        "--raw",
        action="store_true",
        help="print the result as the server sent it (the JSON-RPC result's bytes)",
    )
    return call


def _check(check: argparse.ArgumentParser) -> argparse.ArgumentParser:
    check.add_argument("target", metavar="TARGET", help=_TARGET_HELP)
    check.add_argument(
        "--call",
        dest="calls",
        nargs="+",
        action="append",
        default=[],
        metavar="TOOL [ACTION] [ARGS_JSON]",
        help="one call (repeatable)",
    )
    check.add_argument(
        "--calls", dest="calls_file", metavar="FILE", help="a JSON list of calls ('-': stdin)"
    )
    check.add_argument(
        "--strict", action="store_true", help="also report what the layout rule can only guess"
    )
    return check


def _review(review: argparse.ArgumentParser) -> argparse.ArgumentParser:
    review.add_argument(
        "paths",
        nargs="*",
        type=Path,
        metavar="PATHS",
        help="snapshot files or folders to search (default: the current folder)",
    )
    action = review.add_mutually_exclusive_group()
    action.add_argument("--accept", action="store_true", help="accept every pending snapshot")
    action.add_argument("--reject", action="store_true", help="reject every pending snapshot")
    action.add_argument(
        "--list", action="store_true", help="list the pending snapshots, one line each"
    )
    review.add_argument(
        "--format",
        choices=("text", "markdown"),
        default="text",
        help="markdown: print the whole review as a pull-request comment, decide nothing",
    )
    return review
