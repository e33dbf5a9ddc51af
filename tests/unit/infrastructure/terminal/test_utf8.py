from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from idea.infrastructure.terminal.utf8 import Utf8Stream

MIXED = "a é ✓ 中 🙂 z"  # 1, 2, 3, 3 and 4 byte characters


def decode_in_chunks(data: bytes, cuts: list[int]) -> list[str]:
    stream = Utf8Stream()
    bounds = [0, *sorted(c % (len(data) + 1) for c in cuts), len(data)]
    parts = [stream.feed(data[a:b]) for a, b in itertools.pairwise(bounds)]
    return [*parts, stream.flush()]


def test_whole_input():
    stream = Utf8Stream()
    assert stream.feed(MIXED.encode()) + stream.flush() == MIXED


def test_byte_by_byte_never_splits_a_character():
    stream = Utf8Stream()
    parts = [stream.feed(bytes([b])) for b in MIXED.encode()]
    assert "".join(parts) == MIXED
    assert all(p == "" or p in MIXED for p in parts)
    assert stream.flush() == ""


def test_a_trailing_partial_character_waits_then_flushes_as_replacement():
    stream = Utf8Stream()
    assert stream.feed("ok🙂".encode()[:-2]) == "ok"
    assert stream.flush() == "\ufffd"
    assert stream.feed(b"next") == "next"  # usable again after a flush


def test_invalid_bytes_are_replaced_never_raised():
    stream = Utf8Stream()
    assert stream.feed(b"a\xffb\xc0\x80c") + stream.flush() == "a\ufffdb\ufffd\ufffdc"


@given(st.text(), st.lists(st.integers(min_value=0)))
def test_any_chunking_of_text_equals_the_whole_decode(text, cuts):
    data = text.encode("utf-8")
    parts = decode_in_chunks(data, cuts)
    assert "".join(parts) == text
    assert "\ufffd" not in "".join(parts) or "\ufffd" in text


@given(st.binary(), st.lists(st.integers(min_value=0)))
def test_any_chunking_of_any_bytes_equals_the_whole_replace_decode(data, cuts):
    assert "".join(decode_in_chunks(data, cuts)) == data.decode("utf-8", "replace")
