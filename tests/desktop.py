"""A desktop for tests and benchmarks: a virtual X display (Xvfb), a window manager (openbox), and
the X tools a user's actions go through (xdotool, wmctrl, xwininfo, ImageMagick's import).

Every wait is bounded; every process started here is stopped (terminate, then kill) on exit.
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.waiting import until_blocking

READY = "IdeA window ready"

X_TOOLS = ("Xvfb", "xwininfo", "import", "identify")
needs_xvfb = pytest.mark.skipif(
    any(shutil.which(tool) is None for tool in X_TOOLS),
    reason="needs Xvfb, xwininfo and ImageMagick (apt-get install xvfb x11-utils imagemagick; "
    ".ci/run installs them)",
)


def stop(proc: subprocess.Popen[bytes] | subprocess.Popen[str]) -> None:
    """Terminate, then kill if it does not go within 10 s; always reaped."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


@contextmanager
def xvfb() -> Iterator[str]:
    """A fresh X display; Xvfb picks a free number and writes it to -displayfd once ready."""
    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        pass_fds=(write_fd,),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    os.close(write_fd)
    try:
        readable, _, _ = select.select([read_fd], [], [], 20)
        assert readable, "Xvfb did not start within 20s"
        number = os.read(read_fd, 64).decode("ascii").strip()
        assert number.isdigit(), f"Xvfb wrote {number!r} on -displayfd"
        yield f":{number}"
    finally:
        stop(proc)
        os.close(read_fd)
        if proc.stderr is not None:
            proc.stderr.close()


def window_env(display: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "WAYLAND_DISPLAY"}
    env.update(
        DISPLAY=display,
        QT_QPA_PLATFORM="xcb",
        QTWEBENGINE_DISABLE_SANDBOX="1",  # tests run as root; Chromium's sandbox refuses root
        PYTHONUNBUFFERED="1",
    )
    return env


def x_titles(display: str) -> str:
    """Every window of the display, with its title (``xwininfo -tree``)."""
    tree = subprocess.run(
        ["xwininfo", "-display", display, "-root", "-tree"],
        capture_output=True,
        text=True,
        timeout=10,
        check=False,
    )
    return tree.stdout


def screenshot_colours(display: str, path: Path, within: float = 20.0) -> int:
    """Capture the X display into ``path`` until it shows more than a few colours (the last
    frame may reach the X server just after the page's paint); returns the colour count."""
    deadline = time.monotonic() + within
    while True:
        subprocess.run(
            ["import", "-display", display, "-window", "root", f"png:{path}"],
            capture_output=True,
            timeout=30,
            check=True,
        )
        colours = subprocess.run(
            ["identify", "-format", "%k", str(path)],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
        count = int(colours.stdout.strip())
        if count > 8 or time.monotonic() > deadline:
            return count


@contextmanager
def window_manager(display: str) -> Iterator[None]:
    proc = subprocess.Popen(
        ["openbox", "--sm-disable"],
        env={**os.environ, "DISPLAY": display},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        # openbox owns the WM selection once wmctrl can name it.
        until_blocking(
            lambda: run_x(display, "wmctrl", "-m").returncode == 0, 20, "openbox to start"
        )
        yield
    finally:
        stop(proc)


def run_x(display: str, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv,
        env={**os.environ, "DISPLAY": display},
        capture_output=True,
        text=True,
        timeout=20,
        check=False,
    )


def wm_titles(display: str) -> list[str]:
    # wmctrl -l: id, desktop, host, title.
    rows = run_x(display, "wmctrl", "-l").stdout.splitlines()
    return [row.split(None, 3)[3] for row in rows if len(row.split(None, 3)) == 4]


def check_window_opens_and_closes(
    argv: list[str], env: dict[str, str], display: str, title: str, shot: Path
) -> None:
    """``idea open`` as a user sees it: the window says ready, has its title, shows a page that is
    not blank, and SIGTERM closes it cleanly (exit 0, ``closed``, no helper process left)."""
    import psutil  # noqa: PLC0415

    from tests.processes import LineWatcher, spawned  # noqa: PLC0415

    with spawned(argv, env=env) as proc:
        out = LineWatcher(proc.stdout)  # type: ignore[arg-type]
        out.wait_for(lambda line: line.startswith("IdeA UI: http://127.0.0.1:"), timeout=90)
        out.wait_for(lambda line: line.strip() == READY, timeout=120)
        assert f'"{title}"' in x_titles(display)
        shot.parent.mkdir(parents=True, exist_ok=True)
        assert screenshot_colours(display, shot) > 8, "the window's screenshot stays blank"
        tree = psutil.Process(proc.pid).children(recursive=True)
        assert tree, "Qt WebEngine runs helper processes"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0, proc.stderr.read() if proc.stderr else ""
        _, alive = psutil.wait_procs(tree, timeout=10)
        assert not alive, f"left behind: {alive}"
        out.wait_for(lambda line: line.strip() == "closed", timeout=5)


# The X clipboard as another application sees it: a Qt client of the same display.
_READ_CLIPBOARD = (
    "from PySide6.QtGui import QGuiApplication\n"
    "app = QGuiApplication(['reader'])\n"
    "print(app.clipboard().text(), end='')\n"
)
_OWN_CLIPBOARD = (
    "import sys\n"
    "from PySide6.QtGui import QGuiApplication\n"
    "app = QGuiApplication(['owner'])\n"
    "app.clipboard().setText(sys.argv[1])\n"
    "print('owned', flush=True)\n"
    "app.exec()\n"
)


def _qt_client_env(display: str) -> dict[str, str]:
    return {**os.environ, "DISPLAY": display, "QT_QPA_PLATFORM": "xcb"}


def clipboard_text(display: str) -> str:
    """What another application pastes from the display's clipboard now."""
    read = subprocess.run(
        [sys.executable, "-c", _READ_CLIPBOARD],
        env=_qt_client_env(display),
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return read.stdout


@contextmanager
def clipboard_holding(display: str, text: str) -> Iterator[None]:
    """Another application copies ``text`` and keeps it on the clipboard (an X selection lives
    as long as its owner) until the block ends."""
    owner = subprocess.Popen(
        [sys.executable, "-c", _OWN_CLIPBOARD, text],
        env=_qt_client_env(display),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert owner.stdout is not None
        ready, _, _ = select.select([owner.stdout], [], [], 30)
        assert ready and owner.stdout.readline().strip() == "owned", "the clipboard owner failed"
        yield
    finally:
        stop(owner)
        if owner.stdout is not None:
            owner.stdout.close()
