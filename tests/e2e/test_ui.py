"""The UI in a real browser against a real ``idea serve``: cells, terminal, chat, board, log."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psutil
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from playwright.sync_api import Page, expect

from idea.infrastructure.clis.declaration import mcp_server_entry
from idea.infrastructure.stores.mcp_secret import write_agent_key
from idea.infrastructure.stores.paths import ProjectPaths
from tests.e2e.conftest import cell_of, idea_serve, make_project, open_app, screenshot
from tests.waiting import until_blocking

pytestmark = pytest.mark.slow


@pytest.mark.timeout(120)
def test_split_terminal_chat_reload_board_and_log(served: str, page: Page) -> None:
    open_app(page, served)
    expect(page.locator(".project-name")).to_have_text("project")
    page.locator(".cell").first.get_by_title("Split right").click()
    expect(page.locator(".cell")).to_have_count(2)

    # Left cell: the shell, in a terminal.
    page.locator(".cell").nth(0).locator('.picker-row[data-agent="sh"] .picker-main').click()
    term = cell_of(page, "sh").locator(".xterm")
    expect(term).to_be_visible()
    expect(page.locator('.picker-row[data-agent="sh"] .picker-main')).to_be_disabled()
    sentinel = f"SENT{uuid.uuid4().hex[:12]}"
    half = len(sentinel) // 2
    term.click()
    # The quotes split the word: only the command's OUTPUT shows the whole sentinel.
    page.keyboard.type(f"echo {sentinel[:half]}''{sentinel[half:]}")
    page.keyboard.press("Enter")
    rows = cell_of(page, "sh").locator(".xterm-rows")
    expect(rows).to_contain_text(sentinel)

    # Right cell: the fake Claude, as a chat.
    page.locator('.cell[data-agent=""] .picker-row[data-agent="bot"] .picker-main').click()
    composer = cell_of(page, "bot").locator(".chat-input")
    expect(composer).to_be_visible()
    message = f"hello USE_TOOL {uuid.uuid4().hex[:8]}"
    composer.fill(message)
    composer.press("Enter")
    expect(cell_of(page, "bot").locator(".msg.user")).to_have_text(message)
    expect(cell_of(page, "bot").locator(".msg.assistant")).to_have_text(f"echo: {message}")
    expect(cell_of(page, "bot").locator(".chat-busy")).to_be_hidden()
    expect(cell_of(page, "bot").locator(".msg.tool .tool-name")).to_have_text("ping")
    # The board (the side panel's first view) follows: both agents are live.
    for name, mode in (("sh", "terminal"), ("bot", "structured")):
        badge = page.locator(f'.board-row[data-agent="{name}"] .badge').first
        expect(badge).to_have_text(mode)
    screenshot(page, "workspace")

    # Reload: the terminal re-attaches and replays its scrollback.
    page.reload()
    expect(page.locator(".connection")).to_have_text("connected")
    expect(cell_of(page, "sh").locator(".xterm-rows")).to_contain_text(sentinel)
    # The chat comes back whole from the server's history, tool call included.
    expect(cell_of(page, "bot").locator(".msg.user")).to_have_text(message)
    expect(cell_of(page, "bot").locator(".msg.assistant")).to_have_text(f"echo: {message}")
    expect(cell_of(page, "bot").locator(".msg.tool .tool-name")).to_have_text("ping")

    # The board lists both agents, live.
    page.locator('[data-panel="board"]').click()
    for name in ("sh", "bot"):
        expect(page.locator(f'.board-row[data-agent="{name}"]')).to_be_visible()
    expect(page.locator('.board-row[data-agent="sh"] .badge').first).to_have_text("terminal")
    expect(page.locator('.board-row[data-agent="bot"] .badge').first).to_have_text("structured")
    screenshot(page, "board")

    # The delegation log shows the UI's message to bot; a click shows prompt and reply.
    page.locator('[data-panel="log"]').click()
    entry = page.locator('.deleg[data-target="bot"]').first
    expect(entry.locator(".badge.source")).to_have_text("ui")
    expect(entry.locator(".pill")).to_have_text("ok")
    entry.locator("summary").click()
    expect(entry.locator(".deleg-text").nth(0)).to_have_text(message)
    expect(entry.locator(".deleg-text").nth(1)).to_have_text(f"echo: {message}")
    screenshot(page, "delegations")


@pytest.mark.timeout(90)
def test_a_live_agent_is_moved_here_from_the_picker_and_its_old_cell_empties(
    served: str, page: Page
) -> None:
    open_app(page, served)
    page.locator(".cell").first.get_by_title("Split right").click()
    expect(page.locator(".cell")).to_have_count(2)
    left, right = page.locator(".cell").nth(0), page.locator(".cell").nth(1)
    left.locator('.picker-row[data-agent="sh"] .picker-main').click()
    term = cell_of(page, "sh").locator(".xterm")
    expect(term).to_be_visible()
    sentinel = f"MOVED{uuid.uuid4().hex[:10]}"
    term.click()
    page.keyboard.type(f"echo {sentinel[:5]}''{sentinel[5:]}")
    page.keyboard.press("Enter")
    expect(cell_of(page, "sh").locator(".xterm-rows")).to_contain_text(sentinel)

    # In the empty cell the shell, live on the left, is disabled: go there, or move it here.
    row = right.locator('.picker-row[data-agent="sh"]')
    expect(row.locator(".picker-main")).to_be_disabled()
    expect(row.get_by_text("Go to cell")).to_be_visible()
    screenshot(page, "picker-move-here")
    row.get_by_text("Move here").click()
    expect(right.locator(".xterm-rows")).to_contain_text(sentinel)  # the same session
    expect(left.locator(".cell-title")).to_have_text("Empty cell")
    expect(left.locator('.picker-row[data-agent="sh"] .picker-main')).to_be_disabled()

    page.reload()  # saved: the right cell shows the shell after a reload
    expect(page.locator(".connection")).to_have_text("connected")
    expect(page.locator(".cell").nth(1).locator(".xterm-rows")).to_contain_text(sentinel)
    expect(page.locator(".cell").nth(0).locator(".cell-title")).to_have_text("Empty cell")


@pytest.mark.timeout(90)
def test_tabs_resize_and_go_to_cell(served: str, page: Page) -> None:
    open_app(page, served)
    page.locator(".cell").first.get_by_title("Split down").click()
    expect(page.locator(".cell")).to_have_count(2)
    page.locator(".cell").nth(0).locator('.picker-row[data-agent="sh"] .picker-main').click()
    expect(cell_of(page, "sh").locator(".xterm")).to_be_visible()

    # Drag the divider: the new sizes are saved (they survive a reload).
    divider = page.locator(".divider.column")
    box = divider.bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x, y - 150, steps=5)
    page.mouse.up()
    top = page.locator(".split.column > .pane").first
    expect(top).to_have_attribute("style", re.compile(r"flex: 0\.3"))
    page.reload()
    expect(page.locator(".split.column > .pane").first).to_have_attribute(
        "style", re.compile(r"flex: 0\.3")
    )

    # A second tab; there the shell is disabled with "go to cell", which leads back.
    page.locator(".tab-add").click()
    expect(page.locator(".tab")).to_have_count(2)
    expect(page.locator(".cell")).to_have_count(1)
    row = page.locator('.picker-row[data-agent="sh"]')
    expect(row.locator(".picker-main")).to_be_disabled()
    screenshot(page, "picker")
    row.get_by_text("Go to cell").click()
    expect(page.locator(".tab").first).to_have_class(re.compile("active"))
    expect(cell_of(page, "sh").locator(".xterm")).to_be_visible()
    # The keyboard went there too: the shell's terminal has the focus.
    expect(cell_of(page, "sh")).to_have_class(re.compile("focused"))
    assert page.evaluate(
        "document.querySelector('.cell[data-agent=\"sh\"]').contains(document.activeElement)"
    )

    # Rename the second tab in place (double-click); Escape cancels, Enter saves, it persists.
    second = page.locator(".tab").nth(1)
    second.locator(".tab-title").dblclick()
    page.get_by_label("Tab name").fill("Ignored")
    page.get_by_label("Tab name").press("Escape")
    expect(second.locator(".tab-title")).to_have_text("Tab 2")
    second.locator(".tab-title").dblclick()
    page.get_by_label("Tab name").fill("Review")
    page.get_by_label("Tab name").press("Enter")
    expect(second.locator(".tab-title")).to_have_text("Review")
    page.reload()
    expect(page.locator(".tab").nth(1).locator(".tab-title")).to_have_text("Review")

    # Close the second tab.
    page.locator(".tab").nth(1).locator(".tab-close").click()
    expect(page.locator(".tab")).to_have_count(1)


@pytest.mark.timeout(60)
def test_agent_editor_creates_edits_and_deletes(served: str, page: Page) -> None:
    open_app(page, served)
    page.locator('[data-panel="agents"]').click()
    page.get_by_role("button", name="New agent").click()
    form = page.locator(".agent-form")
    form.locator('input[name="name"]').fill("reviewer")
    form.locator('select[name="profile"]').select_option("shell")
    form.locator('textarea[name="context"]').fill("You review changes.")
    screenshot(page, "agent-editor")
    form.get_by_role("button", name="Create").click()
    row = page.locator('.agent-row[data-agent="reviewer"]')
    expect(row).to_be_visible()
    # The new agent is offered by the cell picker at once.
    expect(page.locator('.picker-row[data-agent="reviewer"]')).to_be_visible()

    row.get_by_role("button", name="Edit").click()
    expect(form.locator('textarea[name="context"]')).to_have_value("You review changes.")
    form.locator('input[name="description"]').fill("Reads diffs")
    form.get_by_role("button", name="Save").click()
    expect(row).to_contain_text("Reads diffs")

    # A bad name gets a clear error under the name field (tests/e2e/test_timeline_agents.py).
    page.get_by_role("button", name="New agent").click()
    form.locator('input[name="name"]').fill("Bad Name!")
    form.get_by_role("button", name="Create").click()
    expect(form.locator('.field-error[data-field="name"]')).to_contain_text("not valid")
    form.get_by_role("button", name="Cancel").click()

    page.once("dialog", lambda dialog: dialog.accept())
    row.get_by_role("button", name="Delete").click()
    expect(row).to_have_count(0)
    expect(page.locator('.picker-row[data-agent="reviewer"]')).to_have_count(0)


# Records notifications instead of showing them; `__ideaFocused` says whether the page has focus.
NOTIFICATION_STUB = """
window.__notes = [];
window.__ideaFocused = true;
Document.prototype.hasFocus = function () { return window.__ideaFocused; };
class RecordedNotification {
  constructor(title, options) {
    window.__notes.push({ title, body: (options && options.body) || "" });
  }
  close() {}
}
RecordedNotification.permission = "granted";
RecordedNotification.requestPermission = () => Promise.resolve("granted");
window.Notification = RecordedNotification;
"""


def set_focused(page: Page, focused: bool) -> None:
    page.evaluate(
        "f => { window.__ideaFocused = f; window.dispatchEvent(new Event(f ? 'focus' : 'blur')); }",
        focused,
    )


@pytest.mark.timeout(90)
def test_notification_when_a_reply_comes_while_unfocused(served: str, page: Page) -> None:
    page.context.grant_permissions(["notifications"])
    page.add_init_script(NOTIFICATION_STUB)
    open_app(page, served)
    page.locator('.picker-row[data-agent="bot"] .picker-main').click()
    composer = cell_of(page, "bot").locator(".chat-input")
    expect(composer).to_be_visible()

    # Not focused: the reply raises one notification titled with the agent's name.
    set_focused(page, False)
    first = f"ping {uuid.uuid4().hex[:8]}"
    composer.fill(first)
    composer.press("Enter")
    expect(cell_of(page, "bot").locator(".msg.assistant").last).to_have_text(f"echo: {first}")
    page.wait_for_function("window.__notes.length > 0")
    notes = page.evaluate("window.__notes")
    assert notes[0]["title"] == "bot"
    assert first in notes[0]["body"]

    # Focused: none. The log's "ok" for the second ask comes after its AgentReplied event.
    set_focused(page, True)
    page.evaluate("window.__notes = []")
    second = f"pong {uuid.uuid4().hex[:8]}"
    composer.fill(second)
    composer.press("Enter")
    expect(cell_of(page, "bot").locator(".msg.assistant").last).to_have_text(f"echo: {second}")
    page.locator('[data-panel="log"]').click()
    expect(page.locator('.deleg[data-target="bot"] .pill.ok')).to_have_count(2)
    assert page.evaluate("window.__notes") == []


def ask_over_mcp(
    project: Path, requester_id: str, target: str, task: str, *, refused: bool = False
) -> str:
    """``idea_ask_agent`` as an agent's CLI calls it: the official MCP SDK client spawning the real
    bridge from IdeA's own declaration, with the requester's own key. ``refused``: the tool
    result must be an error (its text is returned)."""
    paths = ProjectPaths(project)
    project_id = json.loads(paths.project_file.read_text(encoding="utf-8"))["id"]
    key = write_agent_key(paths.mcp_key, paths.run_dir(requester_id), requester_id)
    entry = mcp_server_entry(project_id, project, requester_id, key)
    params = StdioServerParameters(
        command=entry.command,
        args=list(entry.args),
        env={"PATH": os.environ.get("PATH", ""), **entry.env},
    )

    async def ask() -> str:
        async with (
            stdio_client(params) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            result = await session.call_tool("idea_ask_agent", {"target": target, "task": task})
            assert result.is_error is refused, result
            return "".join(block.text for block in result.content if block.type == "text")

    # Playwright's sync API runs an event loop in this thread: the client gets its own thread.
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, asyncio.wait_for(ask(), 60)).result()


@pytest.mark.timeout(120)
def test_the_delegation_log_shows_mcp_and_file_asks_with_the_requesting_agents_name(
    tmp_path: Path, page: Page
) -> None:
    project = make_project(tmp_path)
    (project / ".ideai" / "agents" / "lead.md").write_text(
        "---\nid: id-lead\nname: lead\nprofile: fake\n---\nLeads.\n", encoding="utf-8"
    )
    with idea_serve(tmp_path, project) as (url, _):
        by_mcp, by_file = f"mcp {uuid.uuid4().hex[:8]}", f"file {uuid.uuid4().hex[:8]}"
        assert ask_over_mcp(project, "id-lead", "bot", by_mcp) == f"echo: {by_mcp}"
        door = project / ".ideai" / "orchestrator"
        request = {"action": "agent.message", "targetAgent": "bot", "task": by_file}
        (door / ".ask.tmp").write_text(json.dumps({**request, "requester": "lead"}), "utf-8")
        os.replace(door / ".ask.tmp", door / "ask.request.json")
        until_blocking((door / "ask.response.json").exists, 30, "the file door's answer")

        open_app(page, url)
        page.locator('[data-panel="log"]').click()
        for source, task in (("mcp", by_mcp), ("file", by_file)):
            entry = page.locator(f'.deleg[data-source="{source}"][data-target="bot"]')
            expect(entry).to_have_count(1)
            expect(entry.locator(".badge.source")).to_have_text(source)
            # The real agent's name: not its id, not the door it came through.
            expect(entry.locator(".deleg-who")).to_have_text("lead → bot")
            expect(entry.locator(".pill")).to_have_text("ok")
            entry.locator("summary").click()
            expect(entry.locator(".deleg-text").nth(0)).to_have_text(task)
        screenshot(page, "delegations-sources")

        # With the log on screen, a new MCP ask shows up by itself (OrchestratorRequestProcessed).
        live = f"live {uuid.uuid4().hex[:8]}"
        assert ask_over_mcp(project, "id-lead", "bot", live) == f"echo: {live}"
        entries = page.locator('.deleg[data-source="mcp"][data-target="bot"]')
        expect(entries).to_have_count(2)
        expect(entries.first.locator(".deleg-who")).to_have_text("lead → bot")


@pytest.mark.timeout(120)
def test_open_another_project_by_path_then_back_from_recent(
    served: str, page: Page, tmp_path
) -> None:
    open_app(page, served)
    expect(page.locator(".project-name")).to_have_text("project")
    second = tmp_path / "second-app"
    second.mkdir()

    page.locator(".project-name").click()
    dialog = page.get_by_role("dialog", name="Open a project")
    expect(dialog).to_be_visible()
    # A browser has no native folder dialog: a path field and the recent projects.
    expect(dialog.locator(".choose-folder")).to_be_hidden()
    current = dialog.locator(f'.recent-row[data-root="{tmp_path / "project"}"]')
    expect(current).to_be_disabled()
    expect(current.locator(".badge")).to_have_text("open")

    path = dialog.get_by_label("Project folder")
    path.fill(str(tmp_path / "nowhere"))
    path.press("Enter")
    expect(dialog.locator(".dialog-error")).to_contain_text("no such folder")
    path.fill(str(second))
    screenshot(page, "open-project")
    path.press("Enter")
    expect(dialog).to_be_hidden()
    expect(page.locator(".project-name")).to_have_text("second-app")
    expect(page).to_have_title("second-app — IdeA")
    expect(page.locator(".picker-empty")).to_be_visible()
    assert (second / ".ideai" / "project.json").is_file()

    # Back through the recent list (keyboard shortcut this time).
    page.keyboard.press("Alt+Shift+O")
    expect(dialog).to_be_visible()
    back = dialog.locator(f'.recent-row[data-root="{tmp_path / "project"}"]')
    expect(back).to_be_enabled()
    back.click()
    expect(page.locator(".project-name")).to_have_text("project")
    expect(page.locator('.picker-row[data-agent="sh"]')).to_be_visible()


@pytest.mark.timeout(90)
def test_chat_shows_what_waits_in_the_agents_queue_and_stop_moves_it_on(
    served: str, page: Page
) -> None:
    open_app(page, served)
    page.locator('.picker-row[data-agent="bot"] .picker-main').click()
    composer = cell_of(page, "bot").locator(".chat-input")
    composer.fill("SLOW task")
    composer.press("Enter")
    busy = cell_of(page, "bot").locator(".chat-busy")
    expect(busy).to_have_text("working…")
    composer.fill("next one")
    composer.press("Enter")
    expect(busy).to_have_text("working… · 1 more waiting")
    expect(cell_of(page, "bot").locator(".msg.user.pending")).to_have_text("next one")
    cell_of(page, "bot").locator(".chat-buttons").get_by_role("button", name="Interrupt").click()
    expect(cell_of(page, "bot").locator(".msg.assistant").last).to_have_text("echo: next one")
    expect(busy).to_be_hidden()
    expect(cell_of(page, "bot").locator(".msg.user.pending")).to_have_count(0)


@pytest.mark.timeout(90)
def test_a_live_agent_is_restarted_in_the_other_view_after_confirmation(
    served: str, page: Page
) -> None:
    open_app(page, served)
    page.locator('.picker-row[data-agent="bot"] .picker-main').click()
    cell = cell_of(page, "bot")
    expect(cell.locator(".chat-input")).to_be_visible()
    switch = cell.locator(".switch-view")
    expect(switch).to_have_text("As terminal")

    page.once("dialog", lambda dialog: dialog.dismiss())
    switch.click()
    expect(cell).to_have_attribute("data-view", "chat")  # cancelled: nothing changed

    questions: list[str] = []

    def accept(dialog) -> None:
        questions.append(dialog.message)
        dialog.accept()

    page.once("dialog", accept)
    switch.click()
    expect(cell).to_have_attribute("data-view", "terminal")
    expect(cell.locator(".cell-title")).to_contain_text("fake · terminal")
    assert questions == ["Restart bot as a terminal? Its chat session ends."]


@pytest.mark.timeout(90)
def test_the_scratch_project_asks_which_project_to_open(
    page: Page, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What a desktop launcher opens when there is no project to reopen (idea.app.launch_context).
    monkeypatch.setenv("IDEA_CONFIG_DIR", str(tmp_path / "config"))
    scratch = tmp_path / "config" / "scratch"
    scratch.mkdir(parents=True)
    with idea_serve(tmp_path, scratch) as (url, _):
        page.goto(url)
        expect(page.get_by_role("dialog", name="Open a project")).to_be_visible()
        expect(page.get_by_label("Project folder")).to_be_focused()
    with idea_serve(tmp_path, make_project(tmp_path)) as (url, _):
        open_app(page, url)
        # Once the project is shown, the UI has decided whether to ask: a real project does not.
        assert page.evaluate("window.ideaReady.then(() => 1)") == 1
        expect(page.get_by_role("dialog", name="Open a project")).to_be_hidden()


@pytest.mark.timeout(120)
def test_a_cli_updated_since_doctor_passed_gets_a_notice_that_runs_doctor(tmp_path, browser):
    """cli-versions.json says the shell passed doctor at 0.0.1; the shell it launches is another
    version: the notice names both, and its button shows doctor's table in the Agents panel."""
    config = tmp_path / "config"
    config.mkdir()
    passed = {"shell": {"version": "0.0.1", "path": "/bin/bash"}}
    (config / "cli-versions.json").write_text(json.dumps(passed), encoding="utf-8")
    page = browser.new_page(viewport={"width": 1440, "height": 860})
    env = {"IDEA_CONFIG_DIR": str(config)}
    with idea_serve(tmp_path, make_project(tmp_path), env=env) as (url, _):
        open_app(page, url)
        page.locator(".cell").first.locator('.picker-row[data-agent="sh"] .picker-main').click()
        notice = page.locator(".banner.notice")
        expect(notice).to_contain_text("shell is now version")
        expect(notice).to_contain_text("0.0.1 is the one that last passed")
        screenshot(page, "cli-version-notice")
        notice.get_by_role("button", name="Run doctor").click()
        expect(page.locator('.panel-tab[data-panel="agents"]')).to_have_class(re.compile("active"))
        shell = page.locator('table.doctor tr[data-profile="shell"]')
        expect(shell).to_be_visible(timeout=60_000)
        expect(shell.locator("td").nth(2)).to_have_text("skipped")  # terminal only
        claude = page.locator('table.doctor tr[data-detail-of="claude"]')
        expect(claude.locator("td.detail")).to_contain_text("not installed")
        screenshot(page, "doctor-table")
    page.close()


@pytest.mark.timeout(120)
def test_the_changes_view_shows_a_worktree_agents_diff_and_merges_it(tmp_path, browser):
    """A shell agent in its own worktree writes a file; the Agents panel's Changes view lists it
    with its diff (diff2html), and Merge brings it into the project's branch."""
    project = make_project(tmp_path)
    (project / ".ideai" / "agents" / "wt.md").write_text(
        "---\nname: wt\nprofile: shell\nworkspace: worktree\n---\nWorks apart.\n", "utf-8"
    )
    (project / "README.md").write_text("hello\n", encoding="utf-8")
    for args in (("init", "-q", "-b", "main"), ("add", "-A"), ("commit", "-q", "-m", "start")):
        subprocess.run(
            ["git", "-c", "user.name=T", "-c", "user.email=t@example.invalid", *args],
            cwd=project,
            check=True,
            capture_output=True,
            timeout=30,
        )
    page = browser.new_page(viewport={"width": 1440, "height": 860})
    with idea_serve(tmp_path, project) as (url, _):
        open_app(page, url)
        page.locator(".cell").first.locator('.picker-row[data-agent="wt"] .picker-main').click()
        cell_of(page, "wt").locator(".xterm").click()
        page.keyboard.type("printf 'from the agent\\n' > made.txt")
        page.keyboard.press("Enter")
        until_blocking((project / ".ideai" / "worktrees" / "wt" / "made.txt").exists, 15)
        assert not (project / "made.txt").exists()
        page.locator('.panel-tab[data-panel="board"]').click()
        expect(page.locator('.board-row[data-agent="wt"] .worktree')).to_have_text(
            "worktree: 1 file(s) changed, 0 commit(s) ahead"
        )
        page.locator('.panel-tab[data-panel="agents"]').click()
        page.locator('.agent-row[data-agent="wt"]').get_by_role("button", name="Changes").click()
        row = page.locator('table.changes-files tr[data-path="made.txt"]')
        expect(row).to_contain_text("added")
        expect(row).to_contain_text("+1")
        expect(page.locator(".changes-diff .d2h-file-wrapper")).to_contain_text("from the agent")
        screenshot(page, "worktree-changes")
        page.once("dialog", lambda dialog: dialog.accept())
        page.get_by_role("button", name="Merge").click()
        expect(page.locator(".banner.notice")).to_contain_text("Merged wt's work into main")
        until_blocking((project / "made.txt").exists, 15)
    assert (project / "made.txt").read_text(encoding="utf-8") == "from the agent\n"
    page.close()


def file_request(project: Path, request_id: str, body: dict) -> dict:
    door = project / ".ideai" / "orchestrator"
    (door / f".{request_id}.tmp").write_text(json.dumps(body), "utf-8")
    os.replace(door / f".{request_id}.tmp", door / f"{request_id}.request.json")
    answer = door / f"{request_id}.response.json"
    until_blocking(answer.exists, 30, f"the file door's answer to {request_id}")
    return json.loads(answer.read_text("utf-8"))


@pytest.mark.timeout(150)
def test_governance_chain_on_the_board_and_log_policy_form_and_asks_from(
    tmp_path: Path, page: Page
) -> None:
    """DESIGN.md §15 in the UI: the hop an agent serves and its chain on the board, depth and
    chain on the log (filtered by chain), the policy form, who may ask an agent."""
    project = make_project(tmp_path)
    (project / ".ideai" / "agents" / "lead.md").write_text(
        "---\nid: id-lead\nname: lead\nprofile: fake\n---\nLeads.\n", encoding="utf-8"
    )
    with idea_serve(tmp_path, project) as (url, _), ThreadPoolExecutor(1) as pool:
        open_app(page, url)
        # lead asks bot something bot never finishes: the board shows the chain in flight.
        held = pool.submit(ask_over_mcp, project, "id-lead", "bot", "SLOW think", refused=True)
        page.locator('[data-panel="board"]').click()
        serving = page.locator('.board-row[data-agent="bot"] .board-line.serving')
        expect(serving).to_contain_text("depth 1")
        expect(serving).to_contain_text("lead")
        chain = page.locator("section.chains div.chain")
        expect(chain).to_have_count(1)
        expect(chain.locator(".chain-who")).to_contain_text("lead")
        screenshot(page, "board-chain")
        assert file_request(project, "stop", {"action": "agent.stop", "name": "bot"})["ok"]
        assert held.result(timeout=60)  # the ask failed when bot stopped
        expect(page.locator("section.chains div.chain")).to_have_count(0)

        # Who may ask bot: only sh. lead's next ask is refused, the user's is not.
        page.locator('[data-panel="agents"]').click()
        page.locator('.agent-row[data-agent="bot"]').get_by_role("button", name="Edit").click()
        form = page.locator(".agent-form")
        # The editor says what asks_from is worth while agents all run as the user.
        expect(form.locator(".asks-from-note")).to_contain_text("not a hostile one")
        form.locator('input[name="asks-from"][value="only"]').check()
        form.locator('input[name="asks-from-agent"][value="sh"]').check()
        form.get_by_role("button", name="Save").click()
        bot_file = project / ".ideai" / "agents" / "bot.md"
        until_blocking(lambda: "asks_from: [sh]" in bot_file.read_text("utf-8"), 15, "asks_from")
        text = ask_over_mcp(project, "id-lead", "bot", "hello", refused=True)
        assert text.startswith("FORBIDDEN"), text
        assert (
            file_request(
                project, "u", {"action": "agent.message", "targetAgent": "bot", "task": "from you"}
            )["reply"]
            == "echo: from you"
        )

        # The log: each ask with its depth and chain; a chain id filters the log to its chain.
        page.locator('[data-panel="log"]').click()
        refused = page.locator('.deleg[data-code="FORBIDDEN"][data-target="bot"]')
        expect(refused).to_have_count(1)
        expect(refused).to_have_attribute("data-depth", "1")
        rows = page.locator('.deleg[data-target="bot"][data-chain]')
        expect(rows).to_have_count(3)
        refused.locator("button.chain-id").click()
        expect(page.locator("div.chain-filter")).to_be_visible()
        expect(page.locator('.deleg[data-target="bot"]')).to_have_count(1)
        screenshot(page, "delegations-chain")
        page.locator("button.chain-clear").click()
        expect(rows).to_have_count(3)
        # The answered ask's row says what its turn cost; the board, the agent's totals.
        answered = page.locator('.deleg[data-source="file"][data-target="bot"]')
        expect(answered.locator(".deleg-usage")).to_contain_text("tokens")
        page.locator('[data-panel="board"]').click()
        expect(page.locator('.board-row[data-agent="bot"] .board-line.usage')).to_contain_text(
            "tokens"
        )

        # The policy form writes .ideai/policy.json; a bad value is refused next to its field.
        page.locator('[data-panel="agents"]').click()
        policy = page.locator("details.policy")
        if policy.get_attribute("open") is None:
            policy.locator("summary").click()
        policy.locator('input[name="max_depth"]').fill("0")
        policy.locator("button.policy-save").click()
        expect(policy.locator('.policy-error[data-field="max_depth"]')).to_be_visible()
        policy.locator('input[name="max_depth"]').fill("2")
        policy.locator('input[name="chain_token_budget"]').fill("50000")
        policy.locator("button.policy-save").click()
        expect(policy.locator(".policy-saved")).to_be_visible()
        screenshot(page, "policy-form")
        saved = json.loads((project / ".ideai" / "policy.json").read_text("utf-8"))
        assert (saved["max_depth"], saved["chain_token_budget"]) == (2, 50000)


def fake_claude_processes(project: Path) -> list[list[str]]:
    """The command lines of the fake Claude CLIs running for ``project``."""
    found = []
    for process in psutil.process_iter(["cmdline", "cwd"]):
        cmdline = process.info["cmdline"] or []
        if any(part.endswith("claude.py") for part in cmdline) and process.info["cwd"] == str(
            project
        ):
            found.append(cmdline)
    return found


@pytest.mark.timeout(120)
def test_an_idle_chat_agent_hibernates_and_the_next_message_resumes_its_conversation(
    tmp_path: Path, page: Page
) -> None:
    project = make_project(tmp_path)
    (project / ".ideai" / "policy.json").write_text(
        json.dumps({"version": 1, "hibernate_after_s": 2}), encoding="utf-8"
    )
    with idea_serve(tmp_path, project) as (url, _):
        open_app(page, url)
        page.locator('.picker-row[data-agent="bot"] .picker-main').click()
        composer = cell_of(page, "bot").locator(".chat-input")
        composer.fill("first")
        composer.press("Enter")
        expect(cell_of(page, "bot").locator(".msg.assistant")).to_have_text("echo: first")
        [before] = fake_claude_processes(project)
        # Two seconds without a turn: stopped, shown hibernated, the chat stays.
        page.locator('[data-panel="board"]').click()
        expect(page.locator('.board-row[data-agent="bot"]')).to_have_attribute(
            "data-status", "hibernated"
        )
        until_blocking(lambda: fake_claude_processes(project) == [], 15, "the CLI to exit")
        expect(composer).to_be_visible()
        screenshot(page, "hibernated")
        composer.fill("second")
        composer.press("Enter")
        expect(cell_of(page, "bot").locator(".msg.assistant").nth(1)).to_have_text("echo: second")
        [after] = fake_claude_processes(project)
        session = before[before.index("--session-id") + 1] if "--session-id" in before else None
        resumed = [p for p in after if p.startswith("--resume")]
        assert resumed, after  # woken with its conversation, not a new one
        if session is not None:
            assert session in " ".join(after)
        expect(page.locator('.board-row[data-agent="bot"]')).not_to_have_attribute(
            "data-status", "hibernated"
        )
