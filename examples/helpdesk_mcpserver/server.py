"""The helpdesk server: ``python -m examples.helpdesk_mcpserver.server`` serves it on stdio.

``make_server()`` builds a server with its own tickets, so each isolation
scope of the pytest plugin gets a fresh one; ``mcp`` is the module's server.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

from fusion_core import Presenter, ResponseBuilder, ToolResponse, tool_error
from fusion_core.mcpserver import use_fusion


class Ticket(BaseModel):
    """What the agent sees of a ticket (``owner_email`` stays on the server)."""

    id: int
    title: str
    status: str


TICKET = Presenter("Ticket", schema=Ticket, rules=["Quote ticket ids as #id."])


def make_server() -> MCPServer[Any]:
    """A helpdesk with one open ticket."""
    mcp: MCPServer[Any] = use_fusion(MCPServer("helpdesk"))
    tickets: dict[int, dict[str, Any]] = {
        1: {"id": 1, "title": "Printer on fire", "status": "open", "owner_email": "ann@example.com"}
    }

    @mcp.tool()
    def get_ticket(ticket: int) -> ResponseBuilder | ToolResponse:
        """One ticket by its id."""
        if ticket not in tickets:
            return tool_error("NOT_FOUND", f"No ticket #{ticket}.", suggestion="Call open_ticket.")
        return TICKET.make(tickets[ticket])

    @mcp.tool()
    def open_ticket(title: str) -> ResponseBuilder:
        """Open a ticket."""
        number = len(tickets) + 1
        tickets[number] = {"id": number, "title": title, "status": "open"}
        return TICKET.make(tickets[number])

    @mcp.tool()
    def count_tickets() -> int:
        """How many tickets there are (a plain value: MCPServer's own answer)."""
        return len(tickets)

    return mcp


mcp = make_server()

if __name__ == "__main__":
    mcp.run()
