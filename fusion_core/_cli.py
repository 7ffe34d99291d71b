"""The ``fusion`` command line (also ``python -m fusion_core``): look at any server from a shell.

``list``, ``call`` and ``check`` talk to a *target*: an app spec
(``pkg.module:app``, served in this process over the MCP SDK's in-memory
transport), a URL (streamable HTTP) or a command line (a stdio server, in any
language). They go through the same black-box client the pytest plugin uses,
so what they print is what an MCP host receives. ``serve`` is the server
command of ``fusion_core.__main__``, reached through here.

Exit status: 0 when all went well, 1 when ``check`` found violations or a
call or connection failed, 2 for usage errors. Output goes to stdout, errors
to stderr as one line naming what was wrong: never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import re
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TextIO

from fusion_core._terminal import safe_stderr, terminal_safe
from fusion_core._tools._definitions import action_lines, actions_of, discriminator_of
from fusion_core._write._numbers import read_json

if TYPE_CHECKING:
    from fusion_core._mcp._client import BlockingFusionClient

__all__ = ["main"]

_APP_SPEC: Final = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")

# tasks_app:app is the app of the docs' Getting started page; a test runs
# every example here that needs no other server against it.
_EXAMPLES: Final = {
    "list": """examples (tasks_app.py: the app of the docs' Getting started):
  fusion list tasks_app:app
  fusion list "python -m fusion_core serve tasks_app:app"
  fusion list http://127.0.0.1:8000/mcp""",
    "call": """examples (tasks_app.py: the app of the docs' Getting started):
  fusion call tasks_app:app tasks get task_id=1
  fusion call tasks_app:app tasks list --raw
  fusion call "node server.js" search --json '{"query": "red shoes", "limit": 3}'""",
    "check": """examples (tasks_app.py: the app of the docs' Getting started):
  fusion check tasks_app:app --call tasks list \\
      --call tasks get '{"task_id": 99}'
  fusion check "node server.js" --calls calls.json --strict

calls.json is a list of calls:
  [{"tool": "tasks", "action": "get", "arguments": {"task_id": 1}}]
("action" is optional: for tools with actions it fills the action parameter.)""",
}

_TARGET_HELP: Final = (
    "the server: an app spec MODULE:APP (e.g. billing.app:app), a URL "
    "(http://host:port/mcp) or a command line that serves MCP on stdio (quote it)"
)


class _CliError(Exception):
    """A failure to report on stderr as one line, with exit status 1."""


class _UsageError(_CliError):
    """A command line that cannot be run as given: one line on stderr, exit status 2."""


def _version() -> str:
    from fusion_core import __version__  # noqa: PLC0415 - read from the metadata on first use

    return __version__


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fusion",
        description="The Fusion wire format from a shell: serve an app, list a server's "
        "tools, call one, check a server's output. Also runs as `python -m fusion_core`.",
        epilog="Run `fusion COMMAND --help` for a command's options and examples.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser(
        "serve",
        help="serve an app over stdio (default) or streamable HTTP",
        add_help=False,
        prefix_chars="\0",
    ).add_argument("rest", nargs=argparse.REMAINDER)
    formatter = argparse.RawDescriptionHelpFormatter

    listing = commands.add_parser(
        "list",
        help="the tools and actions of an app or a server, as a table",
        description="Print every tool and action of the target as a table.",
        epilog=_EXAMPLES["list"],
        formatter_class=formatter,
    )
    listing.add_argument("target", metavar="TARGET", help=_TARGET_HELP)

    call = commands.add_parser(
        "call",
        help="call one tool (or action) and print its blocks",
        description="Call one tool and print the result block by block, as snapshots show it "
        "(--raw: the MCP wire JSON). Arguments are KEY=VALUE pairs (VALUE read as JSON when "
        "it is JSON, else as a string) or --json.",
        epilog=_EXAMPLES["call"],
        formatter_class=formatter,
    )
    call.add_argument("target", metavar="TARGET", help=_TARGET_HELP)
    call.add_argument("tool", metavar="TOOL", help="the tool's name")
    call.add_argument(
        "pairs",
        metavar="[ACTION] KEY=VALUE",
        nargs="*",
        help="the action (for tools with actions), then the arguments",
    )
    call.add_argument("--json", dest="json_args", metavar="OBJECT", help="arguments as JSON")
    call.add_argument("--raw", action="store_true", help="print the wire JSON instead")

    check = commands.add_parser(
        "check",
        help="validate a server's output for a set of calls (exit 1 on violations)",
        description="Make each call and check its result against the Fusion contract; "
        "print every violation. Exit status 0 when all are clean, 1 otherwise: for CI.",
        epilog=_EXAMPLES["check"],
        formatter_class=formatter,
    )
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
    return parser


@contextlib.contextmanager
def _connected(target: str) -> Iterator[BlockingFusionClient]:
    """A connected client for the target; a stdio server's stderr shown terminal-safe."""
    with contextlib.ExitStack() as stack:
        errlog = None
        if not _APP_SPEC.match(target) and not target.startswith(("http://", "https://")):
            errlog = stack.enter_context(safe_stderr(sys.stderr))
        yield stack.enter_context(_client(target, errlog))


def _client(target: str, errlog: TextIO | None = None) -> BlockingFusionClient:
    """A client for the target: app spec, URL, or stdio command."""
    from fusion_core._mcp._client import BlockingFusionClient  # noqa: PLC0415 - mcp is slow to import
    from fusion_core._mcp._server import load_target  # noqa: PLC0415

    if _APP_SPEC.match(target):  # an app, or a framework's server (MCPServer, FastMCP)
        return BlockingFusionClient.in_memory(load_target(target))
    if target.startswith(("http://", "https://")):
        return BlockingFusionClient.http(target)
    return BlockingFusionClient.stdio(target, errlog=errlog)


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


def _value(text: str) -> Any:
    try:
        return read_json(text)
    except json.JSONDecodeError:
        return text


def _json_value(text: str, where: str) -> Any:
    """``text`` as JSON, or a usage error naming ``where`` it came from."""
    try:
        return read_json(text)
    except json.JSONDecodeError as exc:
        msg = f"{where} is not valid JSON: {exc}"
        raise _CliError(msg) from None


def _json_object(text: str, where: str) -> dict[str, Any]:
    value = _json_value(text, where)
    if not isinstance(value, dict):
        msg = f"{where} must be a JSON object, got {type(value).__name__}"
        raise _CliError(msg)
    return value


def _arguments(
    client: BlockingFusionClient, tool: str, action: str | None, arguments: dict[str, Any]
) -> dict[str, Any]:
    """The call's arguments, with the action in the tool's discriminator parameter."""
    if action is None:
        return arguments
    definition = next((d for d in client.list_tools() if d.get("name") == tool), None)
    if definition is None:
        msg = f"the server has no tool {tool!r}"
        raise _CliError(msg)
    field = discriminator_of(definition)
    if field is None:
        msg = f"tool {tool!r} has no actions, but action {action!r} was given"
        raise _CliError(msg)
    return {field: action, **arguments}


def _list(target: str) -> int:
    with _connected(target) as client:
        print(_table(_rows(client.list_tools())))
    return 0


def _call(args: argparse.Namespace) -> int:
    from fusion_core._snapshot._format import dump_snapshot  # noqa: PLC0415

    pairs: list[str] = list(args.pairs)
    action = pairs.pop(0) if pairs and "=" not in pairs[0] else None
    arguments = _json_object(args.json_args, "--json") if args.json_args else {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or not key:
            msg = f"argument {pair!r} is not KEY=VALUE"
            raise _UsageError(msg)
        arguments[key] = _value(text)
    with _connected(args.target) as client:
        wire = client.call(args.tool, _arguments(client, args.tool, action, arguments))
    if args.raw:
        print(json.dumps(wire, ensure_ascii=False, indent=2))
    else:
        print(terminal_safe(dump_snapshot(wire).split("\n", 1)[1], multiline=True), end="")
    if wire.get("isError") is True:  # the tool failed: a script must not read it as success
        print(
            f"fusion call: {terminal_safe(args.tool)} answered with isError: true", file=sys.stderr
        )
        return 1
    return 0


def _calls(args: argparse.Namespace) -> list[tuple[str, str | None, dict[str, Any]]]:
    calls: list[tuple[str, str | None, dict[str, Any]]] = []
    for index, words in enumerate(args.calls):
        if len(words) > 3:
            msg = f"--call #{index + 1} has {len(words)} words: give TOOL [ACTION] [ARGS_JSON]"
            raise _UsageError(msg)
        tool, rest = words[0], words[1:]
        arguments = (
            _json_object(rest.pop(), f"--call #{index + 1}")
            if rest and rest[-1].startswith("{")
            else {}
        )
        calls.append((tool, rest[0] if rest else None, arguments))
    if args.calls_file is not None:
        source = sys.stdin.read() if args.calls_file == "-" else _read(args.calls_file)
        listed = _json_value(source, args.calls_file)
        if not isinstance(listed, list):
            msg = f"{args.calls_file} must hold a JSON list of calls"
            raise _CliError(msg)
        for index, entry in enumerate(listed):
            where = f"{args.calls_file}[{index}]"
            if not (isinstance(entry, dict) and isinstance(entry.get("tool"), str)):
                msg = f'{where} must be an object with a "tool" string'
                raise _CliError(msg)
            arguments = entry.get("arguments", {})
            action = entry.get("action")
            if not isinstance(arguments, dict) or not isinstance(action, str | None):
                msg = f'{where}: "arguments" must be an object and "action" a string'
                raise _CliError(msg)
            calls.append((entry["tool"], action, arguments))
    if not calls:
        msg = "no calls to check: give --call TOOL [ACTION] [ARGS_JSON] or --calls FILE"
        raise _UsageError(msg)
    return calls


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        msg = f"cannot read {path}: {exc.strerror}"
        raise _CliError(msg) from None


def _check(args: argparse.Namespace) -> int:
    from fusion_core._read._check import check  # noqa: PLC0415

    calls = _calls(args)
    failed = 0
    with _connected(args.target) as client:
        for tool, action, arguments in calls:
            label = tool if action is None else f"{tool} {action}"
            wire = client.call(tool, _arguments(client, tool, action, arguments))
            violations = check(wire, strict=args.strict)
            print(f"{'FAIL' if violations else 'ok  '}  {terminal_safe(label)}")
            for violation in violations:
                print(f"      {terminal_safe(violation)}")
            failed += bool(violations)
    print(f"{len(calls) - failed} clean, {failed} with violations")
    return 1 if failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    # App specs name modules of the current project, as with `python -m`: the
    # `fusion` script's own directory is on sys.path, the current one is not.
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    if arguments[:1] == ["serve"]:
        from fusion_core.__main__ import main as serve  # noqa: PLC0415 - the serve command's own module

        return serve(arguments)
    args = _parser().parse_args(arguments)
    from fusion_core._errors import FusionError, ServerConnectionError  # noqa: PLC0415

    # The SDK's client logs what then reaches us as an exception (a bad answer,
    # with its traceback); the one line below reports it.
    sdk_log = logging.getLogger("mcp")
    level = sdk_log.level
    sdk_log.setLevel(logging.CRITICAL)
    try:
        if args.command == "list":
            return _list(args.target)
        if args.command == "call":
            return _call(args)
        return _check(args)
    except Exception as exc:
        if not isinstance(exc, (_CliError, FusionError, OSError, ValueError, *_sdk_errors())):
            raise
        print(f"fusion {args.command}: {terminal_safe(exc)}", file=sys.stderr)
        if isinstance(exc, _UsageError):
            return 2  # as argparse's own usage errors
        # A server that cannot start is a usage error, as pytest --fusion says (4).
        return 4 if isinstance(exc, ServerConnectionError) and _starting(exc) else 1
    finally:
        sdk_log.setLevel(level)


def _sdk_errors() -> tuple[type[Exception], ...]:
    """The SDK's error for an answer it could not read (``MCPError``), once the SDK is loaded."""
    module = sys.modules.get("mcp.shared.exceptions")
    return (module.MCPError,) if module is not None else ()


def _starting(exc: BaseException) -> bool:
    """Whether ``exc`` says the server never answered (it did not start, or died starting)."""
    return str(exc).startswith("could not connect to the MCP server")
