"""A server written with the bare ``mcp`` SDK (``MCPServer``), no fusion_core.

It stands for a Fusion-speaking server in any language: its tools return
hand-written Fusion text, well-formed and malformed, as pre-built
``CallToolResult`` objects (which ``MCPServer`` passes through unchanged).
The client must hand back every text verbatim; judging it is the parser's and
the validator's job.

Run it as ``python -m tests._support.bare_sdk_server`` from the repository root.
"""

from __future__ import annotations

from typing import Final

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent

# tool name -> (texts, isError)
TEXTS: Final[dict[str, tuple[list[str], bool]]] = {
    "well_formed": (
        [
            '{\n  "id": 7,\n  "client": "Acme"\n}',
            (
                '<ui_passthrough type="summary" title="Q3 &amp; Q4">\n'
                "📊 **Summary**: 1 invoice\n</ui_passthrough>"
            ),
            "<llm_directives>\n- Amounts are in cents.\n</llm_directives>",
            "<domain_rules>\n- Never reveal ids.\n- Round &amp; format.\n</domain_rules>",
            "<action_suggestions>\n- invoices_get: to see details\n</action_suggestions>",
        ],
        False,
    ),
    "tool_error": (
        [
            (
                '<tool_error code="NOT_FOUND" severity="error">\n'
                "<message>Invoice 9 not found</message>\n"
                "<recovery>List invoices first.</recovery>\n"
                "</tool_error>"
            )
        ],
        True,
    ),
    "malformed": (
        [
            "not json {",
            '<ui_passthrough type="markdown">\nunterminated block',
            "<domain_rules>\n- a <b>raw</b> & unescaped rule\n</domain_rules>\ntrailing",
            "<llm_directives>\n</action_suggestions>",
            "  \r\n leading space, CRLF and a NUL \x00 byte \u2028 🚀 ",
            "",
        ],
        False,
    ),
    "error_without_envelope": (["something broke <&>"], True),
}

mcp: Final = MCPServer("bare-sdk")


def _texts(name: str) -> CallToolResult:
    texts, is_error = TEXTS[name]
    return CallToolResult(
        content=[TextContent(type="text", text=text) for text in texts], is_error=is_error
    )


@mcp.tool()
def well_formed() -> CallToolResult:
    """Well-formed Fusion blocks: data, UI, directives, rules, suggestions."""
    return _texts("well_formed")


@mcp.tool()
def tool_error() -> CallToolResult:
    """A Fusion error envelope with isError."""
    return _texts("tool_error")


@mcp.tool()
def malformed() -> CallToolResult:
    """Text that breaks the Fusion contract in several ways."""
    return _texts("malformed")


@mcp.tool()
def error_without_envelope() -> CallToolResult:
    """An error flagged with isError, in plain text without an envelope."""
    return _texts("error_without_envelope")


if __name__ == "__main__":
    mcp.run()
