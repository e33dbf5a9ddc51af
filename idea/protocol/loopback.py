"""The loopback protocol between ``idea mcp-server`` and the app (DESIGN.md §9.3), sans I/O.

Frames: a 4-byte big-endian length, then the payload. Authentication (mutual, with the project
secret as HMAC-SHA256 key) before anything else:
    app    → bridge  nonce_a (32 bytes)
    bridge → app     nonce_b (32 bytes) + HMAC(key, "bridge" + nonce_a + nonce_b)
    app    → bridge  HMAC(key, "app" + nonce_b + nonce_a)       (or the connection is closed)
Then msgpack maps: bridge ``hello`` → app ``welcome`` | ``reject``; then ``rpc`` frames both ways,
each carrying one JSON-RPC message as bytes. Stdlib + msgpack only: the bridge imports this.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from typing import Any

import msgpack

VERSION = 1
NONCE_BYTES = 32
DIGEST_BYTES = 32
MAX_FRAME = 64 * 1024 * 1024
_HEADER = struct.Struct(">I")
HEADER_BYTES = _HEADER.size


class ProtocolError(Exception):
    """The peer broke the protocol (bad frame, bad proof, unexpected message)."""


def encode_frame(payload: bytes) -> bytes:
    if len(payload) > MAX_FRAME:
        raise ProtocolError(f"frame of {len(payload)} bytes exceeds {MAX_FRAME}")
    return _HEADER.pack(len(payload)) + payload


def frame_length(header: bytes) -> int:
    (length,) = _HEADER.unpack(header)
    if length > MAX_FRAME:
        raise ProtocolError(f"frame of {length} bytes exceeds {MAX_FRAME}")
    return int(length)


class FrameDecoder:
    """Bytes in, complete frame payloads out, whatever the chunking."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        self._buffer += data
        frames = []
        while len(self._buffer) >= HEADER_BYTES:
            length = frame_length(bytes(self._buffer[:HEADER_BYTES]))
            end = HEADER_BYTES + length
            if len(self._buffer) < end:
                break
            frames.append(bytes(self._buffer[HEADER_BYTES:end]))
            del self._buffer[:end]
        return frames


def bridge_proof(key: bytes, nonce_app: bytes, nonce_bridge: bytes) -> bytes:
    return hmac.new(key, b"bridge" + nonce_app + nonce_bridge, hashlib.sha256).digest()


def app_proof(key: bytes, nonce_app: bytes, nonce_bridge: bytes) -> bytes:
    return hmac.new(key, b"app" + nonce_bridge + nonce_app, hashlib.sha256).digest()


def proofs_match(expected: bytes, received: bytes) -> bool:
    return hmac.compare_digest(expected, received)


def pack(message: dict[str, Any]) -> bytes:
    return msgpack.packb(message, use_bin_type=True)  # type: ignore[no-any-return]


def unpack(payload: bytes) -> dict[str, Any]:
    try:
        message = msgpack.unpackb(payload, raw=False)
    except Exception as exc:  # msgpack raises several unrelated types
        raise ProtocolError(f"not a msgpack message: {exc}") from exc
    if not isinstance(message, dict) or not isinstance(message.get("t"), str):
        raise ProtocolError("a loopback message is a map with a 't' field")
    return message


def hello(project: str, requester: str, pid: int) -> bytes:
    return pack(
        {"t": "hello", "v": VERSION, "project": project, "requester": requester, "pid": pid}
    )


def welcome() -> bytes:
    return pack({"t": "welcome", "v": VERSION})


def reject(code: str, message: str) -> bytes:
    return pack({"t": "reject", "code": code, "message": message})


def rpc(data: bytes) -> bytes:
    return pack({"t": "rpc", "data": data})
