"""JSON-RPC 2.0 error codes and message builders used by the MCP server and the bridge."""

from __future__ import annotations

import json
from typing import Any

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
# Not in the JSON-RPC spec: the bridge lost the app while a request was pending.
CONNECTION_CLOSED = -32000


def error(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def result(request_id: Any, value: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": value}


def line(message: dict[str, Any]) -> bytes:
    """One message, one line: clients hang on a pretty-printed (multi-line) message."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
