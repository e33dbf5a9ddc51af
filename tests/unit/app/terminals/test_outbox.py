"""The outbox of one UI client: order, coalescing per terminal, and the bound on a slow client.

The clock is a number passed to ``next``; nothing here sleeps.
"""

import asyncio

import pytest

from idea.app.terminals.frames import (
    OUTPUT,
    RESYNC,
    Message,
    Output,
    Resync,
    decode_frame,
    encode_frame,
)
from idea.app.terminals.outbox import ClientOutbox
from idea.app.terminals.streams import ClientStreams, OutboxPump

TICK = 0.008


def outbox(limit=1000, messages=10_000):
    return ClientOutbox(interval_s=TICK, output_limit_bytes=limit, message_limit_bytes=messages)


def drain(box, now):
    items = []
    while isinstance(item := box.next(now), Message | Output | Resync):
        items.append(item)
    return items


def test_an_empty_outbox_has_nothing_and_no_deadline():
    assert outbox().next(0.0) is None


def test_many_small_chunks_leave_as_one_frame():
    box = outbox()
    box.open("t1", lambda: "")
    for ch in "hello world":
        box.feed("t1", ch)
    assert drain(box, 0.0) == [Output("t1", "hello world")]
    assert box.pending_output_bytes == 0


def test_at_most_one_frame_per_interval_per_terminal():
    box = outbox()
    box.open("t1", lambda: "")
    box.feed("t1", "a")
    assert box.next(1.0) == Output("t1", "a")
    box.feed("t1", "b")
    box.feed("t1", "c")
    # Too early: the outbox says when the next frame is due instead.
    assert box.next(1.0 + TICK / 2) == pytest.approx(1.0 + TICK)
    assert box.next(1.0 + TICK) == Output("t1", "bc")
    assert box.next(5.0) is None


def test_a_terminal_holding_flush_bytes_is_due_at_once_whatever_the_interval():
    box = ClientOutbox(interval_s=TICK, output_limit_bytes=1000, flush_bytes=10)
    box.open("t1", lambda: "")
    box.feed("t1", "a")
    assert box.next(1.0) == Output("t1", "a")
    box.feed("t1", "123456789")  # 9 bytes: under the flush size, the interval holds
    assert box.next(1.0) == pytest.approx(1.0 + TICK)
    box.feed("t1", "0")  # 10: a big frame is worth sending now (no re-sync for a fast client)
    assert box.next(1.0) == Output("t1", "1234567890")


def test_feed_says_when_the_sender_must_look_again():
    box = ClientOutbox(interval_s=TICK, output_limit_bytes=20, flush_bytes=10)
    box.open("t1", lambda: "screen")
    assert box.feed("t1", "12345") is True  # newly in line
    assert box.feed("t1", "1234") is False  # in line already, its deadline unchanged
    assert box.feed("t1", "1") is True  # reached the flush size: due now
    assert box.feed("t1", "1") is False
    assert box.feed("t1", "x" * 10) is True  # past the bound: a re-sync is owed
    assert box.feed("t1", "more") is False  # in the re-sync's scrollback
    assert box.feed("nope", "x") is False
    assert drain(box, 0.0) == [Resync("t1", "screen")]


def test_the_default_flush_size_is_a_quarter_of_the_bound_at_most():
    assert ClientOutbox(output_limit_bytes=1000).flush_bytes == 250
    assert ClientOutbox().flush_bytes == ClientOutbox().output_limit_bytes // 4


def test_each_terminal_has_its_own_interval():
    box = outbox()
    box.open("t1", lambda: "")
    box.open("t2", lambda: "")
    box.feed("t1", "one")
    assert box.next(0.0) == Output("t1", "one")
    box.feed("t2", "two")
    assert box.next(0.0) == Output("t2", "two")


def test_a_flushed_terminal_leaves_before_the_message_pushed_after_it():
    box = outbox()
    box.push('{"id":1}')  # e.g. the reply of terminal.attach
    box.open("t1", lambda: "")
    box.feed("t1", "out")
    box.flush("t1")  # the terminal ended: its last output before the news
    box.push('{"event":"TerminalExit"}')
    assert drain(box, 0.0) == [
        Message('{"id":1}'),
        Output("t1", "out"),
        Message('{"event":"TerminalExit"}'),
    ]
    assert box.queued_message_bytes == 0


def test_a_message_never_waits_for_a_terminal_s_interval():
    box = outbox()
    box.open("t1", lambda: "")
    box.feed("t1", "a")
    assert box.next(0.0) == Output("t1", "a")
    box.feed("t1", "b")
    box.push("{}")
    assert box.next(0.001) == Message("{}")
    assert box.next(0.001) == pytest.approx(TICK)
    assert drain(box, TICK) == [Output("t1", "b")]


def test_a_flush_after_the_stream_left_sends_nothing_twice():
    box = outbox()
    box.open("t1", lambda: "")
    box.feed("t1", "a")
    box.flush("t1")
    box.flush("t1")
    assert drain(box, 0.0) == [Output("t1", "a")]


def test_past_the_bound_pending_output_is_replaced_by_one_resync():
    screen = ["scrollback v1"]
    box = outbox(limit=10)
    box.open("t1", lambda: screen[0])
    box.feed("t1", "12345")
    box.feed("t1", "678901")  # 11 bytes pending would pass the bound
    assert box.pending_output_bytes == 0
    assert box.resyncs == 1
    box.feed("t1", "more")  # already in the scrollback the re-sync will carry
    screen[0] = "scrollback v2"
    assert drain(box, 0.0) == [Resync("t1", "scrollback v2")]
    box.feed("t1", "after")
    assert drain(box, 1.0) == [Output("t1", "after")]


def test_the_bound_counts_utf8_bytes_not_characters():
    box = outbox(limit=8)
    box.open("t1", lambda: "")
    box.feed("t1", "éé")  # 4 bytes
    box.feed("t1", "€")  # 3 bytes: 7, still under
    assert box.pending_output_bytes == 7
    box.feed("t1", "é")  # 9 bytes: over
    assert drain(box, 0.0) == [Resync("t1", "")]


def test_overflow_resyncs_every_terminal_holding_output_but_not_idle_ones():
    box = outbox(limit=10)
    for attach in ("busy", "idle", "flood"):
        box.open(attach, lambda attach=attach: f"screen of {attach}")
    box.feed("busy", "1234")
    box.feed("flood", "12345678")
    items = drain(box, 0.0)
    assert sorted(items, key=lambda i: i.attach_id) == [
        Resync("busy", "screen of busy"),
        Resync("flood", "screen of flood"),
    ]


def test_a_slow_client_costs_bounded_memory_whatever_the_output():
    box = outbox(limit=4096)
    box.open("t1", lambda: "screen")
    for _ in range(10_000):
        box.feed("t1", "x" * 100)
        assert box.pending_output_bytes <= 4096
    assert drain(box, 0.0) == [Resync("t1", "screen")]


def test_closing_a_stream_drops_its_output_and_its_place_in_line():
    box = outbox()
    box.open("t1", lambda: "")
    box.feed("t1", "lost")
    box.push("{}")
    assert box.close("t1") is True
    assert box.close("t1") is False
    assert box.pending_output_bytes == 0
    assert drain(box, 0.0) == [Message("{}")]
    box.feed("t1", "ignored")
    assert box.next(0.0) is None


def test_an_attach_id_is_opened_once():
    box = outbox()
    box.open("t1", lambda: "")
    with pytest.raises(ValueError, match="t1"):
        box.open("t1", lambda: "")


def test_messages_past_their_bound_mark_the_outbox_overflowed():
    box = outbox(messages=10)
    box.push("12345")
    box.push("12345")
    assert not box.overflowed
    box.push("1")
    assert box.overflowed
    assert drain(box, 0.0) == [Message("12345"), Message("12345")]


def test_frames_are_kind_then_length_prefixed_attach_id_then_text():
    frame = encode_frame(Output("t1", "hé\r\n"))
    assert frame == bytes([OUTPUT, 0, 2]) + b"t1" + "hé\r\n".encode()
    assert decode_frame(frame) == Output("t1", "hé\r\n")
    resync = encode_frame(Resync("tè", ""))
    assert resync[0] == RESYNC
    assert decode_frame(resync) == Resync("tè", "")
    with pytest.raises(ValueError):
        decode_frame(b"\x09\x00")


class Session:
    """The smallest terminal session: a scrollback and listeners."""

    def __init__(self):
        self.screen = ""
        self.listeners = {}

    def scrollback(self):
        return self.screen

    def subscribe(self, listener):
        key = object()
        self.listeners[key] = listener
        return lambda: self.listeners.pop(key, None)

    def print(self, text):
        self.screen += text
        for listener in list(self.listeners.values()):
            listener(text)


async def never(_):
    raise AssertionError("not sent in this test")


def streams(overflows=None):
    ids = iter(range(1, 100))
    return ClientStreams(
        outbox(messages=20),
        (never, never),
        lambda: f"t{next(ids)}",
        lambda: overflows.append(1) if overflows is not None else None,
    )


async def test_attach_replays_then_streams_and_detach_stops():
    session = Session()
    session.print("before")
    views = streams()
    assert views.attach(session) == ("t1", "before", False)
    session.print("after")
    assert drain(views.outbox, 0.0) == [Output("t1", "after")]
    assert views.detach("t1") is True
    assert views.detach("t1") is False
    assert not session.listeners
    session.print("gone")
    assert views.outbox.next(1.0) is None


async def test_message_overflow_releases_the_client_once():
    session = Session()
    overflows = []
    views = streams(overflows)
    views.attach(session)
    views.push("x" * 15)
    views.push("x" * 15)
    views.push("x" * 15)
    assert overflows == [1]
    assert not session.listeners


async def test_the_pump_sends_what_is_due_in_order():
    sent = []
    done = asyncio.Event()

    async def send_text(text):
        sent.append(text)

    async def send_bytes(frame):
        sent.append(decode_frame(frame))
        done.set()

    box = ClientOutbox(interval_s=0.0)
    pump = OutboxPump(box, send_text, send_bytes)
    task = asyncio.create_task(pump.run())
    try:
        box.push('{"id":1}')
        box.open("t1", lambda: "")
        box.feed("t1", "out")
        pump.poke()
        async with asyncio.timeout(5):
            await done.wait()
        assert sent == ['{"id":1}', Output("t1", "out")]
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
