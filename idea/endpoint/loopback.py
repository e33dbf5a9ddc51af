"""The loopback protocol between ``idea mcp-server`` and the app (DESIGN.md §9.3), sans I/O.

Frames: a 4-byte big-endian length, then the payload. Authentication (mutual, with the agent's
own key as HMAC-SHA256 key: ``agent_key(project secret, agent id)``, so a bridge can only be the
agent it was declared for) before anything else:
    app    → bridge  nonce_a (32 bytes)
    bridge → app     nonce_b (32 bytes) + HMAC(key, "bridge" + nonce_a + nonce_b + agent) + agent
    app    → bridge  HMAC(key, "app" + nonce_b + nonce_a)       (or the connection is closed)
Then msgpack maps: bridge ``hello`` (naming that same agent) → app ``welcome`` | ``reject``; then
``rpc`` frames both ways, each carrying one JSON-RPC message as bytes. Stdlib + msgpack only: the
bridge imports this.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from typing import Any

import msgpack

VERSION = 2
NONCE_BYTES = 32
DIGEST_BYTES = 32
MAX_FRAME = 64 * 1024 * 1024
# Until the peer is authenticated and welcomed, a frame is a nonce, a proof or a hello: small. A
# stranger on the socket cannot make the app buffer more than this per connection.
PRE_AUTH_MAX_FRAME = 4096
_HEADER = struct.Struct(">I")
HEADER_BYTES = _HEADER.size


class ProtocolError(Exception):
    """The peer broke the protocol (bad frame, bad proof, unexpected message)."""


def encode_frame(payload: bytes) -> bytes:
    """The frame of ``payload``: its 4-byte big-endian length, then itself."""
    if len(payload) > MAX_FRAME:
        raise ProtocolError(f"frame of {len(payload)} bytes exceeds {MAX_FRAME}")
    return _HEADER.pack(len(payload)) + payload


def frame_length(header: bytes, limit: int = MAX_FRAME) -> int:
    (length,) = _HEADER.unpack(header)
    if length > limit:
        raise ProtocolError(f"frame of {length} bytes exceeds {limit}")
    return int(length)


class FrameDecoder:
    """Bytes in, complete frame payloads out, whatever the chunking; a frame that comes in many
    chunks is copied once, when complete."""

    def __init__(self, limit: int = MAX_FRAME) -> None:
        self._buffer = bytearray()
        self._need = HEADER_BYTES  # bytes the buffer must hold before anything can be decoded
        self.limit = limit  # the largest frame accepted (raised once the peer is trusted)

    def feed(self, data: bytes) -> list[bytes]:
        if self._buffer:
            self._buffer += data
            if len(self._buffer) < self._need:
                return []
            data = bytes(self._buffer)
            self._buffer.clear()
        frames = []
        start, size = 0, len(data)
        while size - start >= HEADER_BYTES:
            end = (
                start + HEADER_BYTES + frame_length(data[start : start + HEADER_BYTES], self.limit)
            )
            if end > size:
                break
            frames.append(data[start + HEADER_BYTES : end])
            start = end
        if start < size:
            self._buffer += memoryview(data)[start:]
            self._need = (
                HEADER_BYTES + frame_length(data[start : start + HEADER_BYTES], self.limit)
                if size - start >= HEADER_BYTES
                else HEADER_BYTES
            )
        return frames


def agent_key(project_secret: bytes, agent_id: str) -> bytes:
    """The key of one agent's bridges, derived from the project secret (held by the app only)."""
    return hmac.new(
        project_secret, b"idea agent key\0" + agent_id.encode("utf-8"), hashlib.sha256
    ).digest()


def bridge_proof(key: bytes, nonce_app: bytes, nonce_bridge: bytes, agent: str) -> bytes:
    """The bridge's proof frame: its nonce, the HMAC, then the agent it claims to be."""
    claim = agent.encode("utf-8")
    digest = hmac.new(key, b"bridge" + nonce_app + nonce_bridge + claim, hashlib.sha256).digest()
    return nonce_bridge + digest + claim


def read_bridge_proof(payload: bytes) -> tuple[bytes, bytes, str]:
    """(nonce_b, digest, agent) of a proof frame; raises ``ProtocolError``."""
    head = NONCE_BYTES + DIGEST_BYTES
    if len(payload) <= head:
        raise ProtocolError("malformed proof: no agent named")
    try:
        agent = payload[head:].decode("utf-8")
    except UnicodeDecodeError:
        raise ProtocolError("malformed proof: the agent is not UTF-8") from None
    return payload[:NONCE_BYTES], payload[NONCE_BYTES:head], agent


def bridge_digest(key: bytes, nonce_app: bytes, nonce_bridge: bytes, agent: str) -> bytes:
    return bridge_proof(key, nonce_app, nonce_bridge, agent)[
        NONCE_BYTES : NONCE_BYTES + DIGEST_BYTES
    ]


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
        raise ProtocolError("a message is a map with a 't' field")
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


def rpc_frame(data: bytes) -> bytes:
    """``encode_frame(rpc(data))`` in one step: the header and the msgpack map's fixed head are
    written around ``data`` with one copy of it."""
    if len(data) > MAX_FRAME - _RPC_OVERHEAD:
        raise ProtocolError(f"frame of {len(data) + _RPC_OVERHEAD} bytes exceeds {MAX_FRAME}")
    if len(data) < 0x100:
        head = _RPC_HEAD + b"\xc4" + bytes((len(data),))
    elif len(data) < 0x10000:
        head = _RPC_HEAD + b"\xc5" + len(data).to_bytes(2, "big")
    else:
        head = _RPC_HEAD + b"\xc6" + len(data).to_bytes(4, "big")
    return b"".join((_HEADER.pack(len(head) + len(data)), head, data))


def rpc_data(payload: bytes) -> bytes | None:
    """The ``data`` of an ``rpc`` message as ``rpc``/``rpc_frame`` write it, read without
    unpacking; None for any other payload (``unpack`` it)."""
    if not payload.startswith(_RPC_HEAD):
        return None
    start = len(_RPC_HEAD)
    kind = payload[start : start + 1]
    if kind == b"\xc4":
        size, start = payload[start + 1], start + 2
    elif kind == b"\xc5":
        size, start = int.from_bytes(payload[start + 1 : start + 3], "big"), start + 3
    elif kind == b"\xc6":
        size, start = int.from_bytes(payload[start + 1 : start + 5], "big"), start + 5
    else:
        return None
    return payload[start:] if len(payload) - start == size else None


_RPC_HEAD = pack({"t": "rpc", "data": b""})[:-2]  # the map up to the bin header of "data"
_RPC_OVERHEAD = len(_RPC_HEAD) + 5
