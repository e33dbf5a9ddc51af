"""A minimal stdio MCP server (stdlib only) with one tool, ``ping``, which answers ``pong``.

Used by the real-CLI harness tests to check that a CLI spawned the server, offered its tool to
the (mock) model and sent the tool result back. One JSON object per line on stdout; logs, if
any, go to stderr. Exits on stdin EOF.
"""

from __future__ import annotations

import json
import sys

PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")

PING_TOOL = {
    "name": "ping",
    "description": "Answers pong. Call it when asked to ping.",
    "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False},
}


def handle(message: dict) -> dict | None:
    method = message.get("method")
    if "id" not in message:
        return None  # notification (notifications/initialized, cancelled, ...)
    msg_id = message["id"]
    params = message.get("params") or {}
    if method == "initialize":
        asked = params.get("protocolVersion")
        version = asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[0]
        result: dict = {
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": "tiny", "version": "1.0.0"},
        }
    elif method == "ping":
        result = {}
    elif method == "tools/list":
        result = {"tools": [PING_TOOL]}
    elif method == "tools/call":
        if params.get("name") != "ping":
            return {
                "jsonrpc": "2.0",
                "id": msg_id,
                "error": {"code": -32602, "message": f"unknown tool {params.get('name')!r}"},
            }
        result = {"content": [{"type": "text", "text": "pong"}], "isError": False}
    elif method in {"resources/list", "prompts/list"}:
        result = {method.split("/")[0]: []}
    elif method == "resources/templates/list":
        result = {"resourceTemplates": []}
    else:
        return {
            "jsonrpc": "2.0",
            "id": msg_id,
            "error": {"code": -32601, "message": f"method not found: {method}"},
        }
    return {"jsonrpc": "2.0", "id": msg_id, "result": result}


def main() -> int:
    for raw in sys.stdin:
        line = raw.strip()
        if not line:
            continue
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict):
            continue
        reply = handle(message)
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
