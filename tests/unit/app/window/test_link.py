"""The app's end of the window process, against small programs that play the window: what it is
told, what it hears (in order, even before anyone listens), why a window never showed, and that
closing it always ends it."""

from __future__ import annotations

import queue
import sys

import pytest

from idea.app.window.link import EXITED, WindowLink
from idea.app.window.wire import decode, encode

# A window that shows, echoes each order on stderr and closes when told.
OBEDIENT = (
    "import sys\n"
    'sys.stdout.buffer.write(b\'{"event": "shown"}\\n\'); sys.stdout.flush()\n'
    "for line in sys.stdin.buffer:\n"
    "    sys.stderr.write('order ' + line.decode()); sys.stderr.flush()\n"
    "    if b'close' in line: break\n"
)
# A Qt that cannot load its platform plugin: its last words, then an abort.
ABORTING = (
    "import os, sys\n"
    "sys.stderr.write('qt.qpa.plugin: Could not find the Qt platform plugin \"nope\"\\n')\n"
    "sys.stderr.write('This application failed to start because no Qt platform plugin could be "
    "initialized.\\n'); sys.stderr.flush()\n"
    "os.abort()\n"
)
# A window that hears nothing: neither the order to close nor the end of stdin.
DEAF = 'import time\nprint(\'{"event": "shown"}\', flush=True)\ntime.sleep(60)\n'


class Heard:
    def __init__(self) -> None:
        self.events: queue.Queue[tuple[str, str]] = queue.Queue()
        self.err: list[str] = []

    def __call__(self, kind: str, detail: str) -> None:
        self.events.put((kind, detail))

    def next(self) -> tuple[str, str]:
        return self.events.get(timeout=20)


def spawned(program: str, heard: Heard) -> WindowLink:
    return WindowLink.spawn(heard.err.append, [sys.executable, "-c", program])


@pytest.mark.timeout(60)
def test_orders_reach_the_window_and_events_come_back_in_order_even_before_listening():
    heard = Heard()
    link = spawned(OBEDIENT, heard)
    try:
        link.show("http://127.0.0.1:1/?token=t", "IdeA — demo", "/work/demo")
        link.retitle("IdeA — other", "/work/other")
        assert link.close(20) == 0
        link.listen(heard)  # after the window has come and gone: nothing is lost
        assert heard.next() == ("shown", "")
        assert heard.next() == (EXITED, "")  # it had shown: no reason to give
    finally:
        link.close(5)
    orders = [decode(line.removeprefix("order ").encode()) for line in heard.err]
    assert orders == [
        {"url": "http://127.0.0.1:1/?token=t", "title": "IdeA — demo", "root": "/work/demo"},
        {"title": "IdeA — other", "root": "/work/other"},
        {"close": "1"},
    ]


@pytest.mark.timeout(60)
def test_a_qt_that_aborts_before_the_window_shows_says_why():
    heard = Heard()
    link = spawned(ABORTING, heard)
    try:
        link.listen(heard)
        kind, why = heard.next()
    finally:
        link.close(5)
    assert kind == EXITED
    assert why.startswith("Qt cannot start: ")
    assert 'platform plugin "nope"' in why
    assert any("no Qt platform plugin" in line for line in heard.err)  # relayed as well


@pytest.mark.timeout(60)
def test_a_window_that_does_not_close_when_asked_is_ended():
    heard = Heard()
    link = spawned(DEAF, heard)
    link.listen(heard)
    assert heard.next() == ("shown", "")
    assert link.close(0.5) != 0
    assert heard.next() == (EXITED, "")
    assert any("did not close within" in line for line in heard.err)


def test_orders_are_json_lines_of_strings():
    assert decode(encode({"title": "IdeA — é"})) == {"title": "IdeA — é"}
    for line in (b"[1]\n", b'{"a": 1}\n', b"not json\n"):
        with pytest.raises(ValueError):
            decode(line)
