"""The ``fusion`` command line: ``serve``, ``list``, ``call``, ``check`` and ``review``.

One argparse app, one function per command (httpx's ``_main.py`` is the
model). Also reached as ``python -m fusion_core`` and, for ``review``, as
``python -m pytest_mcpfusion review``.

``list``, ``call`` and ``check`` talk to a *target*: an app spec
(``pkg.module:app``, served in this process over the MCP SDK's in-memory
transport), a URL (streamable HTTP) or a command line (a stdio server, in any
language). They go through the same black-box client the pytest plugin uses,
so what they print is what an MCP host receives. ``serve`` serves an app;
``review`` walks through the pending snapshots (``*.wire.new``) a
``pytest --fusion-pending`` run wrote. No command imports pytest.

Exit status: 0 when all went well, 1 when ``check`` found violations, a call
or connection failed or ``review`` left snapshots pending, 2 for usage errors,
4 for a server that could not start. Output goes to stdout, errors to stderr
as one line naming what was wrong: never a traceback. A reader that goes away
(``fusion list ... | head``) ends the command quietly, with status 1.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TextIO

from fusion_core._cli._calls import (
    _CliError,
    _UsageError,
    call_arguments,
    calls_to_check,
    with_action,
)
from fusion_core._cli._parser import APP_SPEC, parser
from fusion_core._terminal import SafeLogFilter, safe_stderr, terminal_safe
from fusion_core._tools._definitions import action_lines, actions_of

if TYPE_CHECKING:
    from fusion_core._mcp._client_blocking import BlockingFusionClient

__all__ = ["main"]

_DEFAULT_HOST: Final = "127.0.0.1"
_DEFAULT_PORT: Final = 8000


# --- serve ---------------------------------------------------------------------------


def _serve(args: argparse.Namespace, usage: Callable[[str], Any]) -> int:
    """Serve an app over stdio or streamable HTTP; say on stderr what and where."""
    from fusion_core._cli._parser import HTTP_LIMITS  # noqa: PLC0415
    from fusion_core._mcp._server import AppLoadError, _server_identity, load_app  # noqa: PLC0415
    from fusion_core._mcp._server_http_guard import TOKEN_ENV, token_from_env  # noqa: PLC0415

    http_only = {
        "--host": args.host is not None,
        "--port": args.port is not None,
        "--allowed-host": bool(args.allowed_host),
        "--allowed-origin": bool(args.allowed_origin),
        "--token-env": args.token_env is not None,
        **{option: getattr(args, name) is not None for option, name in HTTP_LIMITS.items()},
    }
    given = [option for option, present in http_only.items() if present]
    if not args.http and given:
        usage(f"{', '.join(given)} need --http (stdio has no address)")
    if args.port is not None and not 0 <= args.port <= 65535:
        usage(f"--port must be between 0 and 65535, got {args.port}")
    for option, name in HTTP_LIMITS.items():
        value = getattr(args, name)
        if value is not None and not value > 0:
            usage(f"{option} must be more than 0, got {value:g}")
    token: str | None = None
    if args.http:
        try:
            token = token_from_env(args.token_env or TOKEN_ENV, required=args.token_env is not None)
        except ValueError as exc:
            usage(str(exc))
    try:
        app = load_app(args.app)
    except AppLoadError as exc:
        usage(str(exc))
    try:
        name, version = _server_identity(app, args.name)
    except ValueError as exc:
        usage(str(exc))
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    for handler in logging.getLogger().handlers:  # a log line quotes what clients sent
        handler.addFilter(SafeLogFilter())

    import anyio  # noqa: PLC0415 - only the serve path needs an event loop

    from fusion_core._mcp._server import serve_stdio  # noqa: PLC0415
    from fusion_core._mcp._server_http import serve_http  # noqa: PLC0415

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
            **{key: getattr(args, key) for key in HTTP_LIMITS.values() if getattr(args, key)},
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
    from fusion_core._mcp._server_http_guard import is_loopback  # noqa: PLC0415

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
    """Report on stderr (a stdio server's stdout belongs to the protocol)."""
    for line in lines:
        print(f"fusion_core: {line}", file=sys.stderr, flush=True)


# --- list, call, check ---------------------------------------------------------------


@contextlib.contextmanager
def _connected(target: str) -> Iterator[BlockingFusionClient]:
    """A connected client for the target; a stdio server's stderr shown terminal-safe."""
    from fusion_core._mcp._client_blocking import BlockingFusionClient  # noqa: PLC0415 - mcp is slow to import
    from fusion_core._mcp._server import load_target  # noqa: PLC0415

    with contextlib.ExitStack() as stack:
        client: BlockingFusionClient
        if APP_SPEC.match(target):  # an app, or a framework's server (MCPServer, FastMCP)
            client = BlockingFusionClient.in_memory(load_target(target))
        elif target.startswith(("http://", "https://")):
            client = BlockingFusionClient.http(target)
        else:
            errlog = stack.enter_context(safe_stderr(sys.stderr))
            client = BlockingFusionClient.stdio(target, errlog=errlog)
        yield stack.enter_context(client)


def _rows(definitions: Sequence[Mapping[str, Any]]) -> list[tuple[str, str, str]]:
    """(tool, action, description) for every tool and action; ``-`` for no action."""
    rows = []
    for definition in definitions:
        name = str(definition.get("name", ""))
        description = str(definition.get("description") or "")
        first_line = description.split("\n", 1)[0]
        actions = actions_of(definition)
        if actions == [None]:
            rows.append((name, "-", first_line))
            continue
        described = action_lines(definition)
        rows.extend((name, str(action), described.get(str(action), "")) for action in actions)
    return rows


def _table(rows: Sequence[tuple[str, str, str]]) -> str:
    header = ("TOOL", "ACTION", "DESCRIPTION")
    # A server's names and descriptions, shown (not obeyed) by the terminal.
    rows = [(terminal_safe(a), terminal_safe(b), terminal_safe(c)) for a, b, c in rows]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(2)]
    lines = [
        f"{row[0]:<{widths[0]}}  {row[1]:<{widths[1]}}  {row[2]}".rstrip()
        for row in [header, *rows]
    ]
    return "\n".join(lines)


def _list(args: argparse.Namespace) -> int:
    """Print every tool and action of the target as a table."""
    with _connected(args.target) as client:
        print(_table(_rows(client.list_tools())))
    return 0


def _call(args: argparse.Namespace) -> int:
    """Call one tool; print its blocks (``--raw``: the result as the server sent it)."""
    from fusion_core._snapshot._format import dump_snapshot  # noqa: PLC0415

    action, arguments = call_arguments(args.pairs, args.json_args)
    with _connected(args.target) as client:
        wire, raw = client.call_raw(args.tool, with_action(client, args.tool, action, arguments))
    if args.raw:
        _print_raw(raw)
    else:
        print(terminal_safe(dump_snapshot(wire).split("\n", 1)[1], multiline=True), end="")
    if wire.get("isError") is True:  # the tool failed: a script must not read it as success
        print(
            f"fusion call: {terminal_safe(args.tool)} answered with isError: true", file=sys.stderr
        )
        return 1
    return 0


def _print_raw(text: str) -> None:
    """The server's bytes to a file or pipe as they are; to a terminal shown, not obeyed."""
    out = sys.stdout
    if out.isatty():
        print(terminal_safe(text, multiline=True))
        return
    out.flush()
    out.buffer.write(text.encode("utf-8", "surrogateescape") + b"\n")


def _check(args: argparse.Namespace) -> int:
    """Make each call and check its result against the Fusion contract."""
    from fusion_core._read._check import check  # noqa: PLC0415

    calls = calls_to_check(args.calls, args.calls_file)
    failed = 0
    with _connected(args.target) as client:
        for tool, action, arguments in calls:
            label = tool if action is None else f"{tool} {action}"
            wire = client.call(tool, with_action(client, tool, action, arguments))
            violations = check(wire, strict=args.strict)
            print(f"{'FAIL' if violations else 'ok  '}  {terminal_safe(label)}")
            for violation in violations:
                print(f"      {terminal_safe(violation)}")
            failed += bool(violations)
    print(f"{len(calls) - failed} clean, {failed} with violations")
    return 1 if failed else 0


# --- review ------------------------------------------------------------------------


def _review(args: argparse.Namespace) -> int:
    """Walk through the pending snapshots: accept, reject, skip; or list, or Markdown."""
    from fusion_core._snapshot import _review as review  # noqa: PLC0415
    from fusion_core._snapshot._review_markdown import render_markdown  # noqa: PLC0415

    paths: list[Path] = args.paths or [Path()]
    missing = [path for path in paths if not path.exists()]
    if missing:
        msg = f"no such file or folder: {missing[0]}"
        raise _UsageError(msg)
    pendings = review.find_pending(paths)
    out: TextIO = sys.stdout
    if args.format == "markdown":
        if args.accept or args.reject:
            msg = "--format=markdown only shows; drop --accept/--reject"
            raise _UsageError(msg)
        out.write(render_markdown(pendings))
        return 1 if pendings else 0
    if not pendings:
        out.write("no pending wire snapshots\n")
        return 0
    if args.list:
        review.list_pending(pendings, out)
        return 1
    if args.accept or args.reject:
        tally = review.apply_to_all(pendings, accept=args.accept, out=out)
    elif review.stdin_is_terminal():
        tally = review.review_interactively(
            pendings, ask=input, out=out, color=review.use_color(out)
        )
    else:
        for pending in pendings:
            out.write("\n".join(review.render_text(pending, pending.change())) + "\n\n")
        out.write(
            f"{len(pendings)} pending; not a terminal, so nothing was decided: "
            "answer in a terminal, or pass --accept or --reject\n"
        )
        return 1
    tally.remaining = sum(pending.path.exists() for pending in pendings)
    out.write(tally.line() + "\n")
    return 1 if tally.remaining else 0


# --- the app -----------------------------------------------------------------------

_COMMANDS: Final[Mapping[str, Callable[[argparse.Namespace], int]]] = {
    "list": _list,
    "call": _call,
    "check": _check,
    "review": _review,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    # App specs name modules of the current project, as with `python -m`: the
    # `fusion` script's own directory is on sys.path, the current one is not.
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    app, subparsers = parser()
    args = app.parse_args(arguments)
    try:
        if args.command == "serve":
            return _serve(args, subparsers["serve"].error)
        return _run(args)
    except BrokenPipeError:
        return _reader_gone()


def _run(args: argparse.Namespace) -> int:
    """A command other than ``serve``, its failures as one line on stderr."""
    from fusion_core._errors import FusionError, ServerConnectionError  # noqa: PLC0415

    # The SDK's client logs what then reaches us as an exception (a bad answer,
    # with its traceback); the one line below reports it.
    sdk_log = logging.getLogger("mcp")
    level = sdk_log.level
    sdk_log.setLevel(logging.CRITICAL)
    try:
        status = _COMMANDS[args.command](args)
        sys.stdout.flush()  # a reader gone shows here, not at exit
    except BrokenPipeError:
        raise
    except Exception as exc:
        if not isinstance(exc, (_CliError, FusionError, OSError, ValueError, *_sdk_errors())):
            raise
        print(f"fusion {args.command}: {_one_error(exc)}", file=sys.stderr)
        if isinstance(exc, _UsageError):
            return 2  # as argparse's own usage errors
        # A server that cannot start is a usage error, as pytest --fusion says (4).
        return 4 if isinstance(exc, ServerConnectionError) and _starting(exc) else 1
    finally:
        sdk_log.setLevel(level)
    return status


def _one_error(exc: Exception) -> str:
    """The error as one line; a dead server's stderr tail on the lines after it."""
    text, tail = str(exc), getattr(exc, "stderr", None)
    if tail and text.endswith("\n" + tail):  # already terminal-safe, line by line
        return f"{terminal_safe(text[: -len(tail) - 1])}\n{tail}"
    return terminal_safe(text)


def _reader_gone() -> int:
    """The reader of stdout went away (``| head``): end quietly (the Python docs' recipe).

    Python flushes stdout once more at exit; pointing the descriptor at
    ``/dev/null`` keeps that flush from failing with a second error.
    """
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return 1


def _sdk_errors() -> tuple[type[Exception], ...]:
    """The SDK's error for an answer it could not read (``MCPError``), once the SDK is loaded."""
    module = sys.modules.get("mcp.shared.exceptions")
    return (module.MCPError,) if module is not None else ()


def _starting(exc: BaseException) -> bool:
    """Whether ``exc`` says the server never answered (it did not start, or died starting)."""
    return str(exc).startswith("could not connect to the MCP server")
