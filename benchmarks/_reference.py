"""Where the TypeScript reference (MCP Fusion, ``@mcpfusion/core``) is, for side-by-side rows.

The reference is built from its public repository by ``reference/build.sh``
(never committed); ``ANCHOR_CORE`` names the built package (the folder
holding ``dist/index.js``). :func:`ts_server` gives the command that serves
``reference/ts_server.mjs`` with it, or the reason it cannot, which the
benchmark prints in place of a figure.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Final

HERE: Final = Path(__file__).resolve().parent
SERVER_SCRIPT: Final = HERE / "reference" / "ts_server.mjs"

HOW_TO_BUILD: Final = (
    "build it with `benchmarks/reference/build.sh CLONE DEST` (CLONE: a clone of "
    "https://github.com/vinkius-labs/mcpfusion; needs node >= 18 and npm), then "
    "export ANCHOR_CORE=DEST/packages/core"
)


def ts_server(transport: str = "stdio") -> tuple[list[str], dict[str, str]] | str:
    """``(command, environment)`` serving the reference's ``billing_get``, or why not."""
    node = shutil.which("node")
    if node is None:
        return f"node is not on PATH; install node >= 18, then {HOW_TO_BUILD}"
    core = os.environ.get("ANCHOR_CORE")
    if not core:
        return f"ANCHOR_CORE is not set: the TypeScript reference is not built; {HOW_TO_BUILD}"
    if not (Path(core) / "dist" / "index.js").is_file():
        return f"ANCHOR_CORE={core} holds no dist/index.js; {HOW_TO_BUILD}"
    return [node, str(SERVER_SCRIPT), transport], {**os.environ, "ANCHOR_CORE": core}


__all__ = ["HOW_TO_BUILD", "SERVER_SCRIPT", "ts_server"]
