"""A plain-SDK server (``MCPServer``, no fusion_core) with actions nothing bounds.

``grow`` answers with ``n`` characters, however large ``n`` is; ``stall``
sleeps before answering; ``echo`` is well behaved. A client (and the pytest
plugin's contract tests) must stay within its time and size limits whatever
such a server does.

Run it as ``python -m tests._support.unbounded_sdk_server`` from the repository root.
"""

from __future__ import annotations

import time
from typing import Final

from mcp.server.mcpserver import MCPServer

mcp: Final = MCPServer("unbounded")


@mcp.tool()
def grow(n: int) -> str:
    """``n`` characters (the SDK sends them as a JSON string): the output grows with ``n``."""
    return "x" * n


@mcp.tool()
def stall(seconds: float) -> dict[str, float]:
    """Sleeps ``seconds`` (at most an hour), then answers."""
    time.sleep(min(max(seconds, 0.0), 3600.0))
    return {"slept": seconds}


@mcp.tool()
def echo(text: str) -> dict[str, str]:
    """The text, in an object."""
    return {"text": text}


if __name__ == "__main__":
    mcp.run()
