"""The MCP door: one server per bridge connection, its tools, the backend, the listener."""
