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

from tests.desktop import (
    READY,
    clipboard_holding,
    clipboard_text,
    run_x,
    stop,
    window_env,
    window_manager,
    wm_titles,
    xvfb,
)
from tests.devtools import PageDevTools, devtools_env, window_page
from tests.e2e.conftest import make_project
from tests.net import free_port
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


class Pointer:
    """The user's mouse and keyboard on the window, through X (xdotool); the page only says where
    things are (``PageDevTools``)."""

    def __init__(self, display: str, window_id: str, page: PageDevTools) -> None:
        self.display, self.window_id, self.page = display, window_id, page

    def move(self, x: float, y: float) -> None:
        run_x(
            self.display,
            "xdotool",
            "mousemove",
            "--window",
            self.window_id,
            str(int(x)),
            str(int(y)),
        )

    def click(self, selector: str, button: str = "1") -> None:
        spot = self.page.rect(selector)
        self.move(spot["x"], spot["y"])
        run_x(self.display, "xdotool", "click", button)

    def type(self, text: str) -> None:
        run_x(self.display, "xdotool", "type", "--delay", "20", text)

    def key(self, *keys: str) -> None:
        run_x(self.display, "xdotool", "key", *keys)

    def terminal_word(self, agent: str, line: str, column: float) -> tuple[float, float]:
        """Where column ``column`` of the terminal row showing exactly ``line`` is on the page."""
        cell = json.dumps(f'.cell[data-agent="{agent}"]')
        spot = self.page.wait_for(
            f"""(() => {{ const cell = document.querySelector({cell});
            const t = window.ideaTerminals.get({json.dumps(agent)});
            const screen = cell?.querySelector('.xterm-screen')?.getBoundingClientRect();
            const row = [...cell.querySelectorAll('.xterm-rows > div')]
              .find(d => d.textContent.trim() === {json.dumps(line)});
            if (!t || !screen || !row) return null;
            const r = row.getBoundingClientRect();
            return {{x: r.x + {column} * screen.width / t.cols, y: r.y + r.height / 2}}; }})()""",
            what=f"{line!r} in the terminal of {agent}",
        )
        return spot["x"], spot["y"]

    def wait_line(self, agent: str, test: str) -> None:
        self.page.wait_for(
            f"window.ideaTerminals.get({json.dumps(agent)})?.lines().some(l => {test})",
            what=f"a line of {agent}'s terminal where {test}",
        )


@pytest.mark.timeout(240)
def test_links_open_in_the_system_browser_and_the_clipboard_is_the_desktops(tmp_path):
    """In the real window: a link in a reply and one in a terminal open in the system browser
    (``$BROWSER``), the page stays; what is selected in a terminal is on the desktop's clipboard;
    what another application copied pastes in (Ctrl+Shift+V, and the terminal menu's Paste)."""
    project = make_project(tmp_path)
    trust_project(project)
    opened = tmp_path / "opened.txt"
    browser = tmp_path / "browser"
    browser.write_text(f'#!/bin/sh\nprintf "%s\\n" "$1" >> "{opened}"\n', encoding="utf-8")
    browser.chmod(0o755)
    port = free_port()
    with xvfb() as display, window_manager(display):
        env = {
            **window_env(display),
            **devtools_env(port),
            "BROWSER": f"{browser} %s",
            "HOME": str(tmp_path / "home"),
            "CLAUDE_CONFIG_DIR": str(tmp_path / "home" / ".claude"),
        }
        with spawned([*IDEA, "open", str(project)], env=env) as app:
            LineWatcher(app.stdout).wait_for(lambda line: line.strip() == READY, timeout=120)
            until_blocking(lambda: "IdeA — project" in wm_titles(display), 20, "the window's title")
            window_id = run_x(
                display, "xdotool", "search", "--name", "IdeA — project"
            ).stdout.split()[0]
            run_x(display, "xdotool", "windowactivate", "--sync", window_id)
            with window_page(port) as page:
                user = Pointer(display, window_id, page)
                page.wait_for("document.querySelector('.connection')?.textContent === 'connected'")
                start_url = page.evaluate("location.href")

                # A link in a chat reply.
                user.click('.picker-row[data-agent="bot"] .picker-main')
                user.click('.cell[data-agent="bot"] .chat-input')
                user.type("see https://example.com/docs?q=1")
                user.key("Return")
                user.click('.cell[data-agent="bot"] .msg.assistant a[href]')
                until_blocking(opened.exists, 20, "the system browser to be asked")
                assert opened.read_text(encoding="utf-8").splitlines() == [
                    "https://example.com/docs?q=1"
                ]
                assert page.evaluate("location.href") == start_url

                # A shell in a terminal beside it.
                user.click('.cell[data-agent="bot"] button[aria-label="Split right"]')
                user.click('.cell[data-agent=""] .picker-row[data-agent="sh"] .picker-main')
                page.wait_for("!!window.ideaTerminals?.get('sh')")
                user.click('.cell[data-agent="sh"] .xterm')
                user.type("echo copy42x | tr a-z A-Z")
                user.key("Return")
                user.wait_line("sh", "l === 'COPY42X'")

                # Selected (a double click on the word): on the clipboard for every application.
                user.move(*user.terminal_word("sh", "COPY42X", 3.5))
                run_x(display, "xdotool", "click", "--repeat", "2", "--delay", "60", "1")
                until_blocking(
                    lambda: clipboard_text(display) == "COPY42X", 20, "the selection copied"
                )

                # Copied elsewhere: Ctrl+Shift+V, then the terminal's own menu.
                with clipboard_holding(display, "from-elsewhere-7"):
                    user.click('.cell[data-agent="sh"] .xterm')
                    user.type("echo ")
                    user.key("ctrl+shift+v")
                    user.wait_line("sh", "l.endsWith('# echo from-elsewhere-7')")
                    user.key("Return")
                    user.wait_line("sh", "l === 'from-elsewhere-7'")
                    user.type("echo again-")
                    user.click('.cell[data-agent="sh"] .xterm-screen', button="3")
                    user.click('[role="menu"] [data-item="paste"]')
                    user.wait_line("sh", "l.endsWith('# echo again-from-elsewhere-7')")
                    assert page.evaluate("document.querySelector('.banner')?.textContent") is None

                # A link the terminal shows: hovered, then clicked.
                user.key("ctrl+u")
                user.type("echo https://example.org/term")
                user.key("Return")
                user.wait_line("sh", "l === 'https://example.org/term'")
                x, y = user.terminal_word("sh", "https://example.org/term", 6.5)
                user.move(x, y)
                user.move(x + 3, y)
                page.wait_for(
                    "!!document.querySelector('.cell[data-agent=\"sh\"] .xterm-cursor-pointer')",
                    what="the link under the pointer",
                )
                run_x(display, "xdotool", "click", "1")
                until_blocking(
                    lambda: len(opened.read_text(encoding="utf-8").splitlines()) == 2,
                    20,
                    "the terminal's link opened",
                )
                assert (
                    opened.read_text(encoding="utf-8").splitlines()[1] == "https://example.org/term"
                )
                assert page.evaluate("location.href") == start_url
