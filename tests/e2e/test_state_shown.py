"""The UI says what the sessions say (issue: a daily user's trust): a working agent is shown
working with its elapsed time, a closed cell's agent runs on in the background and can be shown
again, a terminal that ended by itself keeps its last output and says how it ended."""

from __future__ import annotations

import json
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import (
    cell_of,
    idea_serve,
    make_project,
    open_app,
    open_chat,
    say,
    screenshot,
)
from tests.e2e.test_ui import ask_over_mcp, file_request

pytestmark = pytest.mark.slow


def add_lead(project: Path) -> None:
    (project / ".ideai" / "agents" / "lead.md").write_text(
        "---\nid: id-lead\nname: lead\nprofile: fake\n---\nLeads.\n", encoding="utf-8"
    )


@pytest.mark.timeout(120)
def test_the_board_shows_a_working_agent_working_with_its_time_and_a_readable_last_delegation(
    tmp_path: Path, page: Page
) -> None:
    project = make_project(tmp_path)
    add_lead(project)
    with idea_serve(tmp_path, project) as (url, _), ThreadPoolExecutor(1) as pool:
        open_app(page, url)
        page.locator('[data-panel="board"]').click()
        held = pool.submit(ask_over_mcp, project, "id-lead", "bot", "SLOW think", refused=True)
        row = page.locator('.board-row[data-agent="bot"]')
        # The agent's own row says idle; its session is in a turn: working it is.
        expect(row).to_have_attribute("data-status", "working")
        expect(row.locator(".pill.status")).to_have_text("working")
        expect(row.locator(".elapsed")).to_have_text(re.compile(r"^\d+ s$"))
        first = row.locator(".elapsed").inner_text()
        expect(row.locator(".elapsed")).not_to_have_text(first, timeout=5000)  # it counts
        screenshot(page, "board-working")
        assert file_request(project, "stop", {"action": "agent.stop", "name": "bot"})["ok"]
        assert held.result(timeout=60)
        expect(row.locator(".pill.status")).to_have_text("stopped")
        expect(row.locator(".badge.off")).to_have_count(0)  # never "idle" and "stopped" at once
        lead = page.locator('.board-row[data-agent="lead"]')
        expect(lead.locator(".last-delegation")).to_contain_text("bot ·")
        expect(lead).not_to_contain_text("[object Object]")


@pytest.mark.timeout(120)
def test_closing_a_cell_leaves_its_agent_in_the_background_and_a_cell_shows_it_again(
    tmp_path: Path, page: Page
) -> None:
    project = make_project(tmp_path)
    with idea_serve(tmp_path, project) as (url, _):
        open_app(page, url)
        page.locator(".cell").first.get_by_title("Split right").click()
        expect(page.locator(".cell")).to_have_count(2)
        page.locator(".cell").nth(0).locator('.picker-row[data-agent="bot"] .picker-main').click()
        say(cell_of(page, "bot"), "hello")
        expect(cell_of(page, "bot").locator(".msg.assistant")).to_have_text("echo: hello")
        cell_of(page, "bot").get_by_title(re.compile("^Close cell")).click()
        expect(page.locator(".cell")).to_have_count(1)
        # Not "live in another cell" pointing at a cell that is gone: in the background.
        option = page.locator('.picker-row[data-agent="bot"] .picker-main')
        expect(option).to_be_enabled()
        expect(option).to_have_attribute("title", re.compile("background"))
        page.locator('[data-panel="board"]').click()
        expect(page.locator('.board-row[data-agent="bot"] .badge.background')).to_be_visible()
        option.click()
        expect(cell_of(page, "bot").locator(".msg.assistant")).to_have_text("echo: hello")
        expect(page.locator(".banner")).to_have_count(0)


@pytest.mark.timeout(120)
def test_a_terminal_that_ends_by_itself_keeps_its_output_and_says_its_exit_code(
    tmp_path: Path, page: Page
) -> None:
    project = make_project(tmp_path)
    profiles_file = project / ".ideai" / "profiles.json"
    profiles = json.loads(profiles_file.read_text(encoding="utf-8"))
    profiles["profiles"]["dies"] = {
        "command": ["sh", "-c", "echo goodbye-from-the-cli; sleep 1; exit 3"]
    }
    profiles_file.write_text(json.dumps(profiles), encoding="utf-8")
    (project / ".ideai" / "agents" / "quitter.md").write_text(
        "---\nname: quitter\nprofile: dies\n---\nQuits.\n", encoding="utf-8"
    )
    with idea_serve(tmp_path, project) as (url, _):
        open_app(page, url)
        page.locator('.picker-row[data-agent="quitter"] .picker-main').click()
        cell = cell_of(page, "quitter")
        expect(cell.locator(".ended-bar")).to_contain_text("exited with code 3", timeout=20_000)
        expect(cell.locator(".xterm-rows")).to_contain_text("goodbye-from-the-cli")
        expect(page.locator(".banner")).to_have_count(0)
        screenshot(page, "terminal-ended")
        # After a reload too: the last words are the server's, not the page's.
        page.reload()
        expect(page.locator(".connection")).to_have_text("connected")
        expect(cell.locator(".ended-bar")).to_contain_text("exited with code 3")
        expect(cell.locator(".xterm-rows")).to_contain_text("goodbye-from-the-cli")
        cell.get_by_role("button", name="Start again").click()
        expect(cell.locator(".xterm-rows")).to_contain_text("goodbye-from-the-cli")
        expect(cell.locator(".ended-bar")).to_contain_text("exited with code 3", timeout=20_000)


@pytest.mark.timeout(120)
def test_a_lost_connection_keeps_what_was_on_screen_greyed_and_comes_back_by_itself(
    tmp_path: Path, page: Page
) -> None:
    project = make_project(tmp_path)
    sockets: list = []

    def relay(ws) -> None:  # the page's WebSocket, passed through to the real server
        ws.connect_to_server()
        sockets.append(ws)

    page.route_web_socket(re.compile(r"/ws"), relay)
    with idea_serve(tmp_path, project) as (url, _):
        say(open_chat(page, url), "remember me")
        reply = cell_of(page, "bot").locator(".msg.assistant")
        expect(reply).to_have_text("echo: remember me")
        sockets[-1].close(code=4000, reason="network gone")
        expect(page.locator(".connection")).to_have_text(re.compile("disconnected|connecting"))
        expect(page.locator("body")).to_have_class(re.compile("offline"))
        # Nothing blanked: the chat is still there, greyed, with the notice saying what happens.
        expect(reply).to_have_text("echo: remember me")
        expect(page.locator(".banner.notice")).to_contain_text("Reconnecting")
        screenshot(page, "connection-lost")
        # The client comes back by itself (backoff), and the screen is live again.
        expect(page.locator(".connection")).to_have_text("connected", timeout=20_000)
        expect(page.locator("body")).not_to_have_class(re.compile("offline"))
        expect(cell_of(page, "bot").locator(".msg.assistant")).to_have_text("echo: remember me")
        assert len(sockets) >= 2


@pytest.mark.timeout(90)
def test_the_cell_picker_is_a_listbox_the_keyboard_walks(tmp_path: Path, page: Page) -> None:
    with idea_serve(tmp_path, make_project(tmp_path)) as (url, _):
        open_app(page, url)
        listbox = page.get_by_role("listbox", name="Agents")
        expect(listbox.get_by_role("option")).to_have_count(2)
        first = listbox.locator('[role="option"][tabindex="0"]')
        expect(first).to_have_attribute("data-agent", "bot")
        first.focus()
        page.keyboard.press("ArrowDown")
        expect(listbox.locator('[data-agent="sh"]')).to_be_focused()
        page.keyboard.press("Enter")
        expect(cell_of(page, "sh").locator(".xterm")).to_be_visible()


@pytest.mark.timeout(90)
def test_the_open_project_dialog_keeps_the_focus_and_gives_it_back(
    tmp_path: Path, page: Page
) -> None:
    with idea_serve(tmp_path, make_project(tmp_path)) as (url, _):
        open_app(page, url)
        opener = page.locator(".project-name")
        opener.click()
        dialog = page.get_by_role("dialog", name="Open a project")
        expect(dialog).to_be_visible()
        for _ in range(12):  # more tabs than it has controls: the focus never leaves it
            page.keyboard.press("Tab")
            assert page.evaluate(
                "document.querySelector('[role=dialog][aria-label=\"Open a project\"]')"
                ".contains(document.activeElement)"
            )
        page.keyboard.press("Shift+Tab")
        assert page.evaluate(
            "document.querySelector('[role=dialog][aria-label=\"Open a project\"]')"
            ".contains(document.activeElement)"
        )
        page.keyboard.press("Escape")
        expect(dialog).to_be_hidden()
        expect(opener).to_be_focused()
