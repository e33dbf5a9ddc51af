"""How ``idea`` was started, on Windows: a console shared with the shell that started it means a
terminal (the current folder is the project), a console made for it alone means a desktop
launcher; ``hide_own_console`` hides only the latter. Under wine no console window is ever shown
(no display), so what is checked is the decision, in real child processes, not the pixels."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.windows_lane import windows_only

pytestmark = windows_only

PROBE = """
import ctypes, json, sys
from idea.app.launch_context import hide_own_console, started_from_terminal
user32 = ctypes.WinDLL("user32")
window = ctypes.WinDLL("kernel32").GetConsoleWindow()
visible = bool(window) and bool(user32.IsWindowVisible(window))
hide_own_console()
after = bool(window) and bool(user32.IsWindowVisible(window))
with open(sys.argv[1], "w", encoding="utf-8") as out:
    json.dump({"terminal": started_from_terminal(), "visible": [visible, after]}, out)
"""


def probe(tmp_path, **options) -> dict:
    report = tmp_path / "report.json"
    subprocess.run([sys.executable, "-c", PROBE, str(report)], timeout=30, check=True, **options)
    return json.loads(report.read_text(encoding="utf-8"))


def test_a_console_shared_with_the_parent_is_a_terminal_and_stays(tmp_path):
    seen = probe(tmp_path)
    assert seen["terminal"] is True
    assert seen["visible"][0] == seen["visible"][1]  # not hidden


def test_a_console_of_its_own_is_a_launcher_and_is_hidden(tmp_path):
    seen = probe(tmp_path, creationflags=subprocess.CREATE_NEW_CONSOLE)
    assert seen["terminal"] is False
    assert seen["visible"][1] is False
