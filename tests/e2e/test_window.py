"""``idea open`` as a user runs it: a real pywebview/Qt window on a virtual X display (Xvfb).

The window must load the UI (``IdeA window ready``), show a non-blank page, and close cleanly on
SIGTERM (exit 0, no process left behind). Without a display, ``idea open`` serves like
``idea serve`` and says why there is no window.
"""

import os
import signal
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

import psutil
import pytest

from tests.desktop import check_window_opens_and_closes, needs_xvfb, window_env, x_titles, xvfb
from tests.processes import LineWatcher, spawned

IDEA = [sys.executable, "-m", "idea"]
REPO = Path(__file__).resolve().parents[2]
SCREENSHOT = (
    Path(os.environ.get("IDEA_SCREENSHOTS_DIR") or Path(tempfile.gettempdir()) / "idea-screenshots")
    / "window.png"
)


@needs_xvfb
@pytest.mark.slow
@pytest.mark.timeout(180)
def test_open_shows_the_ui_in_a_window_and_closes_cleanly_on_sigterm(tmp_path):
    project = tmp_path / "demo"
    project.mkdir()
    with xvfb() as display:
        argv = [*IDEA, "open", str(project)]
        check_window_opens_and_closes(argv, window_env(display), display, "IdeA — demo", SCREENSHOT)
    assert (project / ".ideai" / "project.json").is_file()


def window_processes(display: str) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter():
        try:
            if "window-process" in proc.cmdline() and proc.environ().get("DISPLAY") == display:
                found.append(proc)
        except psutil.Error:
            continue
    return found


@needs_xvfb
@pytest.mark.timeout(60)
def test_open_with_a_bad_folder_says_so_and_leaves_no_window_behind(tmp_path):
    # The window process starts before the command line is checked: a refused command ends it.
    not_a_folder = tmp_path / "notes.txt"
    not_a_folder.write_text("x", encoding="utf-8")
    with xvfb() as display:
        done = subprocess.run(
            [*IDEA, "open", str(not_a_folder)],
            env=window_env(display),
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        assert done.returncode == 2, done.stderr
        assert "is not a folder" in done.stderr
        assert window_processes(display) == []
        assert "IdeA" not in x_titles(display)


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


@needs_xvfb
@pytest.mark.timeout(120)
def test_open_where_qt_cannot_start_serves_the_project_it_opened_and_says_why(tmp_path):
    # A display, but a Qt that cannot start on it (as with a missing libxcb-* library): Qt is
    # tried while the project opens, and the project is then served for a browser.
    project = tmp_path / "demo"
    project.mkdir()
    with xvfb() as display:
        env = {**window_env(display), "QT_QPA_PLATFORM": "no-such-platform"}
        with spawned([*IDEA, "open", str(project)], env=env) as proc:
            out = LineWatcher(proc.stdout)
            out.wait_for(lambda line: line.startswith("headless core running"), timeout=60)
            text = out.text()
            assert "IdeA window unavailable (Qt cannot start: " in text
            assert "no-such-platform" in text
            url = next(line for line in text.splitlines() if line.startswith("IdeA UI: "))
            with urllib.request.urlopen(url.removeprefix("IdeA UI: "), timeout=10) as page:
                assert page.status == 200
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(timeout=30) == 0
            out.wait_for(lambda line: line.strip() == "closed", timeout=5)


def test_serve_and_the_bridge_never_import_the_window_toolkit():
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, idea.cli, idea.app.headless, idea.app.window.desktop, idea.bridge.main\n"
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
