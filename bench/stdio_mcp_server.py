"""The floor for the MCP benches: a stdlib-only stdio MCP server, one tool ``echo`` (echoes its
``text`` argument). One JSON object per line on stdout; exits on stdin EOF."""

import json
import sys

TOOL = {"name": "echo", "description": "Echo text.", "inputSchema": {"type": "object"}}
INFO = {"name": "stdlib-echo", "version": "1.0.0"}


def answer(method: str, params: dict) -> dict:
    if method == "initialize":
        version = params.get("protocolVersion", "2025-11-25")
        return {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": INFO}
    if method == "tools/list":
        return {"tools": [TOOL]}
    if method == "tools/call":
        text = str((params.get("arguments") or {}).get("text", ""))
        return {"content": [{"type": "text", "text": text}], "isError": False}
    return {}


for line in sys.stdin:
    message = json.loads(line) if line.strip() else {}
    if "id" in message:
        result = answer(message.get("method", ""), message.get("params") or {})
        reply = {"jsonrpc": "2.0", "id": message["id"], "result": result}
        sys.stdout.write(json.dumps(reply, separators=(",", ":")) + "\n")
        sys.stdout.flush()
