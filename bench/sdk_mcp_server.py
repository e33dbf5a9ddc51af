"""A minimal stdio MCP server of the official SDK (``mcp`` 2.x ``MCPServer``), one tool ``echo``:
what the MCP benches compare IdeA's bridge with."""

from mcp.server.mcpserver import MCPServer

server = MCPServer("sdk-echo")


@server.tool()
def echo(text: str = "") -> str:
    """Echo text."""
    return text


if __name__ == "__main__":
    server.run()
