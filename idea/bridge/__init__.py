"""The ``idea mcp-server`` relay: stdlib, msgpack and idea.endpoint only."""
