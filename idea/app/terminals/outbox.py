"""What one UI client is sent: JSON messages, and each attached terminal as its view needs it.

A view says how it shows its terminal (``View``), and the outbox sends it that much:
* ``LIVE`` (the terminal being typed into): its output at once, coalesced for at most
  ``interval_s`` unless it holds ``flush_bytes``; with flow control once the view acknowledges what
  it parsed (``ack``): past ``live_window_bytes`` unacknowledged nothing more is sent. More than
  ``live_skip_bytes`` held (a flood: more than anyone reads) is dropped for one ``Screen`` (the
  current screen, from the server's emulator), at most one per ``live_screen_interval_s``, so
  neither a page that falls behind nor a page that keeps up at full tilt slows the program;
* ``GLANCE`` (on screen, not focused): at most one frame per ``glance_interval_s``, on a beat
  common to all such views, its output if that is at most ``glance_bytes``, else one ``Screen``;
* ``HIDDEN`` (not on screen): nothing; one ``Screen`` when it is shown again, if it missed output;
* no view said (a client that never does): its output as ``LIVE`` without flow control.
Messages leave in push order and never wait for a terminal's interval; a terminal's frames leave in
order, the live ones first. ``flush`` puts a terminal's pending frame ahead of the next message (its
last output before its exit event). Pending output never exceeds ``output_limit_bytes``: past it,
every terminal holding output owes one re-sync (a ``Screen``, or the scrollback for a stream with no
view and no screen), so a client that does not read costs bounded memory. Queued JSON past
``message_limit_bytes`` marks the outbox ``overflowed`` (the server then closes that client).
``ClientOutbox`` does no I/O and reads no clock: the caller passes ``now``.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable
from enum import StrEnum

from idea.app.terminals.frames import Item, Message, Output, Resync, Screen, utf8_size

DEFAULT_INTERVAL_S = 0.008
DEFAULT_OUTPUT_LIMIT_BYTES = 512 * 1024
# A quarter of the bound: a client that keeps up is sent big frames long before the bound, so
# only one that really does not read (a send that blocks) ever gets a re-sync.
DEFAULT_FLUSH_BYTES = DEFAULT_OUTPUT_LIMIT_BYTES // 4
DEFAULT_MESSAGE_LIMIT_BYTES = 8 * 1024 * 1024
GLANCE_INTERVAL_S = 0.5  # twice a second: enough to follow a log, 22 % of the page for 20 at once
GLANCE_BYTES = 4 * 1024  # about a screen: more than that, the screen is smaller
LIVE_WINDOW_BYTES = 256 * 1024
# More than a reader follows between two frames (8 ms): a flood, drawn as screens instead.
LIVE_SKIP_BYTES = 64 * 1024
LIVE_SCREEN_INTERVAL_S = 0.1  # a flood's screens, ten a second: the page keeps its core


class View(StrEnum):
    LIVE = "live"
    GLANCE = "glance"
    HIDDEN = "hidden"


class _Owed(StrEnum):
    RESYNC = "resync"
    SCREEN = "screen"


class _Stream:
    """One attached terminal: its view, pending chunks, what it owes and what it was sent."""

    __slots__ = (
        "acked",
        "attach_id",
        "chunks",
        "last_sent",
        "owed",
        "pending_bytes",
        "screen",
        "scrollback",
        "sent",
        "view",
    )

    def __init__(
        self, attach_id: str, scrollback: Callable[[], str], screen: Callable[[], str] | None
    ) -> None:
        self.attach_id = attach_id
        self.scrollback = scrollback
        self.screen = screen
        self.view: View | None = None
        self.chunks: list[str] = []
        self.pending_bytes = 0
        self.owed: _Owed | None = None
        self.last_sent = float("-inf")
        self.sent = 0  # bytes of frame text sent, the unit of ``ack``
        self.acked: int | None = None  # None until the view acknowledges: no flow control

    def has_something(self) -> bool:
        return self.owed is not None or self.pending_bytes > 0

    def catch_up(self) -> _Owed:
        return _Owed.SCREEN if self.screen is not None else _Owed.RESYNC


class ClientOutbox:
    def __init__(
        self,
        *,
        interval_s: float = DEFAULT_INTERVAL_S,
        output_limit_bytes: int = DEFAULT_OUTPUT_LIMIT_BYTES,
        message_limit_bytes: int = DEFAULT_MESSAGE_LIMIT_BYTES,
        flush_bytes: int | None = None,
        glance_interval_s: float = GLANCE_INTERVAL_S,
        glance_bytes: int = GLANCE_BYTES,
        live_window_bytes: int = LIVE_WINDOW_BYTES,
        live_skip_bytes: int = LIVE_SKIP_BYTES,
        live_screen_interval_s: float = LIVE_SCREEN_INTERVAL_S,
    ) -> None:
        self.interval_s = interval_s
        self.output_limit_bytes = output_limit_bytes
        self.flush_bytes = (
            min(DEFAULT_FLUSH_BYTES, max(output_limit_bytes // 4, 1))
            if flush_bytes is None
            else flush_bytes
        )
        self.message_limit_bytes = message_limit_bytes
        self.glance_interval_s = glance_interval_s
        self.glance_bytes = glance_bytes
        self.live_window_bytes = live_window_bytes
        self.live_skip_bytes = live_skip_bytes
        self.live_screen_interval_s = live_screen_interval_s
        self.overflowed = False
        self.resyncs = 0  # how many times output was dropped for a re-sync (observability)
        self.skips = 0  # output dropped for a screen by a view's own bound (observability)
        self._fifo: deque[str | _Stream] = deque()
        self._streams: dict[str, _Stream] = {}
        self._waiting: dict[str, _Stream] = {}  # streams with something to send, in line order
        self._pending_bytes = 0
        self._message_bytes = 0

    @property
    def pending_output_bytes(self) -> int:
        return self._pending_bytes

    @property
    def queued_message_bytes(self) -> int:
        return self._message_bytes

    def push(self, text: str) -> None:
        """Queue a JSON message; past the bound it is dropped and the outbox is ``overflowed``."""
        size = len(text)
        if self.overflowed or self._message_bytes + size > self.message_limit_bytes:
            self.overflowed = True
            return
        self._message_bytes += size
        self._fifo.append(text)

    def open(
        self, attach_id: str, scrollback: Callable[[], str], screen: Callable[[], str] | None = None
    ) -> None:
        """Start a terminal stream; ``scrollback`` gives its replay text, ``screen`` its current
        screen (both on demand, when the frame leaves)."""
        if attach_id in self._streams:
            raise ValueError(f"attach id {attach_id!r} is already open")
        self._streams[attach_id] = _Stream(attach_id, scrollback, screen)

    def close(self, attach_id: str) -> bool:
        """Forget a stream and its pending output; False if it was not open."""
        stream = self._streams.pop(attach_id, None)
        if stream is None:
            return False
        self._clear(stream)
        self._waiting.pop(attach_id, None)
        return True

    def feed(self, attach_id: str, text: str) -> bool:
        """Output of an attached terminal; never blocks, whatever the client's speed.

        True when this may make an item due sooner than ``next`` last said (a stream newly in
        line, one that reached ``flush_bytes``, a re-sync): only then must the sender look again.
        """
        stream = self._streams.get(attach_id)
        if stream is None or not text or stream.owed is not None:
            # Output arriving while a re-sync is owed is in what the re-sync will send.
            return False
        if stream.view is View.HIDDEN:
            return self._owe(stream, stream.catch_up())
        size = utf8_size(text)
        if self._pending_bytes + size > self.output_limit_bytes:
            self._drop_pending(stream)
            return True
        own_bound = self._own_bound(stream)
        if stream.pending_bytes + size > own_bound:
            self.skips += 1
            return self._owe(stream, _Owed.SCREEN)
        was_waiting = stream.attach_id in self._waiting
        below = stream.pending_bytes < self.flush_bytes
        stream.chunks.append(text)
        stream.pending_bytes += size
        self._pending_bytes += size
        self._waiting[attach_id] = stream
        return not was_waiting or (below and stream.pending_bytes >= self.flush_bytes)

    def set_view(self, attach_id: str, view: View, parsed: int | None = None) -> bool:
        """How the view shows its terminal from now on; ``parsed``: the bytes of frame text it
        has parsed (turns flow control on). False if no such stream."""
        stream = self._streams.get(attach_id)
        if stream is None:
            return False
        was = stream.view
        stream.view = view
        if parsed is not None:
            stream.acked = parsed
        if view is View.HIDDEN:
            if stream.pending_bytes:
                self._owe(stream, stream.catch_up())
            return True
        if was is View.HIDDEN:
            stream.last_sent = float("-inf")  # shown again: what it missed goes at once
        if stream.pending_bytes > self._own_bound(stream):
            self._owe(stream, _Owed.SCREEN)
        return True

    def ack(self, attach_id: str, parsed: int) -> bool:
        """The view has parsed ``parsed`` bytes of frame text in all; False if no such stream."""
        stream = self._streams.get(attach_id)
        if stream is None:
            return False
        stream.acked = max(stream.acked or 0, min(parsed, stream.sent))
        return True

    def history(self, attach_id: str) -> bool:
        """The view wants the terminal's whole history: one re-sync with the scrollback, now."""
        stream = self._streams.get(attach_id)
        if stream is None:
            return False
        self._owe(stream, _Owed.RESYNC)
        stream.last_sent = float("-inf")
        return True

    def flush(self, attach_id: str) -> None:
        """Send this terminal's pending frame before any message pushed from now on."""
        stream = self._streams.get(attach_id)
        if stream is not None and stream.has_something() and stream.view is not View.HIDDEN:
            self._fifo.append(stream)

    def next(self, now: float) -> Item | float | None:
        """The next item to send now; else the time at which one will be ready; else None."""
        while self._fifo:
            head = self._fifo.popleft()
            if isinstance(head, str):
                self._message_bytes -= len(head)
                return Message(head)
            if self._streams.get(head.attach_id) is head and head.has_something():
                return self._take(head, now)
        soonest: float | None = None
        chosen: _Stream | None = None
        for stream in self._waiting.values():
            due = self._due(stream)
            if due is None:
                continue
            if due <= now:
                if stream.view in (None, View.LIVE):
                    return self._take(stream, now)  # the typist's echo first
                chosen = chosen or stream
            elif soonest is None or due < soonest:
                soonest = due
        return self._take(chosen, now) if chosen is not None else soonest

    def _due(self, stream: _Stream) -> float | None:
        """When this stream's next frame may leave; None: not while its view is what it is."""
        view = stream.view
        if view is View.HIDDEN:
            return None
        if view is View.GLANCE:
            # On the outbox's common beat: the page draws all its glanced terminals in one frame
            # (a frame's cost is mostly the page's, whatever changed in it), not one frame each.
            beat = self.glance_interval_s
            return (
                (math.floor(stream.last_sent / beat) + 1) * beat if stream.last_sent >= 0 else 0.0
            )
        if stream.acked is not None and stream.sent - stream.acked >= self.live_window_bytes:
            return None  # the view has not parsed what it was sent: an ``ack`` wakes it
        if stream.owed is _Owed.SCREEN and stream.view is View.LIVE:
            return stream.last_sent + self.live_screen_interval_s  # a flood: its screens
        if stream.owed is not None or stream.pending_bytes >= self.flush_bytes:
            return float("-inf")  # due at once
        return stream.last_sent + self.interval_s

    def _own_bound(self, stream: _Stream) -> float:
        """Pending output past which this view is sent a screen instead (not a stream with no
        view, nor one without a screen: they keep the outbox's bound only)."""
        if stream.screen is None:
            return float("inf")
        if stream.view is View.GLANCE:
            return self.glance_bytes
        if stream.view is View.LIVE:
            return self.live_skip_bytes
        return float("inf")

    def _take(self, stream: _Stream, now: float) -> Output | Resync | Screen:
        self._waiting.pop(stream.attach_id, None)
        stream.last_sent = now
        owed, stream.owed = stream.owed, None
        item: Output | Resync | Screen
        if owed is _Owed.RESYNC:
            # Snapshotted now, so output fed from here on follows it without gap or repeat.
            item = Resync(stream.attach_id, stream.scrollback())
        elif owed is _Owed.SCREEN and stream.screen is not None:
            item = Screen(stream.attach_id, stream.screen())
        else:
            item = Output(stream.attach_id, "".join(stream.chunks))
        self._clear(stream)
        stream.sent += utf8_size(item.text)
        return item

    def _owe(self, stream: _Stream, owed: _Owed) -> bool:
        """Drop the stream's pending output: it is sent ``owed`` instead. True: a new item."""
        self._clear(stream)
        if stream.owed is not _Owed.RESYNC:  # a re-sync holds a screen
            stream.owed = owed
        was_waiting = stream.attach_id in self._waiting
        self._waiting[stream.attach_id] = stream
        return not was_waiting

    def _clear(self, stream: _Stream) -> None:
        stream.chunks.clear()
        self._pending_bytes -= stream.pending_bytes
        stream.pending_bytes = 0

    def _drop_pending(self, fed: _Stream) -> None:
        """The client is behind: every stream holding output (and ``fed``) owes a re-sync."""
        self.resyncs += 1
        for stream in self._streams.values():
            if stream.pending_bytes or stream is fed:
                self._owe(stream, stream.catch_up() if stream.view else _Owed.RESYNC)
