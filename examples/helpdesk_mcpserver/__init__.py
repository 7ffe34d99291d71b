"""A helpdesk on the ``mcp`` SDK's ``MCPServer``, in the Fusion format (docs/mcpserver.md)."""
