"""``python -m pytest_mcpfusion review``: review pending wire snapshots.

The command line only; the review itself is in ``_review`` (terminal) and
``_review_markdown``. Exit status: 0 when nothing is left pending, 1 when
something is, 2 for a usage error.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from pytest_mcpfusion._review._markdown import render_markdown
from pytest_mcpfusion._review._session import (
    apply_to_all,
    find_pending,
    list_pending,
    render_text,
    review_interactively,
    stdin_is_terminal,
    use_color,
)

__all__ = ["main"]

_EPILOG = """\
examples:
  CI=1 pytest                                   # writes *.wire.new for changed snapshots
  python -m pytest_mcpfusion review             # walk through them: accept, reject, skip
  python -m pytest_mcpfusion review tests/api   # only those below tests/api
  python -m pytest_mcpfusion review --list      # one line each; exit 1 if any is pending
  python -m pytest_mcpfusion review --accept    # accept every pending snapshot
  python -m pytest_mcpfusion review --reject    # delete every pending snapshot
  python -m pytest_mcpfusion review --format=markdown > review.md  # a PR comment

exit status: 0 nothing is pending (any more), 1 something is, 2 usage error
"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m pytest_mcpfusion",
        description="Tools of pytest-mcpfusion.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    review = commands.add_parser(
        "review",
        help="review pending wire snapshots (*.wire.new)",
        description="Review the pending wire snapshots (*.wire.new) a `pytest --fusion-pending` "
        "run wrote (on by default when CI is set): per test, the per-block diff and a choice "
        "to accept, reject, skip, accept all remaining, or quit.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    review.add_argument(
        "paths",
        nargs="*",
        type=Path,
        default=[Path()],
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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    options = _parser().parse_args(argv)
    missing = [path for path in options.paths if not path.exists()]
    if missing:
        print(f"review: no such file or folder: {missing[0]}", file=sys.stderr)
        return 2
    pendings = find_pending(options.paths)
    out = sys.stdout
    if options.format == "markdown":
        if options.accept or options.reject:
            print("review: --format=markdown only shows; drop --accept/--reject", file=sys.stderr)
            return 2
        out.write(render_markdown(pendings))
        return 1 if pendings else 0
    if not pendings:
        out.write("no pending wire snapshots\n")
        return 0
    if options.list:
        list_pending(pendings, out)
        return 1
    if options.accept or options.reject:
        tally = apply_to_all(pendings, accept=options.accept, out=out)
    elif stdin_is_terminal():
        tally = review_interactively(pendings, ask=input, out=out, color=use_color(out))
    else:
        for pending in pendings:
            out.write("\n".join(render_text(pending, pending.change())) + "\n\n")
        out.write(
            f"{len(pendings)} pending; not a terminal, so nothing was decided: "
            "answer in a terminal, or pass --accept or --reject\n"
        )
        return 1
    tally.remaining = sum(pending.path.exists() for pending in pendings)
    out.write(tally.line() + "\n")
    return 1 if tally.remaining else 0


def _run() -> int:
    """``main()``, quiet when the reader of its output goes away (``review | head``)."""
    try:
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return status


if __name__ == "__main__":
    sys.exit(_run())
