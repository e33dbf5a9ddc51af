"""A ring buffer of terminal output bounded in bytes, replayed into re-attached views.

Invariant: ``size <= max_bytes`` after every ``append``, and ``snapshot()`` is the tail of all
bytes ever appended (the most recent ``size`` bytes) minus at most 3 leading UTF-8 continuation
bytes, so a replay never starts in the middle of a character.
"""

from __future__ import annotations

from collections import deque

from idea.domain.errors import Invalid

__all__ = ["Scrollback"]

# A UTF-8 character has at most 3 continuation bytes; more than that is not text anyway.
_MAX_CONTINUATION = 3


def _is_continuation(byte: int) -> bool:
    return byte & 0xC0 == 0x80


class Scrollback:
    """Amortised O(1) append: whole chunks are dropped, the oldest one is cut by an offset."""

    def __init__(self, max_bytes: int) -> None:
        if max_bytes < 1:
            raise Invalid(f"scrollback size must be at least 1 byte, got {max_bytes}")
        self._max = max_bytes
        self._chunks: deque[bytes] = deque()
        # Bytes of the oldest chunk already dropped; cutting by offset avoids re-copying it.
        self._head_offset = 0
        self._size = 0

    @property
    def max_bytes(self) -> int:
        return self._max

    @property
    def size(self) -> int:
        """Bytes held (before the character-boundary trim of ``snapshot``)."""
        return self._size

    def append(self, data: bytes) -> None:
        if not data:
            return
        if len(data) >= self._max:
            self._chunks.clear()
            self._chunks.append(bytes(data[-self._max :]))
            self._head_offset = 0
            self._size = self._max
            return
        self._chunks.append(bytes(data))
        self._size += len(data)
        self._trim()

    def _trim(self) -> None:
        excess = self._size - self._max
        while excess > 0:
            head_left = len(self._chunks[0]) - self._head_offset
            if head_left <= excess:
                self._chunks.popleft()
                self._head_offset = 0
                self._size -= head_left
                excess -= head_left
            else:
                self._head_offset += excess
                self._size -= excess
                excess = 0

    def snapshot(self) -> bytes:
        """The most recent bytes, starting at a character boundary."""
        if not self._chunks:
            return b""
        data = b"".join(self._chunks)[self._head_offset :]
        start = 0
        while start < min(len(data), _MAX_CONTINUATION) and _is_continuation(data[start]):
            start += 1
        return data[start:]

    def clear(self) -> None:
        self._chunks.clear()
        self._head_offset = 0
        self._size = 0
