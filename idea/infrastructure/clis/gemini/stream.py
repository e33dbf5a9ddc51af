"""Sans-I/O parser of Gemini CLI's stream-json output (protocols/AGENT_CLI_PROTOCOLS.md §C).

One parser per turn (Gemini runs one process per turn). ``feed(bytes)`` turns stdout into session
events; whatever the chunking, every complete line is decoded exactly once, in order, and the
turn's ``TurnFinished`` comes out exactly once, on the ``result`` line. Lines that are not JSON
and event types it does not know are skipped: only the fields read here are relied on.

    init{session_id, model}                -> GeminiInit
    message{role: "assistant", content}    -> TextDelta (the user echo is dropped)
    tool_use{tool_id, tool_name, parameters}   -> ToolUse
    tool_result{tool_id, status, output?, error?} -> ToolResult
    error{severity, message}               -> GeminiNotice (never ends the turn)
    result{status, error?}                 -> TurnFinished
    a line too long                        -> OverlongLine (the decoder dropped it)

The final text joins the assistant deltas; text written after a tool call starts on a new line,
as the CLI's own text output does; it is bounded by ``answer`` (``answer_text``). An error
``result`` without an ``error`` field takes its message from the last ``error`` event of severity
``error`` (the CLI reports an invalid model stream that way).

Usage is the run's ``result.stats`` (one process per turn, so the turn's): ``input_tokens``
counts the cached tokens too, ``input`` does not. A refused request (0.61.0, observed): the CLI
classifies a 429 ``RESOURCE_EXHAUSTED`` as a terminal quota error and ends at once with
``result{status: "error", error: {message: "[API Error: You have exhausted your daily quota on
this model.]…"}}``, or with the API's own words when they say ``limit: 0`` or hold a delay beyond
its retry budget ("… Please retry in 3600s."); ``gemini_rate_limit`` reads that. A shorter delay
it waits out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from idea.domain.json_types import JsonObject, JsonValue
from idea.domain.session_events import SessionEvent, TextDelta, ToolResult, ToolUse, TurnFinished
from idea.domain.usage import RateLimit, Usage
from idea.infrastructure.clis.answer_text import AnswerText
from idea.infrastructure.clis.ndjson import NdjsonDecoder, NdjsonItem, OverlongLine
from idea.infrastructure.clis.rate_limits import rate_limit, reset_in_text, says_rate_limited
from idea.infrastructure.processes.system import SystemClock


@dataclass(frozen=True, slots=True)
class GeminiInit:
    """The session id of this run: the one passed with ``--session-id`` or ``--resume``."""

    session_id: str
    model: str | None = None


@dataclass(frozen=True, slots=True)
class GeminiNotice:
    """An ``error`` event; ``severity`` is ``"warning"`` or ``"error"``, neither ends the turn."""

    severity: str
    message: str


GeminiItem = SessionEvent | GeminiInit | GeminiNotice | OverlongLine


class GeminiStreamParser:
    """``now_ms``: the clock a relative reset time ("retry in 33s") is counted from;
    ``answer``: what builds the final text (default: cut at the cap, not kept)."""

    def __init__(
        self, now_ms: Callable[[], int] | None = None, answer: AnswerText | None = None
    ) -> None:
        self._now_ms = now_ms or SystemClock().now_ms
        self._lines = NdjsonDecoder()
        self._answer = answer if answer is not None else AnswerText()
        self._session_id: str | None = None
        self._last_error: str | None = None
        self._finished = False

    @property
    def session_id(self) -> str | None:
        return self._session_id

    @property
    def finished(self) -> bool:
        """The ``result`` line was seen."""
        return self._finished

    def feed(self, data: bytes) -> list[GeminiItem]:
        return self._decode(self._lines.feed(data))

    def flush(self) -> list[GeminiItem]:
        """What a last line without a newline holds (call once the stream has ended)."""
        return self._decode(self._lines.flush())

    def _decode(self, items: list[NdjsonItem]) -> list[GeminiItem]:
        out: list[GeminiItem] = []
        for item in items:
            if isinstance(item, OverlongLine) and not self._finished:
                out.append(item)
            elif isinstance(item, dict) and not self._finished:
                event = self._event(item)
                if event is not None:
                    out.append(event)
        return out

    def _event(self, obj: JsonObject) -> GeminiItem | None:
        kind = obj.get("type")
        if kind == "init":
            session_id = _str(obj.get("session_id"))
            if not session_id:
                return None
            self._session_id = session_id
            return GeminiInit(session_id, _str(obj.get("model")) or None)
        if kind == "message":
            content = _str(obj.get("content"))
            if obj.get("role") != "assistant" or not content:
                return None
            self._answer.add(content)
            return TextDelta(content)
        if kind == "tool_use":
            self._answer.tool_called()
            return ToolUse(
                tool_id=_str(obj.get("tool_id")),
                name=_str(obj.get("tool_name")),
                input=obj.get("parameters"),
            )
        if kind == "tool_result":
            is_error = obj.get("status") == "error"
            output = _str(obj.get("output")) or (_message(obj.get("error")) if is_error else "")
            return ToolResult(tool_id=_str(obj.get("tool_id")), output=output, is_error=is_error)
        if kind == "error":
            severity = _str(obj.get("severity")) or "error"
            message = _str(obj.get("message"))
            if severity == "error" and message:
                self._last_error = message
            return GeminiNotice(severity, message)
        if kind == "result":
            self._finished = True
            is_error = obj.get("status") != "success"
            error = None
            if is_error:
                error = _message(obj.get("error")) or self._last_error or "the turn failed"
            return TurnFinished(
                text=self._answer.text(),
                is_error=is_error,
                error=error,
                conversation_id=self._session_id,
                usage=gemini_usage(obj.get("stats")),
                rate_limit=None if error is None else gemini_rate_limit(error, self._now_ms()),
            )
        return None


def gemini_usage(stats: JsonValue) -> Usage | None:
    """A run's ``result.stats`` as usage (None when the result has none)."""
    if not isinstance(stats, dict):
        return None
    cached = Usage.of(cache_read_tokens=stats.get("cached", 0)).cache_read_tokens
    fresh = stats.get("input")
    if isinstance(fresh, bool) or not isinstance(fresh, int):
        prompt = Usage.of(input_tokens=stats.get("input_tokens", 0)).input_tokens
        fresh = max(0, prompt - cached)
    return Usage.of(fresh, stats.get("output_tokens", 0), cached)


def gemini_rate_limit(error: str, now_ms: int) -> RateLimit | None:
    """The rate limit behind an error result's message, or None when no limit refused it."""
    if not says_rate_limited(error):
        return None
    return rate_limit(error, reset_in_text(error, now_ms))


def _str(value: JsonValue) -> str:
    return value if isinstance(value, str) else ""


def _message(value: JsonValue) -> str:
    """The text of an ``error`` field: ``{type, message}`` or a plain string."""
    if isinstance(value, dict):
        return _str(value.get("message")) or _str(value.get("type"))
    return _str(value)
