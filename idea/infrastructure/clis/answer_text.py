"""A turn's final answer built from the text a CLI prints, bounded (DESIGN.md §18).

The parts are joined as the CLIs' own text output shows them: text written after a tool call
starts on a new line (Gemini CLI, OpenCode). At most ``cap_bytes`` of UTF-8 are kept, cut on a
character boundary; past the cap the whole text (the kept part included) goes to a ``ReplySpill``
as it comes, and the answer ends with one line saying how much was cut and where the whole text
is. Memory stays O(cap) whatever the length; adding costs time linear in the text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from idea.domain.errors import IdeaError

REPLY_CAP_BYTES = 1024 * 1024


class ReplySpill(Protocol):
    """Where the whole text of a cut reply is written, in order."""

    @property
    def where(self) -> str:
        """What the cut line names (a path)."""
        ...

    def write(self, text: str) -> None:
        """Raises ``IdeaError`` (``Internal``) if it cannot be written."""
        ...

    def close(self) -> None: ...


# Opens the spill of one reply; raises ``IdeaError`` if it cannot.
SpillOpener = Callable[[], ReplySpill]


class AnswerText:
    def __init__(self, cap_bytes: int = REPLY_CAP_BYTES, spill: SpillOpener | None = None) -> None:
        self._cap = cap_bytes
        self._open_spill = spill
        self._parts: list[str] = []
        self._kept = 0  # bytes in ``_parts``
        self._cut = 0  # bytes past the cap
        self._spill: ReplySpill | None = None
        self._spill_error: str | None = None
        self._where: str | None = None
        self._empty = True
        self._ends_with_newline = False
        self._new_segment = False

    @property
    def cut_bytes(self) -> int:
        """How many bytes of the text are not kept (0: the whole text is)."""
        return self._cut

    def add(self, text: str) -> None:
        if not text:
            return
        if self._new_segment:
            self._new_segment = False
            if not self._empty and not self._ends_with_newline:
                self._append("\n")
        self._append(text)

    def tool_called(self) -> None:
        self._new_segment = True

    def text(self) -> str:
        """The kept text, ending with the cut line if it was cut (ends the spill)."""
        self._close_spill()
        head = "".join(self._parts)
        if not self._cut:
            return head
        separator = "" if not head or head.endswith("\n") else "\n"
        return head + separator + cut_line(self._cut, self._where, self._spill_error)

    # --- internals ----------------------------------------------------------------------------

    def _append(self, piece: str) -> None:
        self._empty = False
        self._ends_with_newline = piece.endswith("\n")
        data = piece.encode("utf-8", "surrogatepass")
        if self._cut:
            self._cut += len(data)
            self._write(piece)
            return
        if self._kept + len(data) <= self._cap:
            self._parts.append(piece)
            self._kept += len(data)
            return
        head = utf8_head(data, self._cap - self._kept)
        self._parts.append(head)
        kept = len(head.encode("utf-8", "surrogatepass"))
        self._kept += kept
        self._cut = len(data) - kept
        self._start_spill()
        self._write(piece[len(head) :])

    def _start_spill(self) -> None:
        if self._open_spill is None:
            return
        try:
            self._spill = self._open_spill()
        except IdeaError as exc:
            self._spill_error = exc.message
            return
        self._where = self._spill.where
        self._write("".join(self._parts))

    def _write(self, text: str) -> None:
        if self._spill is None:
            return
        try:
            self._spill.write(text)
        except IdeaError as exc:
            self._spill_error, self._where = exc.message, None
            self._close_spill()

    def _close_spill(self) -> None:
        spill, self._spill = self._spill, None
        if spill is not None:
            try:
                spill.close()
            except IdeaError as exc:
                self._spill_error, self._where = exc.message, None


def utf8_head(data: bytes, room: int) -> str:
    """The longest prefix of ``data`` (UTF-8 of a text) that fits in ``room`` bytes, as text."""
    head = data[: max(0, room)]
    while True:  # a character is at most 4 bytes: at most 3 rounds
        try:
            return head.decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:
            head = head[:-1]


def cut_line(cut_bytes: int, where: str | None, error: str | None = None) -> str:
    """The line that ends a cut reply: how much is not shown and where the whole text is."""
    line = f"[reply cut: {size_text(cut_bytes)} more not shown"
    if where is not None:
        return f"{line}; the whole reply is in {where}]"
    if error is not None:
        return f"{line}; the whole reply could not be kept: {error}]"
    return line + "]"


def size_text(size: int) -> str:
    """``199.0 MiB``, ``12.5 KiB``, ``300 bytes``."""
    if size >= 1024 * 1024:
        return f"{size / (1024 * 1024):.1f} MiB"
    if size >= 1024:
        return f"{size / 1024:.1f} KiB"
    return f"{size} bytes"
