"""``idea`` / ``idea open``: the project in a pywebview window (DESIGN.md §2, §8).

Process model: two processes. The window process (``process.py``) owns the pywebview window on its
main thread; this process runs the project runtime and its UI server on an asyncio loop, the same
``serve_project`` as ``idea serve`` (``linked.py``). The window process is spawned before anything
else is imported, so that Qt starts while this process opens the project: on two cores, with no
interpreter lock between them. It shows "opening…" until the UI server's URL reaches it.

Closing the window, SIGTERM or SIGINT: the window closes first, then the project (UI server
stopped, cells snapshotted, sessions stopped), and the process exits 0. Without a display, or when
the window process shows no window (no pywebview; a Qt that cannot start aborts that process, not
this one), the project is served as by ``idea serve`` with one line saying why there is no window.
Neither ``webview`` nor Qt is imported in this process.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

from idea.app.window.link import CLOSE_TIMEOUT_S, UNAVAILABLE_LINE, WindowLink

Printer = Callable[[str], None]


def display_available() -> bool:
    """False on Linux (and other X11/Wayland systems) when neither DISPLAY nor WAYLAND_DISPLAY is
    set; True elsewhere (Windows and macOS always have a desktop for a logged-in user)."""
    if sys.platform in ("win32", "darwin"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def start_window(err: Printer) -> WindowLink:
    """The window process, started now; raises ``OSError`` if it cannot be."""
    _sandbox_off_as_root(err)
    return WindowLink.spawn(err)


def open_in_window(
    root: Path, out: Printer, err: Printer, port: int = 0, window: WindowLink | None = None
) -> int:
    """``window``: the window process if it was started already (``start_window``)."""
    if window is None and not display_available():
        return _serve_for_a_browser(
            "no display: DISPLAY and WAYLAND_DISPLAY are unset", root, out, err, port
        )
    if window is None:
        try:
            window = start_window(err)
        except OSError as exc:
            reason = f"the window process cannot start: {exc}"
            return _serve_for_a_browser(reason, root, out, err, port)
    try:
        from idea.app.window.linked import serve_with_window  # noqa: PLC0415  (the whole app)

        return serve_with_window(root, out, err, port, window)
    finally:
        window.close(CLOSE_TIMEOUT_S)


def _serve_for_a_browser(reason: str, root: Path, out: Printer, err: Printer, port: int) -> int:
    from idea.app.headless import serve_until_signalled  # noqa: PLC0415  (the whole app)

    out(UNAVAILABLE_LINE.format(reason))
    return serve_until_signalled(root, out, err, port)


def _sandbox_off_as_root(err: Printer) -> None:
    if sys.platform in ("win32", "darwin") or os.geteuid() != 0:
        return
    if "QTWEBENGINE_DISABLE_SANDBOX" not in os.environ:
        # Chromium refuses to run its sandbox as root: the page would never load. The window
        # process inherits the setting.
        os.environ["QTWEBENGINE_DISABLE_SANDBOX"] = "1"
        err("warning: running as root: Qt WebEngine's sandbox is disabled")
