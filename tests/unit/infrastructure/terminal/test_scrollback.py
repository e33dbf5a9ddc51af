from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from idea.domain.errors import Invalid
from idea.infrastructure.terminal.scrollback import Scrollback


def boundary_trimmed(data: bytes) -> bytes:
    start = 0
    while start < min(3, len(data)) and data[start] & 0xC0 == 0x80:
        start += 1
    return data[start:]


def test_keeps_everything_under_the_bound():
    ring = Scrollback(100)
    ring.append(b"hello ")
    ring.append(b"world")
    assert ring.snapshot() == b"hello world"
    assert ring.size == 11


def test_bounded_in_bytes_not_chunks():
    ring = Scrollback(10)
    for _ in range(1000):
        ring.append(b"abc")
    assert ring.size == 10
    assert ring.snapshot() == b"cabcabcabc"


def test_a_chunk_larger_than_the_bound_keeps_its_tail():
    ring = Scrollback(4)
    ring.append(b"0123456789")
    assert ring.snapshot() == b"6789"
    assert ring.size == 4


def test_snapshot_starts_at_a_character_boundary():
    ring = Scrollback(4)
    ring.append("a🙂b".encode())  # 61 f0 9f 99 82 62: the cut lands inside the emoji
    assert ring.size == 4
    assert ring.snapshot() == b"b"
    ring.append("é".encode())  # 99 82 62 c3 a9: still inside the emoji
    assert ring.snapshot() == "bé".encode()


def test_clear_and_empty():
    ring = Scrollback(8)
    assert ring.snapshot() == b""
    ring.append(b"")
    assert ring.size == 0
    ring.append(b"abc")
    ring.clear()
    assert (ring.size, ring.snapshot()) == (0, b"")


@pytest.mark.parametrize("size", [0, -1])
def test_bound_must_be_positive(size):
    with pytest.raises(Invalid):
        Scrollback(size)


@given(st.integers(min_value=1, max_value=64), st.lists(st.binary(max_size=40), max_size=50))
def test_snapshot_is_the_tail_of_everything_appended(bound, chunks):
    ring = Scrollback(bound)
    everything = b""
    for chunk in chunks:
        ring.append(chunk)
        everything += chunk
        assert ring.size <= bound
        assert ring.size == min(bound, len(everything))
    assert ring.snapshot() == boundary_trimmed(everything[-bound:])


@given(st.integers(min_value=4, max_value=64), st.lists(st.text(max_size=20), max_size=40))
def test_snapshot_of_text_always_decodes(bound, texts):
    ring = Scrollback(bound)
    for text in texts:
        ring.append(text.encode())
    ring.snapshot().decode("utf-8", "strict")  # whole characters were appended
