"""Sans-I/O codec of ``codex app-server``: JSON-RPC lines (no ``"jsonrpc"`` field) in both ways.

``CodexStream.feed(bytes)`` turns the server's stdout into typed messages whatever the chunking:
responses to our requests, requests the server makes of us (every one must be answered, see
``answer_server_request``), and turn notifications mapped to session events. Invariant: within a
turn, the ``TextDelta`` texts of one agent message add up to that message's final text (a message
completed without deltas is emitted whole), and every tool call yields one ``ToolUse`` before its
``ToolResult``. The ``error`` notification is not terminal: only ``turn/completed`` ends a turn.
The write side builds our requests (``thread_params``: context and MCP bridge injected as JSON)
and the answers to the server's requests. Shapes: protocols/AGENT_CLI_PROTOCOLS.md §B.5,
re-observed on codex 0.171.0.
``TurnEnded.detail``, ``UsageUpdated`` and ``RateLimitsUpdated`` are read by ``codex/usage.py``.
A line too long to read comes out as the decoder's ``OverlongLine``; what is held of a message's
deltas is bounded by the line limit (a longer message cannot complete in one line).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from idea.application.session_ports import StructuredSpec
from idea.domain.json_types import JsonObject, JsonValue
from idea.domain.session_events import TextDelta, ToolResult, ToolUse
from idea.endpoint.jsonrpc import METHOD_NOT_FOUND
from idea.infrastructure.clis.codex.declaration import mcp_server_config
from idea.infrastructure.clis.declaration import MCP_SERVER_NAME
from idea.infrastructure.clis.ndjson import (
    MAX_LINE_BYTES,
    NdjsonDecoder,
    NdjsonItem,
    NonJsonLine,
    OverlongLine,
    encode_line,
)

SANDBOX = "workspace-write"
# Between two agent messages of one turn, so the chat does not glue them together.
MESSAGE_SEPARATOR = "\n\n"


@dataclass(frozen=True, slots=True)
class RpcResponse:
    """The answer to one of our requests: ``error`` is its message when the request failed."""

    request_id: JsonValue
    result: JsonObject
    error: str | None = None


@dataclass(frozen=True, slots=True)
class ServerRequest:
    request_id: JsonValue
    method: str
    params: JsonObject


@dataclass(frozen=True, slots=True)
class TurnStarted:
    turn_id: str | None


@dataclass(frozen=True, slots=True)
class TurnOutput:
    """Something to show while a turn runs."""

    turn_id: str | None
    event: TextDelta | ToolUse | ToolResult


@dataclass(frozen=True, slots=True)
class TurnEnded:
    """``status`` is ``completed``, ``interrupted`` or ``failed``; ``text`` the last message;
    ``detail`` the turn's ``error`` object as Codex sent it (``codexErrorInfo``, ...)."""

    turn_id: str | None
    status: str
    text: str
    error: str | None
    detail: JsonObject = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CodexError:
    """The ``error`` notification: a retry notice or the cause of a failure, never the end."""

    turn_id: str | None
    message: str
    will_retry: bool


@dataclass(frozen=True, slots=True)
class UsageUpdated:
    """Token counts of the thread: ``total`` is cumulative, ``last`` is the last model request;
    ``turn_id`` the turn they were counted in (a resumed thread's totals name its last turn)."""

    total: JsonObject
    last: JsonObject
    turn_id: str | None = None


@dataclass(frozen=True, slots=True)
class RateLimitsUpdated:
    """``account/rateLimits/updated``: the account's limit windows (``primary``, ``secondary``)."""

    snapshot: JsonObject


@dataclass(frozen=True, slots=True)
class McpStartup:
    server: str
    status: str
    error: str | None


@dataclass(frozen=True, slots=True)
class Notice:
    """A notification worth a log line only (``warning``, ``configWarning``, unknown ones)."""

    method: str
    message: str


CodexMessage = (
    RpcResponse
    | ServerRequest
    | TurnStarted
    | TurnOutput
    | TurnEnded
    | CodexError
    | UsageUpdated
    | RateLimitsUpdated
    | McpStartup
    | Notice
    | NonJsonLine
    | OverlongLine
)


class _Streamed:
    """The deltas of one agent message: their length, and their text while it could still be
    compared with a completed message (one line, so at most the line limit)."""

    def __init__(self, text: str = "") -> None:
        self.length = len(text)
        self.parts: list[str] | None = [text]

    def add(self, delta: str) -> None:
        self.length += len(delta)
        if self.parts is not None:
            self.parts.append(delta)
            if self.length > MAX_LINE_BYTES:
                self.parts = None

    def rest_of(self, text: str) -> str:
        """What ``text`` (the completed message) has beyond the deltas, if they are its start."""
        if self.parts is None or len(text) <= self.length:
            return ""
        return text[self.length :] if text.startswith("".join(self.parts)) else ""


_QUIET = frozenset(
    {
        "thread/status/changed",
        "remoteControl/status/changed",
        "item/reasoning/summaryTextDelta",
        "item/reasoning/textDelta",
    }
)


class CodexStream:
    def __init__(self) -> None:
        self._lines = NdjsonDecoder()
        self._reset_turn()

    def feed(self, data: bytes) -> list[CodexMessage]:
        return self._decode(self._lines.feed(data))

    def flush(self) -> list[CodexMessage]:
        """What a trailing line without a newline holds, once the stream has ended."""
        return self._decode(self._lines.flush())

    # --- internals --------------------------------------------------------------------------

    def _reset_turn(self) -> None:
        self._streamed: dict[str, _Streamed] = {}  # agent message id -> its deltas
        self._last_text = ""
        self._wrote_text = False
        self._tools_shown: set[str] = set()

    def _decode(self, items: list[NdjsonItem]) -> list[CodexMessage]:
        out: list[CodexMessage] = []
        for item in items:
            if isinstance(item, NonJsonLine | OverlongLine):
                out.append(item)
            else:
                out.extend(self._message(item))
        return out

    def _message(self, msg: JsonObject) -> list[CodexMessage]:
        method = msg.get("method")
        if not isinstance(method, str):
            if "id" not in msg:
                return [Notice("?", json.dumps(msg)[:200])]
            error = msg.get("error")
            if error is not None:
                message = _str(_obj(error).get("message")) or json.dumps(error)
                return [RpcResponse(msg["id"], {}, message)]
            return [RpcResponse(msg["id"], _obj(msg.get("result")))]
        params = _obj(msg.get("params"))
        if "id" in msg:
            return [ServerRequest(msg["id"], method, params)]
        return self._notification(method, params)

    def _notification(self, method: str, params: JsonObject) -> list[CodexMessage]:
        turn_id = _str(params.get("turnId"))
        if method == "turn/started":
            self._reset_turn()
            return [TurnStarted(_str(_obj(params.get("turn")).get("id")))]
        if method == "item/agentMessage/delta":
            return self._delta(turn_id, _str(params.get("itemId")) or "", _str(params.get("delta")))
        if method in ("item/started", "item/completed"):
            return self._item(turn_id, _obj(params.get("item")), method == "item/completed")
        if method == "turn/completed":
            return [self._turn_ended(_obj(params.get("turn")))]
        if method == "error":
            return [
                CodexError(
                    turn_id,
                    _str(_obj(params.get("error")).get("message")) or "unknown error",
                    params.get("willRetry") is True,
                )
            ]
        if method == "thread/tokenUsage/updated":
            usage = _obj(params.get("tokenUsage"))
            return [UsageUpdated(_obj(usage.get("total")), _obj(usage.get("last")), turn_id)]
        if method == "account/rateLimits/updated":
            return [RateLimitsUpdated(_obj(params.get("rateLimits")))]
        if method == "mcpServer/startupStatus/updated":
            name, status = _str(params.get("name")) or "", _str(params.get("status")) or ""
            return [McpStartup(name, status, _str(params.get("error")))]
        if method in _QUIET or method.startswith("item/"):
            return []
        message = _str(params.get("message")) or _str(params.get("summary")) or ""
        return [Notice(method, message)]

    def _delta(self, turn_id: str | None, item_id: str, delta: str | None) -> list[CodexMessage]:
        if not delta:
            return []
        out: list[CodexMessage] = []
        if item_id not in self._streamed:
            out += self._separator(turn_id)
            self._streamed[item_id] = _Streamed()
        self._streamed[item_id].add(delta)
        self._wrote_text = True
        out.append(TurnOutput(turn_id, TextDelta(delta)))
        return out

    def _separator(self, turn_id: str | None) -> list[CodexMessage]:
        return [TurnOutput(turn_id, TextDelta(MESSAGE_SEPARATOR))] if self._wrote_text else []

    def _item(self, turn_id: str | None, item: JsonObject, completed: bool) -> list[CodexMessage]:
        kind = _str(item.get("type"))
        item_id = _str(item.get("id")) or ""
        if kind == "agentMessage":
            if not completed:
                return []
            text = _str(item.get("text")) or ""
            self._last_text = text
            streamed = self._streamed.get(item_id)
            if streamed is None:
                if not text:
                    return []
                self._streamed[item_id] = _Streamed(text)
                separator = self._separator(turn_id)
                self._wrote_text = True
                return [*separator, TurnOutput(turn_id, TextDelta(text))]
            rest = streamed.rest_of(text)
            if rest:
                # Deltas were lost or coalesced: send the rest so the chat shows the whole text.
                self._streamed[item_id] = _Streamed(text)
                return [TurnOutput(turn_id, TextDelta(rest))]
            return []
        tool = _tool_call(kind, item)
        if tool is None:
            return []
        out: list[CodexMessage] = []
        if item_id not in self._tools_shown:
            self._tools_shown.add(item_id)
            out.append(TurnOutput(turn_id, ToolUse(item_id, tool[0], tool[1])))
        if completed:
            output, is_error = _tool_outcome(kind, item)
            out.append(TurnOutput(turn_id, ToolResult(item_id, output, is_error)))
        return out

    def _turn_ended(self, turn: JsonObject) -> TurnEnded:
        status = _str(turn.get("status")) or "failed"
        text = self._last_text
        items = turn.get("items")
        if isinstance(items, list):
            for item in items:
                entry = _obj(item)
                if entry.get("type") == "agentMessage":
                    text = _str(entry.get("text")) or text
        error = None
        detail = _obj(turn.get("error"))
        if status != "completed":
            error = _str(detail.get("message")) or status
        self._reset_turn()
        return TurnEnded(_str(turn.get("id")), status, text, error, detail)


def _tool_call(kind: str | None, item: JsonObject) -> tuple[str, JsonValue] | None:
    """The (name, input) shown for a tool-like item, or None for other items."""
    if kind == "mcpToolCall":
        name = f"mcp__{_str(item.get('server')) or '?'}__{_str(item.get('tool')) or '?'}"
        return name, item.get("arguments")
    if kind == "dynamicToolCall":
        return _str(item.get("tool")) or "tool", item.get("arguments")
    if kind == "commandExecution":
        return "shell", {"command": item.get("command"), "cwd": item.get("cwd")}
    if kind == "fileChange":
        return "apply_patch", {"changes": item.get("changes")}
    if kind == "webSearch":
        return "web_search", {"query": item.get("query")}
    return None


def _tool_outcome(kind: str | None, item: JsonObject) -> tuple[str, bool]:
    status = _str(item.get("status")) or ""
    failed = status in ("failed", "declined")
    if kind == "mcpToolCall":
        error = _str(_obj(item.get("error")).get("message"))
        if error is not None:
            return error, True
        result = _obj(item.get("result"))
        return _content_text(result.get("content"), result.get("structuredContent")), failed
    if kind == "dynamicToolCall":
        return _content_text(item.get("contentItems"), None), failed or item.get("success") is False
    if kind == "commandExecution":
        code = item.get("exitCode")
        nonzero = isinstance(code, int) and code != 0
        return _str(item.get("aggregatedOutput")) or "", failed or nonzero
    return status, failed


def _content_text(content: JsonValue, structured: JsonValue) -> str:
    parts: list[str] = []
    if isinstance(content, list):
        for block in content:
            entry = _obj(block)
            text = _str(entry.get("text"))
            parts.append(text if text is not None else f"[{_str(entry.get('type')) or 'content'}]")
    if not parts and structured is not None:
        parts.append(json.dumps(structured, ensure_ascii=False))
    return "\n".join(parts)


def _obj(value: JsonValue) -> JsonObject:
    return value if isinstance(value, dict) else {}


def _str(value: JsonValue) -> str | None:
    return value if isinstance(value, str) else None


# --- what we write ------------------------------------------------------------------------------


def encode_request(request_id: int, method: str, params: Mapping[str, JsonValue]) -> bytes:
    return encode_line({"id": request_id, "method": method, "params": dict(params)})


def encode_notification(method: str) -> bytes:
    return encode_line({"method": method})


_ANSWERS: dict[str, JsonObject] = {
    "item/commandExecution/requestApproval": {"decision": "decline"},
    "item/fileChange/requestApproval": {"decision": "decline"},
    "applyPatchApproval": {"decision": "denied"},
    "execCommandApproval": {"decision": "denied"},
    "mcpServer/elicitation/request": {"action": "decline", "content": None, "_meta": None},
    "item/tool/requestUserInput": {"answers": {}},
    "item/permissions/requestApproval": {"permissions": {}, "scope": "turn"},
}


def thread_params(spec: StructuredSpec, thread_id: str | None) -> JsonObject:
    """``thread/start`` params, or ``thread/resume`` params when ``thread_id`` is given.

    Headless: no approval is ever asked (``never``); the sandbox is the agent's permission mode,
    by default it may write in the project only.
    """
    sandbox = spec.permission_mode or SANDBOX
    params: JsonObject = {"cwd": spec.cwd, "approvalPolicy": "never", "sandbox": sandbox}
    if thread_id is not None:
        params["threadId"] = thread_id
    if spec.context:
        params["developerInstructions"] = spec.context
    if spec.model:
        params["model"] = spec.model
    if spec.mcp is not None:
        servers: JsonObject = {MCP_SERVER_NAME: mcp_server_config(spec.mcp, spec.tool_timeout_s)}
        params["config"] = {"mcp_servers": servers}
    return params


def turn_params(thread_id: str, prompt: str) -> JsonObject:
    return {"threadId": thread_id, "input": [{"type": "text", "text": prompt, "text_elements": []}]}


def answer_server_request(request: ServerRequest) -> bytes:
    """Our answer to a request of the server: nobody sits at a headless session to approve.

    Command and file-change approvals are declined (the agent continues without them), MCP
    elicitations are declined, questions get no answers, extra permissions are not granted;
    anything else gets "method not found" so the server never waits on us.
    """
    result = _ANSWERS.get(request.method)
    if result is None:
        message = f"{request.method} is not supported by this client"
        error: JsonObject = {"code": METHOD_NOT_FOUND, "message": message}
        return encode_line({"id": request.request_id, "error": error})
    return encode_line({"id": request.request_id, "result": result})
