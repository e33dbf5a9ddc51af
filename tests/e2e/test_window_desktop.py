"""The window as a desktop user drives it: a window manager (openbox), the keyboard (xdotool),
the native folder dialog, and the window manager's close.

A shell agent runs in the first project; the user opens the dialog (Alt+Shift+O), picks another
folder in Qt's native folder dialog, and the window switches project (title, `.ideai/` made, the
first project's shell stopped). Closing the window through the window manager (as its close button
does) closes the project: exit 0, ``closed`` printed, no process left behind.
"""

import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil
import pytest
from jeepney import HeaderFields, MessageType, new_error, new_method_return
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection

from tests.desktop import READY, run_x, stop, window_env, window_manager, wm_titles, xvfb
from tests.e2e.conftest import make_project
from tests.processes import LineWatcher, spawned
from tests.waiting import until_blocking
from tests.worlds import trust_project

IDEA = [sys.executable, "-m", "idea"]
TOOLS = ("Xvfb", "openbox", "wmctrl", "xdotool")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        any(shutil.which(t) is None for t in TOOLS),
        reason="needs Xvfb, openbox, wmctrl and xdotool "
        "(apt-get install xvfb openbox wmctrl xdotool; .ci/run installs them)",
    ),
]


def file_door_request(project: Path, request_id: str, body: dict[str, object]) -> dict:
    folder = project / ".ideai" / "orchestrator"
    tmp = folder / f".{request_id}.tmp"
    tmp.write_text(json.dumps(body), encoding="utf-8")
    os.replace(tmp, folder / f"{request_id}.request.json")
    answer = folder / f"{request_id}.response.json"
    until_blocking(answer.exists, 30, f"{answer.name}")
    return json.loads(answer.read_text(encoding="utf-8"))


@pytest.mark.timeout(240)
def test_pick_another_folder_natively_then_close_through_the_window_manager(tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    config = tmp_path / "config"
    with xvfb() as display, window_manager(display):
        env = {**window_env(display), "IDEA_CONFIG_DIR": str(config), "SHELL": "/bin/sh"}
        with spawned([*IDEA, "open", str(first)], env=env) as app:
            out = LineWatcher(app.stdout)
            out.wait_for(lambda line: line.strip() == READY, timeout=120)
            until_blocking(lambda: "IdeA — first" in wm_titles(display), 20, "the window's title")

            made = file_door_request(
                first, "spawn", {"action": "agent.spawn", "name": "sh", "profile": "shell"}
            )
            assert made["ok"] is True, made
            idea = psutil.Process(app.pid)
            shells = [p for p in idea.children(recursive=True) if p.name() in ("sh", "dash")]
            assert shells, "the shell agent runs under the app"

            # Alt+Shift+O opens the dialog with the path field focused; the button before it
            # opens Qt's native folder dialog.
            window = run_x(display, "xdotool", "search", "--name", "IdeA — first").stdout.split()[0]
            run_x(display, "xdotool", "windowactivate", "--sync", window)
            run_x(display, "xdotool", "key", "alt+shift+o")
            run_x(display, "xdotool", "key", "shift+Tab")
            run_x(display, "xdotool", "key", "Return")
            until_blocking(
                lambda: "Open folder" in wm_titles(display), 30, "the native folder dialog"
            )
            dialog = run_x(display, "xdotool", "search", "--name", "Open folder").stdout.split()[0]
            run_x(display, "xdotool", "windowactivate", "--sync", dialog)
            until_blocking(
                lambda: run_x(display, "xdotool", "getactivewindow").stdout.strip() == dialog,
                10,
                "the folder dialog to take the focus",
            )
            # The dialog starts beside the open project: the sibling's name is enough.
            run_x(display, "xdotool", "type", "--delay", "5", second.name)
            run_x(display, "xdotool", "key", "Return")

            until_blocking(
                lambda: "IdeA — second" in wm_titles(display), 60, "the second project's window"
            )
            assert (second / ".ideai" / "project.json").is_file()
            _, alive = psutil.wait_procs(shells, timeout=15)
            assert not alive, "the first project's shell outlived its project"
            recent = json.loads((config / "recent-projects.json").read_text(encoding="utf-8"))
            assert [p["root"] for p in recent["projects"]] == [
                str(second.resolve()),
                str(first.resolve()),
            ]

            tree = idea.children(recursive=True)
            assert run_x(display, "wmctrl", "-c", "IdeA — second").returncode == 0
            assert app.wait(timeout=60) == 0, app.stderr.read() if app.stderr else ""
            out.wait_for(lambda line: line.strip() == "closed", timeout=5)
            _, alive = psutil.wait_procs(tree, timeout=15)
            assert not alive, f"left behind: {alive}"


@contextmanager
def session_bus() -> Iterator[str]:
    """A private D-Bus session bus; yields its address."""
    proc = subprocess.Popen(
        ["dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        address = LineWatcher(proc.stdout).wait_for(lambda line: "=" in line, timeout=20)
        yield address.strip()
    finally:
        stop(proc)
        if proc.stdout is not None:
            proc.stdout.close()


class NotificationService(threading.Thread):
    """org.freedesktop.Notifications on a bus, as a desktop runs it: records each Notify."""

    def __init__(self, address: str) -> None:
        super().__init__(daemon=True)
        self.conn = open_dbus_connection(bus=address)
        reply = self.conn.send_and_get_reply(
            message_bus.RequestName("org.freedesktop.Notifications"), timeout=10
        )
        assert reply.body == (1,), f"could not own the name: {reply}"  # 1: primary owner
        self.notified: list[tuple[str, str]] = []
        self._stopping = threading.Event()

    def run(self) -> None:
        while not self._stopping.is_set():
            try:
                msg = self.conn.receive(timeout=0.2)
            except TimeoutError:
                continue
            header = msg.header
            if header.message_type != MessageType.method_call:
                continue
            member = header.fields.get(HeaderFields.member)
            if member == "Notify":
                _app, _replaces, _icon, summary, body, *_ = msg.body
                self.notified.append((summary, body))
                self.conn.send(new_method_return(msg, "u", (len(self.notified),)))
            else:
                self.conn.send(new_error(msg, "org.freedesktop.DBus.Error.UnknownMethod"))

    def stop(self) -> None:
        self._stopping.set()
        self.join(timeout=5)
        self.conn.close()


@pytest.mark.timeout(240)
@pytest.mark.skipif(shutil.which("dbus-daemon") is None, reason="needs dbus-daemon")
def test_a_reply_while_the_window_is_in_the_background_reaches_the_desktop(tmp_path):
    project = make_project(tmp_path)
    trust_project(project)
    with session_bus() as address, xvfb() as display, window_manager(display):
        service = NotificationService(address)
        service.start()
        env = {
            **window_env(display),
            "DBUS_SESSION_BUS_ADDRESS": address,
            "HOME": str(tmp_path / "home"),
            "CLAUDE_CONFIG_DIR": str(tmp_path / "home" / ".claude"),
        }
        try:
            with spawned([*IDEA, "open", str(project)], env=env) as app:
                LineWatcher(app.stdout).wait_for(lambda line: line.strip() == READY, timeout=120)
                until_blocking(
                    lambda: "IdeA — project" in wm_titles(display), 20, "the window's title"
                )
                window = run_x(display, "xdotool", "search", "--name", "IdeA — project")
                window_id = window.stdout.split()[0]
                run_x(display, "xdotool", "windowactivate", "--sync", window_id)
                # Browsers grant notifications only after a user gesture: a key press.
                run_x(display, "xdotool", "key", "shift")
                # The user turns away: the window goes to the background.
                run_x(display, "xdotool", "windowminimize", "--sync", window_id)

                answer = file_door_request(
                    project, "ask", {"action": "agent.message", "targetAgent": "bot", "task": "hi"}
                )
                assert answer["ok"] is True, answer
                until_blocking(lambda: bool(service.notified), 30, "a desktop notification")
                assert service.notified[0] == ("bot", "echo: hi")
        finally:
            service.stop()
