"""``idea`` / ``idea open``: the project in a pywebview window (DESIGN.md §2, §8).

Process model: the window owns the main thread (pywebview requires it); one core thread runs the
asyncio loop that owns the project runtime and its UI server (the same ``serve_project`` as
``idea serve``), and the window loads the UI server's URL with its token. Cross-thread hand-offs go
through ``call_soon_threadsafe`` (stopping the core) and pywebview's thread-safe window methods
(destroying the window); no state is shared otherwise.

Closing the window, SIGTERM or SIGINT ends the GUI loop; the core then closes the project (UI
server stopped, cells snapshotted, sessions stopped) and the process exits 0. Without a display, or
when pywebview/Qt cannot start, the project is served as by ``idea serve`` with one line saying why
there is no window. ``webview`` and Qt are imported only here, and only once a window is wanted.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import signal
import subprocess
import sys
import threading
import webbrowser
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any, TypeGuard
from urllib.parse import urlsplit

from idea.app.headless import Printer, serve_project, serve_until_signalled
from idea.app.project_host import ProjectHost
from idea.app.runtime import ProjectRuntime

READY_LINE = "IdeA window ready"
TITLE_PREFIX = "IdeA — "
WIDTH, HEIGHT = 1200, 760
PROBE_TIMEOUT_S = 30.0
OPEN_TIMEOUT_S = 120.0  # opening reconciles the project: it may wait for leftover processes
CLOSE_TIMEOUT_S = 30.0
EXIT_CORE_STUCK = 1
# What the page may hand to the system browser: a web address, nothing that runs or reads files.
EXTERNAL_SCHEMES = ("http", "https")
EXTERNAL_URL_MAX = 8192

# The UI resolves ``window.ideaReady`` once the project is shown (bounded, in case the page is
# not the built UI); then two animation frames make sure it was painted.
_PAINTED_JS = (
    "Promise.race([window.ideaReady || Promise.resolve(),"
    " new Promise(r => setTimeout(r, 10000))])"
    ".then(() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(1)))))"
)

# Run in a child process before the window: a Qt that cannot load its platform plugin (no X
# server, a missing libxcb-*) aborts the whole process instead of raising, so it must not be ours.
_QT_PROBE = (
    "from PySide6 import QtWebEngineWidgets\n"
    "from PySide6.QtWidgets import QApplication\n"
    "QApplication(['idea'])\n"
)


def display_available() -> bool:
    """False on Linux (and other X11/Wayland systems) when neither DISPLAY nor WAYLAND_DISPLAY is
    set; True elsewhere (Windows and macOS always have a desktop for a logged-in user)."""
    if sys.platform in ("win32", "darwin"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def open_in_window(root: Path, out: Printer, err: Printer, port: int = 0) -> int:
    reason = _no_window_reason(err)
    if reason is not None:
        out(f"IdeA window unavailable ({reason}); serving the UI for a browser instead")
        return serve_until_signalled(root, out, err, port)
    return _WindowApp(root, out, err, port).run()


def _no_window_reason(err: Printer) -> str | None:
    if not display_available():
        return "no display: DISPLAY and WAYLAND_DISPLAY are unset"
    try:
        import webview  # noqa: F401, PLC0415  (lazy: only the window path loads it)
    except ImportError as exc:
        return f"pywebview cannot be imported: {exc}"
    if sys.platform in ("win32", "darwin"):
        return None
    if os.geteuid() == 0 and "QTWEBENGINE_DISABLE_SANDBOX" not in os.environ:
        # Chromium refuses to run its sandbox as root: the page would never load.
        os.environ["QTWEBENGINE_DISABLE_SANDBOX"] = "1"
        err("warning: running as root: Qt WebEngine's sandbox is disabled")
    return None


def _qt_failure() -> str | None:
    """Why Qt cannot show a window here (it would abort the process), or None; a child process
    tries. Not run on Windows and macOS, nor in the frozen build (no ``-c``; its Qt is bundled)."""
    if sys.platform in ("win32", "darwin") or getattr(sys, "frozen", False):
        return None
    try:
        probe = subprocess.run(
            [sys.executable, "-c", _QT_PROBE],
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=PROBE_TIMEOUT_S,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return f"Qt did not start within {PROBE_TIMEOUT_S:.0f}s"
    except OSError as exc:
        return f"Qt could not be probed: {exc}"
    if probe.returncode != 0:
        return "Qt cannot start: " + _first_telling_line(probe.stderr, probe.returncode)
    return None


def _first_telling_line(stderr: str, code: int) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    if not lines:
        return f"exit code {code}"
    telling = lines[-1] if "Error" in lines[-1] else lines[0]
    return telling[:300]


class _CoreThread(threading.Thread):
    """The core asyncio loop: the project runtime and its UI server, until ``stop()``."""

    def __init__(self, root: Path, out: Printer, err: Printer, port: int) -> None:
        super().__init__(name="idea-core", daemon=True)
        self._root, self._out, self._err, self._port = root, out, err, port
        # The open project's folder (the folder dialog starts beside it).
        self.current_root = root
        self.ui: concurrent.futures.Future[tuple[str, str]] = concurrent.futures.Future()
        self.on_switch: Callable[[str], None] = lambda _name: None
        self.error: BaseException | None = None
        self._loop = asyncio.new_event_loop()
        self._stop_event = asyncio.Event()

    def run(self) -> None:
        try:
            with asyncio.Runner(loop_factory=lambda: self._loop) as runner:
                runner.run(
                    serve_project(
                        self._root,
                        self._out,
                        self._err,
                        self._port,
                        self._stop_event,
                        self._ui_started,
                    )
                )
        except BaseException as exc:
            self.error = exc
        if not self.ui.done():
            self.ui.set_exception(self.error or RuntimeError("the core closed before its UI"))

    def _ui_started(self, host: ProjectHost, url: str) -> None:
        host.on_switch(self._switched)
        self.ui.set_result((host.current.services.info.name, url))

    def _switched(self, runtime: ProjectRuntime) -> None:
        self.current_root = runtime.services.paths.root
        self.on_switch(runtime.services.info.name)

    def stop(self) -> None:
        """Thread-safe; a no-op once the loop has closed."""
        with contextlib.suppress(RuntimeError):
            self._loop.call_soon_threadsafe(self._stop_event.set)


class _WindowApp:
    def __init__(self, root: Path, out: Printer, err: Printer, port: int) -> None:
        self._core = _CoreThread(root, out, err, port)
        self._out, self._err = out, err
        self._lock = threading.Lock()
        self._closing = False
        self._loaded = False
        self._ready = False
        self._window: Any = None  # webview.Window, imported lazily

    def run(self) -> int:
        signals = (signal.SIGINT, signal.SIGTERM)
        previous = {sig: signal.getsignal(sig) for sig in signals}
        for sig in signals:
            signal.signal(sig, self._on_signal)
        try:
            self._core.start()
            # Qt is tried while the core opens the project: both take a while, neither needs
            # the other. If Qt cannot start, the project the core opened is served as it is.
            reason = _qt_failure()
            if reason is not None:
                self._out(
                    f"IdeA window unavailable ({reason}); serving the UI for a browser instead"
                )
                self._serve_until_stopped()
            else:
                name, url = self._core.ui.result(timeout=OPEN_TIMEOUT_S)
                if not self._closing:
                    self._show(name, url)
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            self._core.stop()
            self._core.join(CLOSE_TIMEOUT_S)
        if self._core.is_alive():
            self._err(f"error: the project did not close within {CLOSE_TIMEOUT_S:.0f}s")
            return EXIT_CORE_STUCK
        if self._core.error is not None:
            raise self._core.error
        return 0

    def _serve_until_stopped(self) -> None:
        """No window: the core serves the UI (its URL printed) until a signal stops it."""
        self._core.ui.result(timeout=OPEN_TIMEOUT_S)  # raises what kept the project shut
        self._out(
            "headless core running (file door and UI server open); stop with Ctrl+C or SIGTERM"
        )
        while self._core.is_alive():
            self._core.join(0.2)  # returns to the interpreter: signal handlers run

    def _show(self, name: str, url: str) -> None:
        import webview  # noqa: PLC0415

        window = webview.create_window(
            TITLE_PREFIX + name,
            url,
            width=WIDTH,
            height=HEIGHT,
            text_select=True,
            js_api=_WindowBridge(self),
        )
        if window is None:  # pywebview returns None only when called from a running GUI loop
            raise RuntimeError("pywebview created no window")
        window.events.before_show += self._before_show
        window.events.loaded += self._on_loaded
        window.events.shown += self._on_shown
        window.events.closed += self._core.stop
        self._window = window
        self._core.on_switch = self._retitle
        # pywebview replaces our SIGINT handler by its own, which quits the GUI loop: the same end.
        webview.start(gui="qt" if sys.platform.startswith("linux") else None)

    def _on_loaded(self) -> None:
        # pywebview's thread for the event. The DOM is ready; the line is printed once the UI
        # has shown the project and painted it, so that whoever waits for it sees the UI.
        with self._lock:
            if self._loaded:
                return
            self._loaded = True
        try:
            self._window.evaluate_js(_PAINTED_JS, self._on_painted)
        except Exception as exc:  # a JS error must not hide that the window is up
            self._err(f"warning: could not wait for the first paint: {exc}")
            self._on_painted(None)

    def _on_painted(self, _result: object) -> None:
        with self._lock:
            if self._ready:
                return
            self._ready = True
        self._out(READY_LINE)

    def _before_show(self, window: Any) -> None:
        # pywebview runs this on the GUI thread, before the page loads.
        from idea.app.window import notifications, permissions  # noqa: PLC0415  (Qt)

        try:
            permissions.install(window.native, window.original_url or "")
        except Exception as exc:  # the window still works without them
            self._err(f"warning: notifications and the clipboard may be refused: {exc}")
        try:
            notifications.install(window.native)
        except Exception as exc:  # a missing notification path must not keep the window shut
            self._err(f"warning: desktop notifications are unavailable: {exc}")

    def _retitle(self, name: str) -> None:
        # Core thread: pywebview's title setter may wait for the page, so not on the core loop.
        window = self._window
        threading.Thread(
            target=lambda: window.set_title(TITLE_PREFIX + name), name="idea-title", daemon=True
        ).start()

    def pick_folder(self) -> str | None:
        """The native folder dialog (called from a pywebview API thread); None if cancelled."""
        import webview  # noqa: PLC0415

        # Beside the open project, where another checkout or project most often is.
        beside = self._core.current_root.resolve().parent
        chosen = self._window.create_file_dialog(webview.FileDialog.FOLDER, directory=str(beside))
        if not chosen:
            return None
        return str(chosen[0] if isinstance(chosen, list | tuple) else chosen)

    def _on_shown(self) -> None:
        with self._lock:
            closing = self._closing
        if closing:
            self._window.destroy()

    def _on_signal(self, _signum: int, _frame: FrameType | None) -> None:
        # Main thread (Qt's loop lets Python run through pywebview's periodic timer).
        with self._lock:
            self._closing = True
            window = self._window
        if window is not None:
            window.destroy()  # thread-safe: a queued Qt signal; a no-op before the window shows
        else:
            self._core.stop()


def external_url(url: object) -> TypeGuard[str]:
    """True for an absolute http(s) URL with a host and no whitespace or control characters: the
    only links a chat message may open in the system browser (no ``file:``, ``javascript:``, no
    argument for the opener that starts with ``-``)."""
    if not isinstance(url, str) or not url or len(url) > EXTERNAL_URL_MAX:
        return False
    if any(ch.isspace() or ord(ch) < 0x20 or ord(ch) == 0x7F for ch in url):
        return False
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:  # an unbalanced "[" in the host, a bad port
        return False
    return parts.scheme.lower() in EXTERNAL_SCHEMES and bool(host)


class _WindowBridge:
    """What the page may call in the window (``window.pywebview.api``): the folder dialog, and
    opening a web link in the system browser.

    Its public attributes are exposed to JavaScript, so it holds the app behind a private name.
    """

    def __init__(
        self, app: _WindowApp, open_browser: Callable[[str], bool] = webbrowser.open
    ) -> None:
        self._app = app
        self._open_browser = open_browser

    def pick_folder(self) -> str | None:
        return self._app.pick_folder()

    def open_url(self, url: object) -> bool:
        """Open ``url`` in the system browser if ``external_url`` accepts it; False otherwise."""
        return external_url(url) and bool(self._open_browser(url))
