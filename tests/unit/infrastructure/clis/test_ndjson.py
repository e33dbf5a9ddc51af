"""The NDJSON splitter: the same items whatever the chunking, a bounded line, bounded memory."""

from __future__ import annotations

import json

import pytest

from idea.infrastructure.clis.ndjson import (
    MAX_LINE_BYTES,
    NdjsonDecoder,
    NdjsonItem,
    NonJsonLine,
    OverlongLine,
)

pytestmark = pytest.mark.timeout(60)

LIMIT = 64


def stream() -> bytes:
    lines = [
        json.dumps({"n": 1, "text": "héllo ✓"}).encode(),
        b"a banner, not JSON",
        b"",
        b"x" * 200,  # overlong
        json.dumps({"n": 2}).encode(),
        b"y" * (LIMIT + 1),  # overlong by one byte
        b"z" * LIMIT,  # exactly the limit: kept
        json.dumps({"n": 3}).encode(),
    ]
    return b"\n".join(lines) + b"\n" + b'{"n": 4}'  # the last line has no newline


def decode(chunks: list[bytes]) -> list[NdjsonItem]:
    decoder = NdjsonDecoder(max_line_bytes=LIMIT)
    items = [item for chunk in chunks for item in decoder.feed(chunk)]
    return items + decoder.flush()


def chunked(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


EXPECTED: list[NdjsonItem] = [
    {"n": 1, "text": "héllo ✓"},
    NonJsonLine("a banner, not JSON"),
    OverlongLine(LIMIT, 200),
    {"n": 2},
    OverlongLine(LIMIT, LIMIT + 1),
    NonJsonLine("z" * LIMIT),
    {"n": 3},
    {"n": 4},
]


@pytest.mark.parametrize("size", [1, 2, 3, 7, 63, 64, 65, 200, 10_000])
def test_any_chunking_gives_the_same_items(size: int):
    assert decode(chunked(stream(), size)) == EXPECTED


def test_a_stream_given_whole_gives_the_same_items():
    assert decode([stream()]) == EXPECTED


def test_an_overlong_line_gives_one_item_and_the_next_line_decodes():
    decoder = NdjsonDecoder(max_line_bytes=LIMIT)
    items = decoder.feed(b"w" * 1000)
    items += decoder.feed(b"w" * 1000)
    assert items == []  # no item until the line ends
    assert decoder.feed(b'w\n{"after": true}\n') == [OverlongLine(LIMIT, 2001), {"after": True}]


def test_an_overlong_last_line_without_newline_is_reported_at_flush():
    decoder = NdjsonDecoder(max_line_bytes=LIMIT)
    assert decoder.feed(b"v" * 100) == []
    assert decoder.flush() == [OverlongLine(LIMIT, 100)]
    assert decoder.flush() == []


def test_memory_stays_bounded_by_the_limit_whatever_the_line_length():
    limit, chunk = 1024 * 1024, b"q" * (64 * 1024)
    decoder = NdjsonDecoder(max_line_bytes=limit)
    most = 0
    for _ in range(50 * 16):  # a 50 MiB line
        assert decoder.feed(chunk) == []
        most = max(most, decoder.held_bytes)
    assert most <= limit + len(chunk)
    assert decoder.feed(b"\n") == [OverlongLine(limit, 50 * 1024 * 1024)]
    assert decoder.held_bytes == 0


def test_a_long_line_within_the_limit_is_decoded_whole():
    text = "é" * 300_000
    line = json.dumps({"text": text}, ensure_ascii=False).encode() + b"\n"
    assert decode_default(chunked(line, 65536)) == [{"text": text}]


def decode_default(chunks: list[bytes]) -> list[NdjsonItem]:
    decoder = NdjsonDecoder()
    return [item for chunk in chunks for item in decoder.feed(chunk)] + decoder.flush()


def test_the_default_limit_is_eight_mebibytes():
    assert MAX_LINE_BYTES == 8 * 1024 * 1024
