"""``idea open`` as a user runs it: a real pywebview/Qt window on a virtual X display (Xvfb).

The window must load the UI (``IdeA window ready``), show a non-blank page, and close cleanly on
SIGTERM (exit 0, no process left behind). Without a display, ``idea open`` serves like
``idea serve`` and says why there is no window.
"""

import contextlib
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from tests.processes import LineWatcher, spawned

IDEA = [sys.executable, "-m", "idea"]
REPO = Path(__file__).resolve().parents[2]
SCREENSHOT = (
    Path(os.environ.get("IDEA_SCREENSHOTS_DIR") or Path(tempfile.gettempdir()) / "idea-screenshots")
    / "window.png"
)
READY = "IdeA window ready"

needs_xvfb = pytest.mark.skipif(
    shutil.which("Xvfb") is None,
    reason="Xvfb is not installed (apt-get install xvfb; .ci/run installs it)",
)


@contextlib.contextmanager
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
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        os.close(read_fd)
        if proc.stderr is not None:
            proc.stderr.close()


def _window_env(display: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "WAYLAND_DISPLAY"}
    env.update(
        DISPLAY=display,
        QT_QPA_PLATFORM="xcb",
        QTWEBENGINE_DISABLE_SANDBOX="1",  # tests run as root; Chromium's sandbox refuses root
        PYTHONUNBUFFERED="1",
    )
    return env


def _titles(display: str) -> str:
    if shutil.which("xwininfo") is None:
        return ""
    tree = subprocess.run(
        ["xwininfo", "-display", display, "-root", "-tree"],
        capture_output=True,
        text=True,
        timeout=10,
        check=False,
    )
    return tree.stdout


def _screenshot(display: str, path: Path, within: float = 20.0) -> int:
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


@needs_xvfb
@pytest.mark.slow
@pytest.mark.timeout(180)
def test_open_shows_the_ui_in_a_window_and_closes_cleanly_on_sigterm(tmp_path):
    project = tmp_path / "demo"
    project.mkdir()
    with xvfb() as display, spawned([*IDEA, "open", str(project)], env=_window_env(display)) as p:
        out = LineWatcher(p.stdout)
        out.wait_for(lambda line: line.startswith("IdeA UI: http://127.0.0.1:"), timeout=60)
        out.wait_for(lambda line: line.strip() == READY, timeout=90)

        titles = _titles(display)
        if titles:
            assert '"IdeA — demo"' in titles, titles

        SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        if shutil.which("import") is not None:
            assert _screenshot(display, SCREENSHOT) > 8, "the window's screenshot stays blank"

        tree = psutil.Process(p.pid).children(recursive=True)
        assert tree, "Qt WebEngine runs helper processes"
        p.send_signal(signal.SIGTERM)
        assert p.wait(timeout=30) == 0, p.stderr.read() if p.stderr else ""
        _, alive = psutil.wait_procs(tree, timeout=10)
        assert not alive, f"left behind: {alive}"
        out.wait_for(lambda line: line.strip() == "closed", timeout=5)
    assert (project / ".ideai" / "project.json").is_file()


def test_open_without_a_display_serves_and_says_why(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    with spawned([*IDEA, "open", str(tmp_path)], env=env) as proc:
        out = LineWatcher(proc.stdout)
        url = out.wait_for(lambda line: line.startswith("IdeA UI:"), timeout=30)
        assert "http://127.0.0.1:" in url
        assert "/?token=" in url
        assert "IdeA window unavailable (no display" in out.text()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0


def test_serve_and_the_bridge_never_import_the_window_toolkit():
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, idea.cli, idea.app.headless, idea.app.window, idea.bridge.main\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
            "('webview', 'PySide6', 'qtpy', 'PyQt6'))\n"
            "assert not bad, bad\n",
        ],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert probe.returncode == 0, probe.stderr
