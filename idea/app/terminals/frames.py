"""The binary frames a terminal view receives, and their items.

A frame is: kind (1 byte), attach id length (2 bytes, big endian), attach id, text; ids and text
are UTF-8. ``OUTPUT`` appends to the terminal; ``RESYNC`` and ``SCREEN`` reset it first, then write
their text: the scrollback (the server's history of the terminal) or only its current screen (the
view then knows its history is on the server, to ask for with ``terminal.history``).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

OUTPUT = 1
RESYNC = 2
SCREEN = 3

_ID_LENGTH = struct.Struct(">H")


@dataclass(frozen=True, slots=True)
class Message:
    """A JSON text frame (already serialised)."""

    text: str


@dataclass(frozen=True, slots=True)
class Output:
    attach_id: str
    text: str


@dataclass(frozen=True, slots=True)
class Resync:
    """The view resets the terminal and writes ``text``: the scrollback."""

    attach_id: str
    text: str


@dataclass(frozen=True, slots=True)
class Screen:
    """The view resets the terminal and writes ``text``: the current screen, modes and cursor."""

    attach_id: str
    text: str


Frame = Output | Resync | Screen
Item = Message | Frame
_KINDS: dict[type[Frame], int] = {Output: OUTPUT, Resync: RESYNC, Screen: SCREEN}
_ITEMS: dict[int, type[Frame]] = {kind: item for item, kind in _KINDS.items()}


def encode_frame(item: Frame) -> bytes:
    attach = item.attach_id.encode("utf-8")
    return bytes((_KINDS[type(item)],)) + _ID_LENGTH.pack(len(attach)) + attach + item.text.encode()


def decode_frame(frame: bytes) -> Frame:
    """The inverse of ``encode_frame`` (tests and tools); raises ``ValueError`` on a bad frame."""
    if len(frame) < 1 + _ID_LENGTH.size or frame[0] not in _ITEMS:
        raise ValueError("not a terminal frame")
    (length,) = _ID_LENGTH.unpack_from(frame, 1)
    start = 1 + _ID_LENGTH.size
    attach = frame[start : start + length].decode("utf-8")
    return _ITEMS[frame[0]](attach, frame[start + length :].decode("utf-8"))


def utf8_size(text: str) -> int:
    # str.isascii() is O(1) in CPython: most output is ASCII and needs no encoding to count.
    return len(text) if text.isascii() else len(text.encode("utf-8"))
