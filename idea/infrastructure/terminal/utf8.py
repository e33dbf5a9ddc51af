"""Sans-I/O incremental UTF-8 decoding of a byte stream (PTY output).

Invariant: the concatenation of every ``feed`` result followed by ``flush`` equals
``b"".join(chunks).decode("utf-8", "replace")`` whatever the chunking; a character split across
chunks is held back until complete, and invalid bytes become U+FFFD instead of raising.
"""

from __future__ import annotations

import codecs

__all__ = ["Utf8Stream"]

_DecoderFactory = codecs.getincrementaldecoder("utf-8")


class Utf8Stream:
    """Bytes in, complete characters out; holds at most 3 bytes of an unfinished character."""

    def __init__(self) -> None:
        self._decoder = _DecoderFactory(errors="replace")

    def feed(self, data: bytes) -> str:
        """Decode ``data``; a trailing incomplete character waits for the next chunk."""
        return self._decoder.decode(data, final=False)

    def flush(self) -> str:
        """End of stream: what is still held back is decoded (an unfinished character → U+FFFD)."""
        text = self._decoder.decode(b"", final=True)
        self._decoder.reset()
        return text
