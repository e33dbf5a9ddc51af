"""How much of a terminal each view is sent: live (flow-controlled bytes), glance (a few bounded
updates a second), hidden (nothing, then its screen). The clock is a number passed to ``next``."""

from idea.app.terminals.frames import Message, Output, Resync, Screen
from idea.app.terminals.outbox import ClientOutbox, View
from idea.app.terminals.screens import TerminalScreens
from idea.app.terminals.streams import ClientStreams

TICK = 0.008
GLANCE = 0.25


def outbox(**limits):
    options = {
        "interval_s": TICK,
        "output_limit_bytes": 10_000,
        "glance_interval_s": GLANCE,
        "glance_bytes": 100,
        "live_window_bytes": 50,
        "live_skip_bytes": 200,
        **limits,
    }
    return ClientOutbox(**options)


def drain(box, now):
    items = []
    while isinstance(item := box.next(now), Message | Output | Resync | Screen):
        items.append(item)
    return items


def opened(box, attach_id, view, screen="SCREEN"):
    box.open(attach_id, lambda: f"history of {attach_id}", lambda: f"{screen} of {attach_id}")
    box.set_view(attach_id, view, 0)


def test_a_hidden_terminal_is_sent_nothing_then_its_screen_when_shown():
    box = outbox()
    opened(box, "t1", View.HIDDEN)
    for _ in range(1000):
        assert box.feed("t1", "x" * 80) in (True, False)
    assert drain(box, 100.0) == []
    assert box.pending_output_bytes == 0  # a hidden terminal costs no memory here
    box.set_view("t1", View.GLANCE, 0)
    assert drain(box, 100.0) == [Screen("t1", "SCREEN of t1")]
    box.feed("t1", "after")
    assert drain(box, 100.0 + GLANCE) == [Output("t1", "after")]


def test_a_terminal_hidden_with_nothing_missed_is_sent_nothing_when_shown():
    box = outbox()
    opened(box, "t1", View.GLANCE)
    box.set_view("t1", View.HIDDEN, 0)
    box.set_view("t1", View.GLANCE, 0)
    assert drain(box, 5.0) == []


def test_hiding_a_terminal_with_output_in_flight_owes_it_a_screen():
    box = outbox()
    opened(box, "t1", View.GLANCE)
    box.feed("t1", "held")
    box.set_view("t1", View.HIDDEN, 0)
    assert drain(box, 5.0) == []
    box.set_view("t1", View.LIVE, 0)
    assert drain(box, 5.0) == [Screen("t1", "SCREEN of t1")]


def test_a_glance_view_gets_at_most_one_frame_per_interval():
    box = outbox()
    opened(box, "t1", View.GLANCE)
    box.feed("t1", "a")
    assert drain(box, 1.0) == [Output("t1", "a")]
    box.feed("t1", "b")
    box.feed("t1", "c")
    assert box.next(1.1) == 1.0 + GLANCE
    assert drain(box, 1.0 + GLANCE) == [Output("t1", "bc")]


def test_a_glance_view_past_its_bytes_gets_one_screen_not_the_stream():
    box = outbox()
    opened(box, "t1", View.GLANCE)
    sent = 0
    for second in range(10):
        for _ in range(100):  # 8 KB a second, 80 times the glance bound
            box.feed("t1", "x" * 80)
        frames = drain(box, float(second))
        assert frames == [Screen("t1", "SCREEN of t1")]
        sent += sum(len(f.text) for f in frames)
    assert sent < 10 * 100  # bounded by the screens' size, not by the output
    assert box.skips >= 10


def test_the_live_view_leaves_first_whatever_waits_before_it():
    box = outbox()
    for name in ("g1", "g2"):
        opened(box, name, View.GLANCE)
        box.feed(name, "glance")
    opened(box, "typist", View.LIVE)
    box.feed("typist", "k")
    assert box.next(1.0) == Output("typist", "k")
    assert drain(box, 1.0) == [Output("g1", "glance"), Output("g2", "glance")]


def test_a_glance_view_not_due_does_not_hold_back_the_live_one_or_a_message():
    box = outbox()
    opened(box, "g", View.GLANCE)
    box.feed("g", "1")
    assert drain(box, 1.0) == [Output("g", "1")]
    box.feed("g", "2")  # due at 1.25
    opened(box, "typist", View.LIVE)
    box.feed("typist", "k")
    box.push("{}")
    assert drain(box, 1.01) == [Message("{}"), Output("typist", "k")]
    assert box.next(1.01) == 1.0 + GLANCE


def test_a_live_view_is_sent_no_more_than_its_window_ahead_of_what_it_parsed():
    box = outbox()
    opened(box, "t1", View.LIVE)
    box.feed("t1", "x" * 60)
    assert drain(box, 1.0) == [Output("t1", "x" * 60)]
    box.feed("t1", "y" * 10)
    assert drain(box, 2.0) == []  # 60 sent, none parsed: the window (50) is full
    assert box.next(2.0) is None  # nothing to wait for but an ack
    box.ack("t1", 60)
    assert drain(box, 2.0) == [Output("t1", "y" * 10)]


def test_a_live_view_that_falls_behind_skips_to_the_current_screen():
    box = outbox()
    opened(box, "t1", View.LIVE)
    box.feed("t1", "x" * 60)
    drain(box, 1.0)
    for _ in range(100):  # 8 KB while the page parses nothing: the program is never held
        box.feed("t1", "z" * 80)
    assert box.pending_output_bytes <= 200
    box.ack("t1", 60)
    assert drain(box, 3.0) == [Screen("t1", "SCREEN of t1")]
    box.feed("t1", "next")
    assert drain(box, 3.0 + TICK) == [Output("t1", "next")]


def test_an_ack_counts_no_more_than_was_sent():
    box = outbox()
    opened(box, "t1", View.LIVE)
    box.ack("t1", 10**9)  # a hostile or confused page
    box.feed("t1", "x" * 60)
    drain(box, 1.0)
    box.feed("t1", "y")
    assert drain(box, 2.0) == []


def test_history_is_one_resync_at_once_whatever_the_view():
    box = outbox()
    opened(box, "t1", View.GLANCE)
    box.feed("t1", "a")
    drain(box, 1.0)
    box.feed("t1", "b")
    box.history("t1")
    assert drain(box, 1.0) == [Resync("t1", "history of t1")]
    box.feed("t1", "c")
    assert drain(box, 1.0 + GLANCE) == [Output("t1", "c")]


def test_overflow_sends_views_a_screen_and_plain_streams_their_scrollback():
    box = outbox(output_limit_bytes=100)
    opened(box, "shown", View.GLANCE)
    box.open("plain", lambda: "history of plain", lambda: "SCREEN of plain")
    box.feed("shown", "x" * 20)
    box.feed("plain", "y" * 90)
    assert sorted(drain(box, 5.0), key=lambda f: f.attach_id) == [
        Resync("plain", "history of plain"),
        Screen("shown", "SCREEN of shown"),
    ]


def test_unknown_attach_ids_are_refused():
    box = outbox()
    assert box.set_view("nope", View.LIVE, 0) is False
    assert box.ack("nope", 1) is False
    assert box.history("nope") is False


class Session:
    """The smallest terminal session: a scrollback, listeners, an exit."""

    def __init__(self, text=""):
        self.text = text
        self.listeners = {}
        self.exits = []
        self.exit_code = None

    def scrollback(self):
        return self.text

    def subscribe(self, listener):
        key = object()
        self.listeners[key] = listener
        return lambda: self.listeners.pop(key, None)

    def on_exit(self, listener):
        self.exits.append(listener)
        return lambda: None

    def print(self, text):
        self.text += text
        for listener in list(self.listeners.values()):
            listener(text)

    def end(self, code=0):
        self.exit_code = code
        for listener in self.exits:
            listener(code)


class FakeScreen:
    """Keeps everything it is fed: its snapshot is its size and what it saw."""

    def __init__(self, rows, cols):
        self.size = (rows, cols)
        self.seen = ""

    def feed(self, text):
        self.seen += text

    def resize(self, rows, cols):
        self.size = (rows, cols)

    def snapshot(self):
        return f"{self.size[0]}x{self.size[1]}:{self.seen}"


def test_a_screen_starts_from_the_scrollback_then_follows_the_output():
    screens = TerminalScreens(FakeScreen)
    session = Session("old ")
    screens.resized(session, 10, 40)
    assert screens.snapshot(session) == "10x40:old "
    session.print("new")
    screens.resized(session, 5, 20)
    assert screens.snapshot(session) == "5x20:old new"


def test_a_screen_is_forgotten_when_its_terminal_ends():
    screens = TerminalScreens(FakeScreen)
    session = Session("a")
    screens.snapshot(session)
    assert len(screens) == 1
    session.end()
    assert len(screens) == 0
    assert not session.listeners
    assert screens.snapshot(session) == "24x80:a"  # an ended one is made anew, not kept
    assert len(screens) == 0


async def never(_):
    raise AssertionError("not sent in this test")


def test_attaching_a_view_not_on_screen_starts_it_from_its_screen():
    screens = TerminalScreens(FakeScreen)
    session = Session("all the history")
    views = ClientStreams(outbox(), (never, never), lambda: "t1", lambda: None, screens)
    assert views.attach(session, View.HIDDEN) == ("t1", "24x80:all the history", True)
    session.print("more")
    assert drain(views.outbox, 1.0) == []
    views.set_view("t1", View.GLANCE, 0)
    assert drain(views.outbox, 1.0) == [Screen("t1", "24x80:all the historymore")]


def test_attaching_a_view_on_screen_starts_it_from_its_scrollback():
    screens = TerminalScreens(FakeScreen)
    session = Session("all the history")
    views = ClientStreams(outbox(), (never, never), lambda: "t1", lambda: None, screens)
    assert views.attach(session, View.GLANCE) == ("t1", "all the history", False)
    assert len(screens) == 0  # nobody looked at its screen yet
    session.print("more")
    assert drain(views.outbox, 1.0) == [Output("t1", "more")]


def test_flush_sends_a_terminal_s_last_output_before_its_exit_event():
    session = Session()
    views = ClientStreams(outbox(), (never, never), lambda: "t1", lambda: None)
    views.attach(session, View.GLANCE)
    session.print("a")
    drain(views.outbox, 1.0)
    session.print("last words")
    views.flush(session)
    views.push('{"event":"TerminalExit"}')
    assert drain(views.outbox, 1.01) == [
        Output("t1", "last words"),
        Message('{"event":"TerminalExit"}'),
    ]


def test_a_flood_in_the_live_view_is_drawn_as_a_few_screens_a_second():
    box = outbox(live_screen_interval_s=0.1)
    opened(box, "t1", View.LIVE)
    frames = []
    for tick in range(100):  # one second of 8 KB every 10 ms: a flood, acknowledged at once
        now = tick * 0.01
        for _ in range(100):
            box.feed("t1", "x" * 80)
        for frame in drain(box, now):
            frames.append(frame)
            box.ack("t1", box._streams["t1"].sent)
    assert all(isinstance(f, Screen) for f in frames)
    assert 5 <= len(frames) <= 11  # ten a second at most, not the 800 KB it printed
