"""The window process of ``idea open``: a pywebview window (Qt WebEngine on Linux) that the app
(``desktop.py``, its parent) drives with JSON lines on this process's stdin, and that answers on
its stdout (DESIGN.md §2, §8).

The app spawns it before anything else, so Qt starts while the app opens the project on the other
core (two processes, no shared interpreter lock). The window shows a small "opening…" page until
the app sends ``{"url", "title", "root"}`` (its UI server listens); the UI is then loaded, at once
in place of the opening page if the window is being built. Once the UI has drawn the project and
painted it, the window says ``ready``. ``{"title", "root"}`` follows a project switch; ``close``,
the end of stdin (the app has gone), SIGTERM or SIGINT close the window, and the process exits.

Said on stdout: ``shown``, ``ready``, and ``unavailable`` with a reason when pywebview cannot be
imported. A Qt that cannot start aborts this process; the app tells that from its exit status.
Everything else this process or its libraries print goes to stderr, never into the answers.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import IO, Any
from urllib.parse import urlsplit

from idea.app.window.bridge import WindowBridge
from idea.app.window.wire import (
    CLOSE,
    EVENT,
    READY,
    REASON,
    ROOT,
    SHOWN,
    TITLE,
    UNAVAILABLE,
    URL,
    decode,
    encode,
)

WIDTH, HEIGHT = 1200, 760
QT = sys.platform.startswith("linux")  # the window's backend: Qt WebEngine, else the system's
# The UI's own colours (ui/src/style.css), so that the UI replaces it without a flash.
OPENING_PAGE = (
    "<!doctype html><html><head><meta charset='utf-8'><title>IdeA</title></head>"
    "<body style='margin:0;height:100vh;display:flex;align-items:center;justify-content:center;"
    "background:#0f1115;color:#9da6b6;font:13px system-ui,sans-serif'>opening…</body></html>"
)
# The opening page's address in Qt: the UI's site (scheme and host; the port is not part of it),
# so that the UI loads in the renderer process the opening page started instead of a new one
# (Chromium gives each site its own), ~0.1 s sooner. It is no origin of the UI's (another port):
# it is granted nothing, and it loads nothing from there.
OPENING_SITE = "http://127.0.0.1/"

# The UI resolves ``window.ideaReady`` once the project is shown (bounded, in case the page is
# not the built UI); two animation frames make sure it was painted. The page's origin says which
# page answered: the opening page's may still answer after the UI was asked for.
_PAINTED_JS = (
    "Promise.race([window.ideaReady || Promise.resolve(),"
    " new Promise(r => setTimeout(r, 10000))])"
    ".then(() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame("
    "() => r(location.origin)))))"
)


def main() -> int:
    answers = _own_stdout()
    try:
        import webview  # noqa: PLC0415  (only this process loads the window toolkit)
    except ImportError as exc:
        _send(answers, {EVENT: UNAVAILABLE, REASON: f"pywebview cannot be imported: {exc}"})
        return 0
    window = _Window(answers)
    return window.run(webview)


def _own_stdout() -> IO[bytes]:
    """The answers' stream; fd 1 then points at stderr, so that nothing else lands in it."""
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "wb", buffering=0)
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    return answers


def _send(answers: IO[bytes], message: dict[str, str]) -> None:
    with contextlib.suppress(OSError):  # the app has gone: the end of stdin closes the window
        answers.write(encode(message))


def _warn(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def origin(url: str) -> str:
    """``scheme://host:port`` of ``url``, as a page's ``location.origin`` reads."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


class _Window:
    def __init__(self, answers: IO[bytes]) -> None:
        self._answers = answers
        self._lock = threading.Lock()
        self._url = ""  # the UI's, once the app has sent it
        self._root = ""  # the open project's folder (the folder dialog starts beside it)
        self._built = False  # the native window exists: the UI loads through pywebview
        self._ready = False
        self._window: Any = None  # webview.Window
        self._webview: Any = None

    def run(self, webview: Any) -> int:
        self._webview = webview
        window = webview.create_window(
            "IdeA",
            html=OPENING_PAGE,
            width=WIDTH,
            height=HEIGHT,
            text_select=True,
            js_api=WindowBridge(self),
        )
        if window is None:  # pywebview returns None only when called from a running GUI loop
            raise RuntimeError("pywebview created no window")
        self._window = window
        window.events.before_show += self._before_show
        window.events.shown += lambda: _send(self._answers, {EVENT: SHOWN})
        window.events.loaded += self._on_loaded
        orders = threading.Thread(
            target=self.read_app, args=(sys.stdin.buffer,), name="idea-app", daemon=True
        )
        orders.start()
        signal.signal(signal.SIGTERM, self._on_signal)
        # pywebview replaces SIGINT's handler by its own, which quits the GUI loop: the same end.
        webview.start(gui="qt" if QT else None)
        return 0

    def read_app(self, orders: IO[bytes]) -> None:
        """Follow the app's orders until ``close`` or their end, then close the window."""
        for line in orders:
            try:
                message = decode(line)
            except ValueError:
                _warn(f"warning: the window ignored a line from the app: {line!r}")
                continue
            if message.get(CLOSE):
                break
            if ROOT in message:
                self._root = message[ROOT]
            if URL in message:
                self._load(message[URL])
            if TITLE in message:
                self._window.set_title(message[TITLE])  # waits for the window to be shown
        self._close()

    def _load(self, url: str) -> None:
        with self._lock:
            self._url = url
            built = self._built
        if built:  # else _before_show loads it
            self._window.load_url(url)

    def _before_show(self, window: Any) -> None:
        # pywebview runs this on the GUI thread once the native window is built, its first page
        # (the opening page) asked for but not loaded yet.
        with self._lock:
            self._built = True
            url = self._url
        if QT:
            from PySide6.QtCore import QUrl  # noqa: PLC0415  (the window toolkit)

            if url:  # the UI is up already: it replaces the opening page before that one loads
                window.native.webview.setUrl(QUrl(url))
            else:  # the opening page again, on the UI's site: the UI will take over its process
                window.native.webview.setHtml(OPENING_PAGE, QUrl(OPENING_SITE))
            self._grant_and_notify(window.native)
        elif url:  # another backend: the UI once the window shows (not on this thread)
            threading.Thread(target=window.load_url, args=(url,), daemon=True).start()

    def _grant_and_notify(self, native: Any) -> None:
        from idea.app.window import notifications, permissions  # noqa: PLC0415  (Qt)

        try:
            permissions.install(native, lambda: self._url)
        except Exception as exc:  # the window still works without them
            _warn(f"warning: notifications and the clipboard may be refused: {exc}")
        try:
            notifications.install(native)
        except Exception as exc:  # a missing notification path must not keep the window shut
            _warn(f"warning: desktop notifications are unavailable: {exc}")

    def _on_loaded(self) -> None:
        # pywebview's thread for the event, once per page loaded. Once the UI was asked for, its
        # page says when it has shown the project and painted it.
        if not self._url:
            return
        try:
            self._window.evaluate_js(_PAINTED_JS, self._on_painted)
        except Exception as exc:  # a JS error must not hide that the window is up
            _warn(f"warning: could not wait for the first paint: {exc}")
            self._on_painted(origin(self._url))

    def _on_painted(self, page_origin: object) -> None:
        if page_origin != origin(self._url):
            return  # the opening page answered
        with self._lock:
            if self._ready:
                return
            self._ready = True
        _send(self._answers, {EVENT: READY})

    def pick_folder(self) -> str | None:
        """The native folder dialog (called from a pywebview API thread); None if cancelled."""
        # Beside the open project, where another checkout or project most often is.
        beside = Path(self._root).resolve().parent
        folder = self._webview.FileDialog.FOLDER
        chosen = self._window.create_file_dialog(folder, directory=str(beside))
        if not chosen:
            return None
        return str(chosen[0] if isinstance(chosen, list | tuple) else chosen)

    def _close(self) -> None:
        # pywebview's destroy waits for the window to be shown first, so never on the GUI thread.
        try:
            self._window.destroy()
        except Exception as exc:  # never shown: the app's end kills this process
            _warn(f"warning: the window could not close: {exc}")

    def _on_signal(self, _signum: int, _frame: FrameType | None) -> None:
        # Main thread (Qt's loop lets Python run through pywebview's periodic timer).
        threading.Thread(target=self._close, name="idea-close", daemon=True).start()
