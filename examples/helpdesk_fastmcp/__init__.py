"""A helpdesk on ``fastmcp``'s ``FastMCP``, answering in the Fusion format (docs/fastmcp.md)."""
