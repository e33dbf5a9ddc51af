"""Sans-I/O splitter of newline-delimited JSON: bytes in, decoded objects out.

``feed`` never loses or duplicates a line whatever the chunking; a line split across chunks is held
until its newline arrives. Lines that are not a JSON object come out as ``NonJsonLine`` (CLIs print
banners and warnings), never as an exception.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from idea.domain.json_types import JsonObject


@dataclass(frozen=True, slots=True)
class NonJsonLine:
    text: str


NdjsonItem = JsonObject | NonJsonLine


class NdjsonDecoder:
    def __init__(self) -> None:
        self._pending = bytearray()

    def feed(self, data: bytes) -> list[NdjsonItem]:
        self._pending += data
        *complete, rest = self._pending.split(b"\n")
        self._pending = bytearray(rest)
        return [item for line in complete if (item := _decode(bytes(line))) is not None]

    def flush(self) -> list[NdjsonItem]:
        """The last line if the stream ended without a newline."""
        line, self._pending = bytes(self._pending), bytearray()
        item = _decode(line)
        return [] if item is None else [item]


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
