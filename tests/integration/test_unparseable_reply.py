"""A reply the MCP SDK cannot parse is reported as such, not as a timeout."""

from __future__ import annotations

import sys

import pytest

GARBLED_SERVER = '''
import os

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server

# The SDK diverts fd 1 so that stray prints cannot corrupt the wire; a server
# in another language has no such guard. Keep a handle on the real stdout.
WIRE = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
mcp = MCPServer("garbled")


@mcp.tool()
async def garbled() -> str:
    """Writes a line that is not JSON-RPC to stdout, then never answers."""
    WIRE.write('{"jsonrpc": "2.0", "id": [broken\\n')
    WIRE.flush()
    await anyio.sleep(3600)
    return "never"


async def main() -> None:
    server = mcp._lowlevel_server
    async with stdio_server(stdout=anyio.wrap_file(WIRE)) as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
'''

TEST = """
import pytest

from fusion_core import ServerResultError


def test_garbled(fusion_call):
    with pytest.raises(ServerResultError, match="the MCP SDK cannot parse") as caught:
        fusion_call("garbled")
    print("MESSAGE:", caught.value)
"""


def test_an_unparseable_reply_fails_the_call_with_its_reason(pytester: pytest.Pytester) -> None:
    """The call fails at once with ServerResultError naming the parse failure."""
    pytester.makepyfile(garbled=GARBLED_SERVER, test_garbled=TEST)
    result = pytester.runpytest_subprocess(
        f"--fusion-server={sys.executable} garbled.py", "-p", "no:cacheprovider", "-s"
    )
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        ["*MESSAGE: *garbled.py* answered tools/call with a message the MCP SDK cannot parse*"]
    )
