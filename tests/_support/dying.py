"""A plain-SDK stdio server whose tools end its process: a server dying during a call."""

from __future__ import annotations

from typing import Final

__all__ = ["DYING_APP", "DYING_SERVER"]

DYING_SERVER: Final = """
import os
import signal
import sys

from mcp.server.mcpserver import MCPServer

mcp = MCPServer("dies")


@mcp.tool()
def ok() -> str:
    return "fine"


@mcp.tool()
def crash() -> str:
    sys.stderr.write("fatal: the cache is corrupt\\n")
    sys.stderr.flush()
    os._exit(3)


@mcp.tool()
def killed() -> str:
    os.kill(os.getpid(), signal.SIGKILL)
    return "never"


mcp.run()
"""
"""Tools ``ok`` (``fine``), ``crash`` (exit code 3 after a stderr line), ``killed`` (SIGKILL)."""

DYING_APP: Final = """
import os

from fusion_core import FusionApp, Tool


def crash() -> str:
    os._exit(3)


app = FusionApp([Tool("t").action("ok", lambda: "fine").action("crash", crash)])
"""
"""A fusion_core app whose ``t``/``crash`` action ends the process (served over HTTP)."""
