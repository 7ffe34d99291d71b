"""Helpdesk servers written with other frameworks, as their authors write them.

Each source defines ``make_server()`` (a factory: every server has its own
tickets) and ``mcp = make_server()`` (the module's instance), and runs over
stdio with the framework's own runner when executed (``python server.py``).
``open_ticket`` writes, ``list_tickets`` reads: a test sees whether one
server's writes reach another test.
"""

from __future__ import annotations

import textwrap
from typing import Final

__all__ = ["FASTMCP_SOURCE", "FRAMEWORK_SOURCES", "LOWLEVEL_SOURCE", "MCPSERVER_SOURCE"]

MCPSERVER_SOURCE: Final = textwrap.dedent(
    '''
    from mcp.server.mcpserver import MCPServer


    def make_server() -> MCPServer:
        mcp = MCPServer("helpdesk")
        tickets: list[str] = []

        @mcp.tool()
        def open_ticket(title: str, priority: int = 1) -> str:
            """Open a ticket."""
            tickets.append(title)
            return f"#{len(tickets)} {title} (p{priority})"

        @mcp.tool()
        def list_tickets() -> dict[str, list[str]]:
            """Every open ticket."""
            return {"tickets": list(tickets)}

        return mcp


    mcp = make_server()

    if __name__ == "__main__":
        mcp.run()
    '''
)

FASTMCP_SOURCE: Final = textwrap.dedent(
    '''
    from fastmcp import FastMCP


    def make_server() -> FastMCP:
        mcp = FastMCP("helpdesk")
        tickets: list[str] = []

        @mcp.tool
        def open_ticket(title: str, priority: int = 1) -> str:
            """Open a ticket."""
            tickets.append(title)
            return f"#{len(tickets)} {title} (p{priority})"

        @mcp.tool
        def list_tickets() -> dict[str, list[str]]:
            """Every open ticket."""
            return {"tickets": list(tickets)}

        return mcp


    mcp = make_server()

    if __name__ == "__main__":
        mcp.run(show_banner=False)
    '''
)

LOWLEVEL_SOURCE: Final = textwrap.dedent(
    """
    import anyio
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server
    from mcp_types import CallToolResult, ListToolsResult, TextContent, Tool

    SCHEMA = {
        "type": "object",
        "properties": {"title": {"type": "string"}, "priority": {"type": "integer"}},
        "required": ["title"],
    }


    def make_server() -> Server:
        tickets: list[str] = []

        async def list_tools(ctx, params):
            return ListToolsResult(
                tools=[
                    Tool(name="open_ticket", description="Open a ticket.", input_schema=SCHEMA),
                    Tool(
                        name="list_tickets",
                        description="Every open ticket.",
                        input_schema={"type": "object", "properties": {}},
                    ),
                ]
            )

        async def call_tool(ctx, params):
            arguments = params.arguments or {}
            if params.name == "open_ticket":
                tickets.append(str(arguments.get("title")))
                text = f"#{len(tickets)} {arguments.get('title')}"
            else:
                text = ", ".join(tickets) or "none"
            return CallToolResult(content=[TextContent(type="text", text=text)])

        return Server("helpdesk", on_list_tools=list_tools, on_call_tool=call_tool)


    mcp = make_server()


    async def main() -> None:
        async with stdio_server() as (read, write):
            await mcp.run(read, write, mcp.create_initialization_options())


    if __name__ == "__main__":
        anyio.run(main)
    """
)

FRAMEWORK_SOURCES: Final = {
    "MCPServer": MCPSERVER_SOURCE,
    "FastMCP": FASTMCP_SOURCE,
    "Server": LOWLEVEL_SOURCE,
}
"""Each framework's helpdesk, by the name of its server class."""
