"""Loopback frames, sans I/O: whole, byte by byte, with a trailing partial frame."""

import pytest

from idea.endpoint import loopback

SIZES = [0, 1, 255, 256, 65535, 65536, 70000]


@pytest.mark.parametrize("size", SIZES)
def test_rpc_frame_is_encode_frame_of_rpc_and_rpc_data_reads_it_back(size):
    data = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    frame = loopback.rpc_frame(data)
    assert frame == loopback.encode_frame(loopback.rpc(data))
    assert loopback.rpc_data(frame[loopback.HEADER_BYTES :]) == data


@pytest.mark.parametrize(
    "payload",
    [
        loopback.welcome(),
        loopback.pack({"t": "rpc", "data": "text, not bytes"}),
        loopback.pack({"data": b"{}", "t": "rpc"}),  # another order: unpack it
        loopback.rpc(b"abc")[:-1],
        loopback.rpc(b"abc") + b"x",
    ],
)
def test_rpc_data_leaves_anything_else_to_unpack(payload):
    assert loopback.rpc_data(payload) is None


def test_a_line_too_large_for_a_frame_is_refused():
    with pytest.raises(loopback.ProtocolError):
        loopback.rpc_frame(b"x" * loopback.MAX_FRAME)


PAYLOADS = [b"", b"a", b"b" * 300, b"c" * 70000]
STREAM = b"".join(loopback.encode_frame(p) for p in PAYLOADS)


@pytest.mark.parametrize("step", [len(STREAM), 1, 3, 4096])
def test_frames_whatever_the_chunking(step):
    decoder = loopback.FrameDecoder()
    frames = []
    for start in range(0, len(STREAM), step):
        frames += decoder.feed(STREAM[start : start + step])
    assert frames == PAYLOADS


def test_a_trailing_partial_frame_waits_for_the_rest():
    decoder = loopback.FrameDecoder()
    frame = loopback.encode_frame(b"hello")
    assert decoder.feed(STREAM + frame[:2]) == PAYLOADS
    assert decoder.feed(frame[2:-1]) == []
    assert decoder.feed(frame[-1:]) == [b"hello"]


def test_an_oversized_frame_header_is_a_protocol_error():
    with pytest.raises(loopback.ProtocolError):
        loopback.FrameDecoder().feed(b"\xff\xff\xff\xff")
