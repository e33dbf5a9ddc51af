"""The link between IdeA and ``idea host`` (DESIGN.md §16): msgpack maps in length-prefixed
frames, over any byte stream (an SSH channel, a subprocess's pipes, a Unix socket). The framing
and the msgpack options are the loopback protocol's (``idea.endpoint.loopback``); the link has
its own bound and reports what it cannot read as ``Invalid``.

Each side numbers the messages it wants delivered whatever happens to the link (``seq``):
requests from IdeA, answers and exits from the host. The receiver acknowledges them
(``ack``); until then the sender keeps them and sends them again after a reconnect, and the
receiver drops what it already had. Output and events are not kept: a re-attached view asks for
the scrollback instead. Everything read is checked: a frame too big, a map without its fields or
with the wrong types ends the link with ``Invalid`` (never a crash deeper in).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, Protocol

from idea.domain.errors import (
    AgentFailed,
    BudgetExceeded,
    Conflict,
    DepthExceeded,
    Forbidden,
    IdeaError,
    IdeaTimeout,
    Internal,
    Invalid,
    NotFound,
    RateLimited,
    Unavailable,
)
from idea.endpoint import loopback

VERSION = 1
MAX_FRAME = 16 * 1024 * 1024  # a scrollback (2 MiB) or a turn's event, with room to spare

Message = dict[str, Any]


class ByteReader(Protocol):
    async def readexactly(self, n: int) -> bytes: ...


class ByteWriter(Protocol):
    def write(self, data: bytes) -> object: ...

    async def drain(self) -> None: ...


def encode(message: Mapping[str, Any]) -> bytes:
    body = loopback.pack(dict(message))
    if len(body) > MAX_FRAME:
        raise Invalid(
            f"a {message.get('t')!r} message of {len(body)} bytes is over the link's bound"
        )
    return loopback.encode_frame(body)


async def read_message(reader: ByteReader) -> Message:
    """The next message; ``asyncio.IncompleteReadError`` at the end of the stream."""
    header = await reader.readexactly(loopback.HEADER_BYTES)
    try:
        body = await reader.readexactly(loopback.frame_length(header, MAX_FRAME))
        return loopback.unpack(body)
    except loopback.ProtocolError as exc:
        raise Invalid(f"the link read a bad frame: {exc}") from None


def field(message: Message, name: str, kind: type | tuple[type, ...]) -> Any:
    """``message[name]`` if it has the type; raises ``Invalid`` naming the field."""
    value = message.get(name)
    if isinstance(value, bool) and kind is int:
        value = None
    if not isinstance(value, kind):
        raise Invalid(
            f"link message {message.get('t')!r}: field '{name}' is missing or wrong", name
        )
    return value


def optional(message: Message, name: str, kind: type | tuple[type, ...]) -> Any:
    return None if message.get(name) is None else field(message, name, kind)


# The errors a host reports by code, rebuilt on IdeA's side as the same typed error.
_ERRORS: dict[str, type[IdeaError]] = {
    cls.code: cls
    for cls in (
        AgentFailed,
        BudgetExceeded,
        Conflict,
        DepthExceeded,
        Forbidden,
        IdeaTimeout,
        Internal,
        NotFound,
        Unavailable,
    )
}


def error_to_wire(exc: BaseException) -> Message:
    if isinstance(exc, IdeaError):
        return {"code": exc.code, "message": exc.message, "details": exc.details()}
    return {"code": Internal.code, "message": f"{type(exc).__name__}: {exc}"[:2000], "details": {}}


def error_from_wire(message: Message) -> IdeaError:
    code = message.get("code")
    text = message.get("message")
    text = text if isinstance(text, str) else "the host reported an error"
    details = message.get("details")
    details = details if isinstance(details, dict) else {}
    if code == RateLimited.code:
        resets = details.get("resets_at_ms")
        return RateLimited(
            text, int(resets) if isinstance(resets, str) and resets.isdigit() else None
        )
    if code == Invalid.code:
        name = details.get("field")
        return Invalid(text, name if isinstance(name, str) else None)
    return _ERRORS.get(code if isinstance(code, str) else "", Internal)(text)


async def send(writer: ByteWriter, message: Mapping[str, Any]) -> None:
    writer.write(encode(message))
    await writer.drain()


def is_end_of_stream(exc: BaseException) -> bool:
    return isinstance(exc, asyncio.IncompleteReadError | ConnectionError | BrokenPipeError)
