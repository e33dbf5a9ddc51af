"""Sans-I/O parser of ``opencode run --format json`` output, one parser per turn (one process).

``feed(bytes)`` turns stdout into session events; whatever the chunking, every complete line is
decoded exactly once, in order. Lines that are not JSON and event types it does not know
(``step_start``, ``reasoning``) are skipped. Every event names the session (``sessionID``). The
run has no closing event: the turn ends when the process exits, so ``finish(exit_code)`` makes
the one ``TurnFinished``.

    text{part: {text}}                                  -> TextDelta (a whole text part)
    tool_use{part: {callID, tool, state: {status, input, output?, error?}}}
                                                        -> ToolUse, then ToolResult
    step_finish{part: {tokens, cost}}                   -> added to the turn's usage
    error{error: {name, data: {message, statusCode?}}}  -> remembered: the turn is an error
    a line too long                                     -> OverlongLine (dropped)

The final text joins the text parts; one written after a tool call starts on a new line; it is
bounded by ``answer`` (``answer_text``).
Usage (1.18.33): each model call ends with a ``step_finish`` whose ``tokens`` are ``input``
(without the cache), ``output`` (without the reasoning), ``reasoning`` and ``cache.read`` /
``cache.write``, and whose ``cost`` is in USD (0 for a model without a price). A 429 is retried
by OpenCode itself, without end and printing nothing; only an ``error`` event it gives up with
can be read as a rate limit (``opencode_rate_limit``).
"""

from __future__ import annotations

from collections.abc import Callable

from idea.domain.json_types import JsonObject, JsonValue
from idea.domain.session_events import SessionEvent, TextDelta, ToolResult, ToolUse, TurnFinished
from idea.domain.usage import RateLimit, Usage
from idea.infrastructure.clis.answer_text import AnswerText
from idea.infrastructure.clis.ndjson import NdjsonDecoder, NdjsonItem, OverlongLine
from idea.infrastructure.clis.rate_limits import (
    rate_limit,
    reset_in_text,
    retry_after_ms,
    says_rate_limited,
)
from idea.infrastructure.processes.system import SystemClock


class OpenCodeStreamParser:
    """``now_ms``: the clock a relative reset time ("retry-after: 30") is counted from;
    ``answer``: what builds the final text (default: cut at the cap, not kept)."""

    def __init__(
        self, now_ms: Callable[[], int] | None = None, answer: AnswerText | None = None
    ) -> None:
        self._now_ms = now_ms or SystemClock().now_ms
        self._lines = NdjsonDecoder()
        self._answer = answer if answer is not None else AnswerText()
        self._session_id: str | None = None
        self._error: str | None = None
        self._rate_limit: RateLimit | None = None
        self._usage: Usage | None = None

    @property
    def session_id(self) -> str | None:
        return self._session_id

    def feed(self, data: bytes) -> list[SessionEvent | OverlongLine]:
        return self._decode(self._lines.feed(data))

    def flush(self) -> list[SessionEvent | OverlongLine]:
        """What a last line without a newline holds (call once the stream has ended)."""
        return self._decode(self._lines.flush())

    def finish(self, exit_code: int, stderr: str = "") -> TurnFinished:
        """The turn's end once the process exited with ``exit_code``."""
        error = self._error
        if error is None and exit_code != 0:
            error = f"opencode exited with code {exit_code}" + (f": {stderr}" if stderr else "")
        return TurnFinished(
            text=self._answer.text(),
            is_error=error is not None,
            error=error,
            conversation_id=self._session_id,
            usage=self._usage,
            rate_limit=self._rate_limit if self._error is not None else None,
        )

    def _decode(self, items: list[NdjsonItem]) -> list[SessionEvent | OverlongLine]:
        out: list[SessionEvent | OverlongLine] = []
        for item in items:
            if isinstance(item, dict):
                out.extend(self._events(item))
            elif isinstance(item, OverlongLine):
                out.append(item)
        return out

    def _events(self, obj: JsonObject) -> list[SessionEvent]:
        session_id = _str(obj.get("sessionID"))
        if session_id:
            self._session_id = session_id
        kind = obj.get("type")
        part = _object(obj.get("part"))
        if kind == "text":
            text = _str(part.get("text"))
            if not text:
                return []
            self._answer.add(text)
            return [TextDelta(text)]
        if kind == "tool_use":
            self._answer.tool_called()
            state = _object(part.get("state"))
            tool_id = _str(part.get("callID")) or _str(part.get("id"))
            use = ToolUse(tool_id=tool_id, name=_str(part.get("tool")), input=state.get("input"))
            status = state.get("status")
            if status not in ("completed", "error"):
                return [use]
            is_error = status == "error"
            output = _str(state.get("error" if is_error else "output"))
            return [use, ToolResult(tool_id=tool_id, output=output, is_error=is_error)]
        if kind == "step_finish":
            step = opencode_step_usage(part)
            if step is not None:
                self._usage = step if self._usage is None else self._usage + step
        if kind == "error":
            error = _object(obj.get("error"))
            data = _object(error.get("data"))
            self._error = _str(data.get("message")) or _str(error.get("name")) or "the turn failed"
            self._rate_limit = opencode_rate_limit(error, self._now_ms())
        return []


def opencode_step_usage(part: JsonObject) -> Usage | None:
    """One ``step_finish`` part's tokens and cost (None when it carries no tokens)."""
    tokens = part.get("tokens")
    if not isinstance(tokens, dict):
        return None
    cache = _object(tokens.get("cache"))
    # Reasoning is billed as output; OpenCode counts it apart from ``output``.
    output = sum(Usage.of(output_tokens=tokens.get(k, 0)).output_tokens for k in _OUTPUTS)
    return Usage.of(
        tokens.get("input", 0),
        output,
        cache.get("read", 0),
        cache.get("write", 0),
        part.get("cost"),
    )


_OUTPUTS = ("output", "reasoning")


def opencode_rate_limit(error: JsonObject, now_ms: int) -> RateLimit | None:
    """The rate limit behind an ``error`` event's error, or None when no limit refused the turn."""
    data = _object(error.get("data"))
    message = _str(data.get("message")) or _str(error.get("name"))
    if data.get("statusCode") != 429 and not says_rate_limited(message):
        return None
    resets = retry_after_ms(data.get("responseHeaders"), now_ms) or reset_in_text(message, now_ms)
    return rate_limit(message, resets)


def _str(value: JsonValue) -> str:
    return value if isinstance(value, str) else ""


def _object(value: JsonValue) -> JsonObject:
    return value if isinstance(value, dict) else {}
