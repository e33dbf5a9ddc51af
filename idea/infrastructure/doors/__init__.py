"""The ways in: the file door, the MCP server and its listener; the HTTP doors' guard."""
