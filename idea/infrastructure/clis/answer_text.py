"""A turn's final answer built from the text a per-turn CLI prints between its tool calls.

The parts are joined as the CLIs' own text output shows them: text written after a tool call
starts on a new line (Gemini CLI, OpenCode).
"""

from __future__ import annotations


class AnswerText:
    def __init__(self) -> None:
        self._segments: list[str] = [""]

    def add(self, text: str) -> None:
        self._segments[-1] += text

    def tool_called(self) -> None:
        self._segments.append("")

    def text(self) -> str:
        text = ""
        for segment in self._segments:
            if segment and text and not text.endswith("\n"):
                text += "\n"
            text += segment
        return text
