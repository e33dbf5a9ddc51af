"""Sans-I/O parser of ``opencode run --format json`` output, one parser per turn (one process).

``feed(bytes)`` turns stdout into session events; whatever the chunking, every complete line is
decoded exactly once, in order. Lines that are not JSON and event types it does not know
(``step_start``, ``step_finish``, ``reasoning``) are skipped. Every event names the session
(``sessionID``). The run has no closing event: the turn ends when the process exits, so
``finish(exit_code)`` makes the one ``TurnFinished``.

    text{part: {text}}                                  -> TextDelta (a whole text part)
    tool_use{part: {callID, tool, state: {status, input, output?, error?}}}
                                                        -> ToolUse, then ToolResult
    error{error: {name, data: {message}}}               -> remembered: the turn is an error

The final text joins the text parts; one written after a tool call starts on a new line.
"""

from __future__ import annotations

from idea.domain.json_types import JsonObject, JsonValue
from idea.domain.session_events import SessionEvent, TextDelta, ToolResult, ToolUse, TurnFinished
from idea.infrastructure.clis.answer_text import AnswerText
from idea.infrastructure.clis.ndjson import NdjsonDecoder, NdjsonItem


class OpenCodeStreamParser:
    def __init__(self) -> None:
        self._lines = NdjsonDecoder()
        self._answer = AnswerText()
        self._session_id: str | None = None
        self._error: str | None = None

    @property
    def session_id(self) -> str | None:
        return self._session_id

    def feed(self, data: bytes) -> list[SessionEvent]:
        return self._decode(self._lines.feed(data))

    def flush(self) -> list[SessionEvent]:
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
        )

    def _decode(self, items: list[NdjsonItem]) -> list[SessionEvent]:
        out: list[SessionEvent] = []
        for item in items:
            if isinstance(item, dict):
                out.extend(self._events(item))
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
        if kind == "error":
            error = _object(obj.get("error"))
            data = _object(error.get("data"))
            self._error = _str(data.get("message")) or _str(error.get("name")) or "the turn failed"
        return []


def _str(value: JsonValue) -> str:
    return value if isinstance(value, str) else ""


def _object(value: JsonValue) -> JsonObject:
    return value if isinstance(value, dict) else {}
