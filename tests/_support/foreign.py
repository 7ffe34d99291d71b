"""A foreign server for the gate's integration tests: the bare ``mcp`` SDK, no fusion_core.

It stands for a server in any language. ``invoices`` lists ids and looks
them up (a lookup of an unknown id is a ``NOT_FOUND`` envelope), and the
success path of ``get`` leaks a planted canary and a ``password`` field for
one invoice; ``misordered`` writes its rules before its UI block and an
unknown ``<secret_notes>`` element; ``crash`` answers a bare error text;
``counter`` keeps state between calls (it says no readOnlyHint: the
contract tests do not call it unless a test opts in). Write it with ``pytester.makepyfile``
and start it with :func:`command`.
"""

from __future__ import annotations

import sys

FOREIGN_SERVER = '''
import json
from typing import Literal

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent, ToolAnnotations

READS = ToolAnnotations(read_only_hint=True, open_world_hint=False)  # the gate may call them

mcp = MCPServer("foreign")
INVOICES = {
    "INV-1": {"id": "INV-1", "amount_cents": 4500},
    "INV-2": {"id": "INV-2", "amount_cents": 990, "note": "CANARY-7f3a", "password": "pw"},
}
COUNT = {"n": 0}


def _texts(*texts, is_error=False):
    return CallToolResult(
        content=[TextContent(type="text", text=text) for text in texts], is_error=is_error
    )


@mcp.tool(annotations=READS)
def invoices(action: Literal["list", "get"], invoice_id: str = "") -> CallToolResult:
    """Invoices: list them, or get one by id."""
    if action == "list":
        rows = [{"id": row["id"]} for row in INVOICES.values()]
        return _texts(json.dumps(rows, indent=2))
    if invoice_id not in INVOICES:
        return _texts(
            '<tool_error code="NOT_FOUND">\\n<message>No such invoice.</message>\\n</tool_error>',
            is_error=True,
        )
    return _texts(json.dumps(INVOICES[invoice_id], indent=2))


@mcp.tool(annotations=READS)
def misordered() -> CallToolResult:
    """Rules before the UI block, and an unknown element."""
    return _texts(
        "{}",
        "<domain_rules>\\n- Amounts are in cents.\\n</domain_rules>",
        '<ui_passthrough type="summary">\\n2 invoices\\n</ui_passthrough>',
        "<secret_notes>\\nroot password: hunter2\\n</secret_notes>",
    )


@mcp.tool(annotations=READS)
def crash() -> CallToolResult:
    """A bare error text, no envelope."""
    return _texts("Traceback (most recent call last): KeyError", is_error=True)


@mcp.tool()
def counter() -> CallToolResult:
    """Counts its calls: state kept by the server process."""
    COUNT["n"] += 1
    return _texts(json.dumps({"count": COUNT["n"]}, indent=2))


if __name__ == "__main__":
    mcp.run()
'''


def command(path: str = "foreign.py") -> str:
    """The ``--fusion-server`` command that starts the foreign server."""
    return f"{sys.executable} {path}"
