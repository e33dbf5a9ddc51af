"""The window process's side, with a stand-in for pywebview's window: the app's orders followed
(the UI loaded once the window exists, the title, the folder, the close), and ``ready`` said once,
by the UI's page only, never by the opening page."""

from __future__ import annotations

import io
import json

from idea.app.window import process
from idea.app.window.wire import encode

URL = "http://127.0.0.1:4321/?token=t"


class FakeWebviewWindow:
    def __init__(self, page_origin: str = "http://127.0.0.1:4321") -> None:
        self.calls: list[tuple[str, ...]] = []
        self.page_origin = page_origin

    def load_url(self, url: str) -> None:
        self.calls.append(("load_url", url))

    def set_title(self, title: str) -> None:
        self.calls.append(("set_title", title))

    def destroy(self) -> None:
        self.calls.append(("destroy",))

    def evaluate_js(self, _script: str, callback) -> None:
        callback(self.page_origin)


def window(built: bool, page_origin: str = "http://127.0.0.1:4321"):
    answers = io.BytesIO()
    proc = process._Window(answers)
    proc._window = FakeWebviewWindow(page_origin)
    proc._built = built
    return proc, proc._window, answers


def said(answers: io.BytesIO) -> list[dict[str, str]]:
    return [json.loads(line) for line in answers.getvalue().splitlines()]


def orders(*messages: dict[str, str]) -> io.BytesIO:
    return io.BytesIO(b"".join(encode(m) for m in messages))


def test_once_built_the_window_loads_the_ui_and_takes_its_title_then_closes_when_told():
    proc, fake, _ = window(built=True)
    proc.read_app(
        orders(
            {"url": URL, "title": "IdeA — demo", "root": "/w/demo"}, {"close": "1"}, {"url": "x"}
        )
    )
    assert fake.calls == [("load_url", URL), ("set_title", "IdeA — demo"), ("destroy",)]


def test_a_url_before_the_window_is_built_is_left_to_the_build_and_the_end_of_orders_closes():
    proc, fake, _ = window(built=False)
    proc.read_app(orders({"url": URL, "title": "IdeA — demo", "root": "/w/demo"}))
    assert fake.calls == [("set_title", "IdeA — demo"), ("destroy",)]


def test_ready_is_said_once_when_the_ui_has_painted():
    proc, _, answers = window(built=True)
    proc._on_loaded()  # the opening page, before the app sent the UI's URL
    proc.read_app(orders({"url": URL}, {"close": "1"}))
    proc._on_loaded()
    proc._on_loaded()  # a reload says nothing more
    assert said(answers) == [{"event": "ready"}]


def test_the_opening_page_answering_late_is_not_the_ui():
    proc, _, answers = window(built=True, page_origin="null")
    proc.read_app(orders({"url": URL}, {"close": "1"}))
    proc._on_loaded()
    assert said(answers) == []
