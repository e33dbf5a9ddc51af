"""Sans-I/O splitter of newline-delimited JSON: bytes in, decoded objects out.

``feed`` never loses or duplicates a line whatever the chunking; a line split across chunks is held
until its newline arrives. Lines that are not a JSON object come out as ``NonJsonLine`` (CLIs print
banners and warnings), never as an exception. The cost is linear in the input: each byte is
scanned for a newline once. At most ``max_line_bytes`` of a line are held; a longer line is
dropped up to its newline and comes out as one ``OverlongLine``, so memory stays bounded whatever
a CLI prints.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from idea.domain.json_types import JsonObject

# The longest line a CLI may print (a whole reply can be one line: Claude's ``result``).
MAX_LINE_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class NonJsonLine:
    text: str


@dataclass(frozen=True, slots=True)
class OverlongLine:
    """A line longer than ``limit`` bytes: ``seen_bytes`` of it were read and dropped."""

    limit: int
    seen_bytes: int


NdjsonItem = JsonObject | NonJsonLine | OverlongLine


class NdjsonDecoder:
    def __init__(self, max_line_bytes: int = MAX_LINE_BYTES) -> None:
        self._limit = max_line_bytes
        self._pending = bytearray()  # the start of the current line: no newline, at most limit
        self._dropped: int | None = None  # bytes of an overlong current line, once it is one

    @property
    def held_bytes(self) -> int:
        """How much of an unfinished line is held (never more than the limit)."""
        return len(self._pending)

    def feed(self, data: bytes) -> list[NdjsonItem]:
        out: list[NdjsonItem] = []
        start = 0
        while (end := data.find(b"\n", start)) >= 0:
            item = self._line_end(data, start, end)
            if item is not None:
                out.append(item)
            start = end + 1
        self._hold(data, start)
        return out

    def flush(self) -> list[NdjsonItem]:
        """The last line if the stream ended without a newline."""
        item = self._line_end(b"", 0, 0)
        return [] if item is None else [item]

    def _line_end(self, data: bytes, start: int, end: int) -> NdjsonItem | None:
        """The item of the line that ends at ``data[end]`` (its start may be held already)."""
        size = len(self._pending) + end - start
        if self._dropped is not None:
            seen, self._dropped = self._dropped + end - start, None
            return OverlongLine(self._limit, seen)
        if size > self._limit:
            self._pending.clear()
            return OverlongLine(self._limit, size)
        if self._pending:
            self._pending += data[start:end]
            line = bytes(self._pending)
            self._pending.clear()
        else:
            line = data[start:end]
        return _decode(line)

    def _hold(self, data: bytes, start: int) -> None:
        rest = len(data) - start
        if self._dropped is not None:
            self._dropped += rest
        elif len(self._pending) + rest > self._limit:
            self._dropped = len(self._pending) + rest
            self._pending.clear()
        elif rest:
            self._pending += data[start:]


def _decode(line: bytes) -> NdjsonItem | None:
    text = line.decode("utf-8", errors="replace").strip()
    if not text:
        return None
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return NonJsonLine(text)
    return value if isinstance(value, dict) else NonJsonLine(text)


def encode_line(obj: JsonObject) -> bytes:
    """One JSON object as one line (no raw newline can occur inside: JSON escapes them)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
