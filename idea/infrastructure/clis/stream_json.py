"""Sans-I/O codec of Claude Code's stream-json protocol (protocols/AGENT_CLI_PROTOCOLS.md §A),
which Qwen Code 0.24 speaks too (``--input-format/--output-format stream-json``).

``ClaudeStreamParser.feed(bytes)`` turns the CLI's stdout into session events plus the metadata
the adapter needs; whatever the chunking, every complete line is decoded exactly once, in order.
Lines that are not JSON (banners, warnings) and message types it does not know are skipped: the
CLI adds types and fields often, so only the fields read here are relied on.

    system/init        -> ClaudeInit(session_id, mcp_servers)
    assistant text     -> TextDelta          assistant tool_use -> ToolUse
    user tool_result   -> ToolResult
    result             -> ClaudeResult(TurnFinished, user_message_uuids)
    control_response   -> ControlResponse(request_id, ok, response, error)
    a line too long    -> OverlongLine (the decoder dropped it)

A result is an error when ``is_error`` is true, whatever its ``subtype`` (API errors arrive as
``subtype: "success"``); error results carry ``errors[]`` (Qwen: ``error.message``) instead of
``result``. The ``TurnFinished`` carries the turn's usage as the session's meter reads it and,
when a limit refused the turn, its ``RateLimit`` (``stream_json_usage``); a rejected
``rate_limit_event`` is remembered until the turn's result.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from idea.domain.json_types import JsonObject, JsonValue
from idea.domain.session_events import SessionEvent, TextDelta, ToolResult, ToolUse, TurnFinished
from idea.infrastructure.clis.ndjson import NdjsonDecoder, NdjsonItem, OverlongLine, encode_line
from idea.infrastructure.clis.stream_json_usage import (
    ClaudeUsage,
    TurnUsageMeter,
    stream_json_rate_limit,
)
from idea.infrastructure.processes.system import SystemClock


@dataclass(frozen=True, slots=True)
class McpServerStatus:
    """One entry of ``system/init``'s ``mcp_servers`` (status: connected, failed, pending, ...)."""

    name: str
    status: str


@dataclass(frozen=True, slots=True)
class ClaudeInit:
    """``system/init``: emitted at the start of every turn."""

    session_id: str | None
    mcp_servers: tuple[McpServerStatus, ...] = ()


@dataclass(frozen=True, slots=True)
class ClaudeResult:
    """A ``result`` line: the end of a turn.

    ``user_message_uuids`` are the ``uuid``s of the user lines the turn answered (empty when the
    CLI did not say), so that a result can be matched to the send it answers.
    """

    finished: TurnFinished
    user_message_uuids: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ControlResponse:
    """The CLI's answer to one of our ``control_request`` lines."""

    request_id: str
    ok: bool
    response: JsonObject
    error: str | None = None


ClaudeItem = SessionEvent | ClaudeInit | ClaudeResult | ControlResponse | OverlongLine


class ClaudeStreamParser:
    """``meter`` reads the turns' usage (default: Claude Code's way); ``now_ms`` is the clock a
    relative reset time ("retry in 30s") is counted from."""

    def __init__(
        self, meter: TurnUsageMeter | None = None, now_ms: Callable[[], int] | None = None
    ) -> None:
        self._lines = NdjsonDecoder()
        self._meter = meter if meter is not None else ClaudeUsage()
        self._now_ms = now_ms or SystemClock().now_ms
        # Fallback for a result without ``result`` text: the last top-level assistant text.
        self._last_text = ""
        self._rejected: JsonObject | None = None  # a limit's refusal seen during the turn

    def feed(self, data: bytes) -> list[ClaudeItem]:
        return self._decode(self._lines.feed(data))

    def flush(self) -> list[ClaudeItem]:
        """What a last line without a newline holds (call once the stream has ended)."""
        return self._decode(self._lines.flush())

    def _decode(self, lines: list[NdjsonItem]) -> list[ClaudeItem]:
        out: list[ClaudeItem] = []
        for line in lines:
            if isinstance(line, dict):
                out.extend(self._decode_object(line))
            elif isinstance(line, OverlongLine):
                out.append(line)
        return out

    def _decode_object(self, obj: JsonObject) -> list[ClaudeItem]:
        kind = obj.get("type")
        if kind == "system" and obj.get("subtype") == "init":
            return [_init(obj)]
        if kind == "result":
            result = self._result(obj)
            self._last_text, self._rejected = "", None
            return [result]
        if kind == "control_response":
            response = _control_response(obj)
            return [] if response is None else [response]
        if kind == "rate_limit_event":
            info = obj.get("rate_limit_info")
            if isinstance(info, dict) and info.get("status") == "rejected":
                self._rejected = info
            return []
        if kind == "assistant":
            self._meter.assistant(obj)
            if obj.get("error") == "rate_limit":
                params = obj.get("api_error_params")
                info = params.get("rate_limit_info") if isinstance(params, dict) else None
                if isinstance(info, dict):
                    self._rejected = info
                elif self._rejected is None:  # keep what a rate_limit_event said of it
                    self._rejected = {"status": "rejected"}
        # Subagent traffic (parent_tool_use_id set) is the inner work of a Task tool call, not
        # the agent's own answer.
        if kind not in ("assistant", "user") or obj.get("parent_tool_use_id") is not None:
            return []
        blocks = _content_blocks(obj.get("message"))
        if kind == "assistant":
            events = [e for b in blocks if (e := _assistant_event(b)) is not None]
            texts = [e.text for e in events if isinstance(e, TextDelta)]
            if texts:
                self._last_text = "".join(texts)
            return list(events)
        return [e for b in blocks if (e := _tool_result(b)) is not None]

    def _result(self, obj: JsonObject) -> ClaudeResult:
        result = _result(obj, self._last_text)
        finished = result.finished
        limit = stream_json_rate_limit(
            obj, self._rejected, finished.error or finished.text, self._now_ms()
        )
        usage = self._meter.result(obj)
        return replace(result, finished=replace(finished, usage=usage, rate_limit=limit))


# --- decoding helpers ------------------------------------------------------------------------


def _str(value: JsonValue) -> str | None:
    return value if isinstance(value, str) else None


def _init(obj: JsonObject) -> ClaudeInit:
    servers = obj.get("mcp_servers")
    statuses = tuple(
        McpServerStatus(name=name, status=_str(s.get("status")) or "unknown")
        for s in (servers if isinstance(servers, list) else [])
        if isinstance(s, dict) and (name := _str(s.get("name"))) is not None
    )
    return ClaudeInit(session_id=_str(obj.get("session_id")), mcp_servers=statuses)


def _result(obj: JsonObject, last_text: str) -> ClaudeResult:
    is_error = obj.get("is_error") is True
    text = _str(obj.get("result"))
    error: str | None = None
    if is_error:
        raw_errors = obj.get("errors")
        errors = [e for e in (raw_errors if isinstance(raw_errors, list) else []) if e]
        reason = _str(obj.get("terminal_reason")) or _str(obj.get("subtype")) or "error"
        error_field = obj.get("error")  # Qwen Code: ``{"message": …}``
        message = _str(error_field.get("message")) if isinstance(error_field, dict) else None
        details = "; ".join(str(e) for e in errors) or text or message
        error = f"{reason}: {details}" if details else reason
    elif text is None:
        text = last_text
    uuids = obj.get("user_message_uuids")
    answered = [u for u in (uuids if isinstance(uuids, list) else []) if isinstance(u, str)]
    single = _str(obj.get("user_message_uuid"))
    if single is not None and single not in answered:
        answered.append(single)
    finished = TurnFinished(
        text=text or "",
        is_error=is_error,
        error=error,
        conversation_id=_str(obj.get("session_id")),
    )
    return ClaudeResult(finished=finished, user_message_uuids=tuple(answered))


def _control_response(obj: JsonObject) -> ControlResponse | None:
    response = obj.get("response")
    if not isinstance(response, dict):
        return None
    request_id = _str(response.get("request_id"))
    if request_id is None:
        return None
    body = response.get("response")
    ok = response.get("subtype") == "success"
    return ControlResponse(
        request_id=request_id,
        ok=ok,
        response=body if isinstance(body, dict) else {},
        error=None if ok else (_str(response.get("error")) or "the CLI refused the request"),
    )


def _content_blocks(message: JsonValue) -> list[JsonObject]:
    if not isinstance(message, dict):
        return []
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in (content if isinstance(content, list) else []) if isinstance(b, dict)]


def _assistant_event(block: JsonObject) -> SessionEvent | None:
    kind = block.get("type")
    if kind == "text":
        text = _str(block.get("text"))
        return TextDelta(text) if text else None
    if kind == "tool_use":
        return ToolUse(
            tool_id=_str(block.get("id")) or "",
            name=_str(block.get("name")) or "",
            input=block.get("input"),
        )
    return None  # thinking, redacted_thinking, server tool blocks, ...


def _tool_result(block: JsonObject) -> ToolResult | None:
    if block.get("type") != "tool_result":
        return None
    return ToolResult(
        tool_id=_str(block.get("tool_use_id")) or "",
        output=_text_of(block.get("content")),
        is_error=block.get("is_error") is True,
    )


def _text_of(content: JsonValue) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(
        text
        for part in content
        if isinstance(part, dict) and (text := _str(part.get("text"))) is not None
    )


# --- stdin lines -----------------------------------------------------------------------------


def user_line(text: str, uuid: str) -> bytes:
    """A prompt; the CLI echoes ``uuid`` in the ``result`` that answers it."""
    message: JsonObject = {"role": "user", "content": [{"type": "text", "text": text}]}
    return encode_line({"type": "user", "message": message, "uuid": uuid})


def control_request_line(request_id: str, subtype: str, fields: JsonObject | None = None) -> bytes:
    """``initialize``, ``interrupt``, ``mcp_call`` (``fields``: ``tool``, ``arguments``);
    answered by a ``control_response`` naming ``request_id``."""
    request: JsonObject = {"subtype": subtype, **(fields or {})}
    return encode_line({"type": "control_request", "request_id": request_id, "request": request})
