"""The link's framing is the loopback protocol's: a frame the one writes, the other reads; what
the link cannot read (too big, not msgpack, not a message) ends it with ``Invalid``."""

from __future__ import annotations

import asyncio

import msgpack
import pytest

from idea.domain.errors import Invalid
from idea.endpoint import loopback
from idea.infrastructure.remote import wire

pytestmark = pytest.mark.timeout(10)


async def read(data: bytes) -> wire.Message:
    reader = asyncio.StreamReader()
    reader.feed_data(data)
    reader.feed_eof()
    return await wire.read_message(reader)


async def test_a_message_round_trips_in_the_loopback_framing() -> None:
    message = {"t": "out", "sid": "s1", "data": b"\x00\xff", "seq": 3}
    frame = wire.encode(message)
    assert loopback.FrameDecoder().feed(frame) == [loopback.pack(message)]
    assert await read(frame) == message


@pytest.mark.parametrize(
    "frame",
    [
        (wire.MAX_FRAME + 1).to_bytes(4, "big"),
        loopback.encode_frame(b"\xc1"),
        loopback.encode_frame(msgpack.packb([1, 2])),
        loopback.encode_frame(msgpack.packb({"t": 1})),
        loopback.encode_frame(msgpack.packb({1: "x"})),
    ],
    ids=["over-the-bound", "not-msgpack", "not-a-map", "type-not-text", "key-not-text"],
)
async def test_what_the_link_cannot_read_is_invalid(frame: bytes) -> None:
    with pytest.raises(Invalid):
        await read(frame)


def test_a_message_over_the_bound_is_not_sent() -> None:
    with pytest.raises(Invalid):
        wire.encode({"t": "out", "data": b"x" * wire.MAX_FRAME})


async def test_the_end_of_the_stream_is_an_incomplete_read() -> None:
    with pytest.raises(asyncio.IncompleteReadError):
        await read(wire.encode({"t": "ack", "seq": 1})[:-1])
