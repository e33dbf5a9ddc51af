"""What the app does with what its window says: the ready line, the project's title and URL sent
once the UI listens, the app ended with the window, and a window that never showed leaving the
project served for a browser, said once and in order."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from idea.app.window.link import EXITED
from idea.app.window.linked import HEADLESS_LINE, READY_LINE, _Linked


class FakeLink:
    def __init__(self) -> None:
        self.told: list[tuple[str, ...]] = []

    def show(self, url: str, title: str, root: str) -> None:
        self.told.append(("show", url, title, root))

    def retitle(self, title: str, root: str) -> None:
        self.told.append(("retitle", title, root))

    def terminate(self) -> None:
        self.told.append(("terminate",))


def runtime(name: str, root: str) -> SimpleNamespace:
    return SimpleNamespace(
        services=SimpleNamespace(
            info=SimpleNamespace(name=name), paths=SimpleNamespace(root=Path(root))
        )
    )


class FakeHost:
    def __init__(self) -> None:
        self.current = runtime("demo", "/work/demo")
        self.listeners: list = []

    def on_switch(self, listener) -> None:
        self.listeners.append(listener)


def linked() -> tuple[_Linked, FakeLink, list[str], list[str]]:
    out: list[str] = []
    ended: list[str] = []
    window = FakeLink()
    return _Linked(out.append, window, lambda: ended.append("end")), window, out, ended


def test_the_ui_goes_to_the_window_with_its_title_and_follows_a_switch():
    app, window, out, _ = linked()
    host = FakeHost()
    app.started(host, "http://127.0.0.1:9/?token=t")
    host.listeners[0](runtime("other", "/work/other"))
    assert window.told == [
        ("show", "http://127.0.0.1:9/?token=t", "IdeA — demo", "/work/demo"),
        ("retitle", "IdeA — other", "/work/other"),
    ]
    app.heard("shown", "")
    app.heard("ready", "")
    assert out == [READY_LINE]


def test_the_window_closed_by_its_user_ends_the_app():
    app, _, out, ended = linked()
    app.heard("shown", "")
    app.heard(EXITED, "")
    assert ended == ["end"]
    assert out == []


def test_a_window_that_never_showed_leaves_the_project_served_and_says_why_once():
    app, _, out, ended = linked()
    app.heard(EXITED, "Qt cannot start: no platform plugin")
    app.started(FakeHost(), "http://127.0.0.1:9/?token=t")
    app.show_timed_out()
    assert out == [
        "IdeA window unavailable (Qt cannot start: no platform plugin); "
        "serving the UI for a browser instead",
        HEADLESS_LINE,
    ]
    assert ended == []


def test_a_window_without_pywebview_says_so_after_the_ui_started():
    app, _, out, _ = linked()
    app.started(FakeHost(), "http://127.0.0.1:9/?token=t")
    app.heard("unavailable", "pywebview cannot be imported: no module")
    app.heard(EXITED, "")
    assert out == [
        "IdeA window unavailable (pywebview cannot be imported: no module); "
        "serving the UI for a browser instead",
        HEADLESS_LINE,
    ]


def test_a_window_that_does_not_show_in_time_is_ended():
    app, window, out, _ = linked()
    app.show_timed_out()
    assert window.told == [("terminate",)]
    assert out[0].startswith("IdeA window unavailable (Qt did not start within ")
