"""``python -m pytest_mcpfusion review``: ``fusion review`` under the plugin's name.

Kept as an alias of the ``fusion`` command line's ``review`` (same options,
output and exit statuses: 0 nothing left pending, 1 something is, 2 usage
error); the review itself lives in fusion_core, which never imports pytest.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from fusion_core._cli._main import main as fusion

__all__ = ["main"]

_USAGE = "usage: python -m pytest_mcpfusion review [PATHS ...] [--accept | --reject | --list]"


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``fusion review`` with these arguments (``["review", ...]``); return the exit status."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] != ["review"]:
        print(
            f"{_USAGE}\nthe one command here is review (the same as `fusion review`; "
            "`fusion --help` lists every command)",
            file=sys.stderr if arguments[:1] not in (["-h"], ["--help"]) else sys.stdout,
        )
        return 0 if arguments[:1] in (["-h"], ["--help"]) else 2
    return fusion(arguments)


if __name__ == "__main__":
    sys.exit(main())
