"""The delegation timeline and the New agent form in a real browser against a real ``idea serve``.

The timeline: a root ask whose turn is held open (a proxy in front of the fake Claude CLI holds
its result until the test lets it go) gets a nested ask over the real MCP bridge; both show in one
chain, nested, live, then done; the agent filter; the user's chat messages folded. The form: its
defaults, an error under the field it is about, success said in the panel.
"""

from __future__ import annotations

import json
import os
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import cell_of, idea_serve, make_project, open_app, screenshot
from tests.e2e.test_ui import ask_over_mcp
from tests.paths import FAKE_CLIS
from tests.waiting import until_blocking

pytestmark = pytest.mark.slow

# Runs the CLI given after the FIFO's path, passing every line through; a ``result`` line whose
# text says HOLD waits until something is written to the FIFO. So a turn runs as long as a test
# wants and still ends in success.
HOLD_PROXY = r"""
import json, subprocess, sys, threading
fifo, real = sys.argv[1], sys.argv[2:]
child = subprocess.Popen(real, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
def pump():
    for line in sys.stdin.buffer:
        child.stdin.write(line)
        child.stdin.flush()
    child.stdin.close()
threading.Thread(target=pump, daemon=True).start()
for line in child.stdout:
    try:
        msg = json.loads(line)
    except ValueError:
        msg = None
    if isinstance(msg, dict) and msg.get("type") == "result" and "HOLD" in str(msg.get("result")):
        with open(fifo, encoding="utf-8") as f:
            f.read()
    sys.stdout.buffer.write(line)
    sys.stdout.flush()
sys.exit(child.wait())
"""


def held_project(tmp_path: Path) -> tuple[Path, Path]:
    """The e2e project plus ``lead`` (whose HOLD turns wait on the returned FIFO) and ``solo``."""
    project = make_project(tmp_path)
    fifo = tmp_path / "release"
    os.mkfifo(fifo)
    proxy = tmp_path / "hold_proxy.py"
    proxy.write_text(HOLD_PROXY, encoding="utf-8")
    wrapper = tmp_path / "bin" / "held-claude"
    wrapper.write_text(
        f'#!/bin/sh\nexec "{sys.executable}" "{proxy}" "{fifo}" '
        f'"{sys.executable}" "{FAKE_CLIS / "claude.py"}" "$@"\n',
        encoding="utf-8",
    )
    wrapper.chmod(0o755)
    ideai = project / ".ideai"
    profiles = json.loads((ideai / "profiles.json").read_text("utf-8"))
    profiles["profiles"]["held"] = {"command": [str(wrapper)], "structured": "claude"}
    (ideai / "profiles.json").write_text(json.dumps(profiles), encoding="utf-8")
    for name, profile in (("lead", "held"), ("solo", "fake")):
        (ideai / "agents" / f"{name}.md").write_text(
            f"---\nid: id-{name}\nname: {name}\nprofile: {profile}\n---\nWorks.\n", encoding="utf-8"
        )
    return project, fifo


def send_request(project: Path, request_id: str, target: str, task: str) -> Path:
    """A user's ask through the file door; returns where its answer will be."""
    door = project / ".ideai" / "orchestrator"
    body = {"action": "agent.message", "targetAgent": target, "task": task}
    (door / f".{request_id}.tmp").write_text(json.dumps(body), "utf-8")
    os.replace(door / f".{request_id}.tmp", door / f"{request_id}.request.json")
    return door / f"{request_id}.response.json"


def release(fifo: Path) -> None:
    with fifo.open("w", encoding="utf-8") as f:
        f.write("go\n")


@pytest.mark.timeout(180)
def test_a_nested_ask_shows_under_its_root_live_then_done_and_the_filters(
    tmp_path: Path, page: Page
) -> None:
    project, fifo = held_project(tmp_path)
    with idea_serve(tmp_path, project) as (url, _), ThreadPoolExecutor(2) as pool:
        # Another chain first: the user asks solo.
        answered = send_request(project, "solo", "solo", "hello solo")
        until_blocking(answered.exists, 30, "solo's answer")

        open_app(page, url)
        page.locator('[data-panel="log"]').click()
        # The root ask: lead's turn is held open. It shows running without a reload.
        root_answer = send_request(project, "plan", "lead", "HOLD plan the work")
        root = page.locator('.deleg[data-target="lead"][data-depth="1"]')
        expect(root).to_have_attribute("data-state", "running")
        expect(root.locator(".pill")).to_have_text("running")
        expect(root.locator(".deleg-excerpt")).to_have_text("HOLD plan the work")  # its prompt
        expect(root.locator(".badge.source")).to_have_text("file")  # its door, before it ends
        expect(page.locator(".timeline-running")).to_contain_text("1 running")

        # While lead serves it, lead asks bot over MCP: a nested ask of lead's chain, depth 2.
        reply = ask_over_mcp(project, "id-lead", "bot", "review the plan")
        assert reply == "echo: review the plan"
        chain = page.locator(".tl-chain", has=root)
        nested = chain.locator('.tl-children .deleg[data-target="bot"]')
        expect(nested).to_have_attribute("data-depth", "2")
        expect(nested).to_have_attribute("data-state", "ok")
        expect(nested.locator(".deleg-who")).to_have_text("lead → bot")
        expect(nested.locator(".badge.depth")).to_have_text("d2")
        expect(nested.locator(".badge.source")).to_have_text("mcp")
        expect(nested.locator(".deleg-usage")).to_contain_text("tokens")
        expect(nested.locator(".deleg-timing")).to_contain_text("queued")
        expect(nested.locator(".deleg-timing")).to_contain_text("turn")
        expect(root).to_have_attribute("data-state", "running")  # still: its turn goes on
        screenshot(page, "timeline-running")

        # The root's turn ends: the same chain, now done, with what it added up to.
        pool.submit(release, fifo).result(timeout=30)
        until_blocking(root_answer.exists, 30, "lead's answer")
        expect(root).to_have_attribute("data-state", "ok")
        expect(root.locator(".pill")).to_have_text("ok")
        expect(root.locator(".badge.source")).to_have_text("file")
        expect(chain.locator(".tl-children .deleg[data-target='bot']")).to_have_count(1)
        expect(chain.locator(".tl-chain-totals")).to_contain_text("2 asks")
        expect(chain.locator(".tl-chain-totals")).to_contain_text("depth 2")
        expect(page.locator(".timeline-running")).to_be_hidden()
        screenshot(page, "timeline-done")

        # Filter by agent: bot is in lead's chain only; solo has a chain of its own.
        agent = page.locator("select.timeline-agent")
        agent.select_option("bot")
        expect(page.locator(".tl-chain")).to_have_count(1)
        expect(root).to_have_class(re.compile(r"\bdim\b"))  # shown for context, not bot's
        expect(nested).not_to_have_class(re.compile(r"\bdim\b"))
        agent.select_option("solo")
        expect(page.locator(".tl-chain")).to_have_count(1)
        expect(page.locator('.deleg[data-target="solo"]')).to_have_count(1)
        expect(root).to_have_count(0)
        agent.select_option("")
        expect(page.locator(".tl-chain")).to_have_count(2)
        # A chain id shows that chain alone, with its totals; "Show all" goes back.
        root.locator("button.chain-id").click()
        expect(page.locator("div.chain-filter .chain-totals")).to_contain_text("2 asks")
        expect(page.locator(".tl-chain")).to_have_count(1)
        expect(nested).to_have_count(1)
        page.locator("button.chain-clear").click()
        expect(page.locator(".tl-chain")).to_have_count(2)

        # The user's chat messages to bot fold into one line; its Chat button shows bot's cell.
        page.locator('.picker-row[data-agent="bot"] .picker-main').click()
        composer = cell_of(page, "bot").locator(".chat-input")
        replies = cell_of(page, "bot").locator(".msg.assistant")
        for text in ("first note", "second note"):
            composer.fill(text)
            composer.press("Enter")
            expect(replies.last).to_have_text(f"echo: {text}")
        chats = page.locator('details.tl-chats[data-target="bot"]')
        expect(chats).to_have_attribute("data-count", "2")
        expect(chats.locator(".deleg")).to_have_count(2)
        expect(chats.locator("> summary")).to_contain_text("you → bot")
        chats.locator("> summary").click()
        expect(chats.locator(".deleg").first).to_be_visible()
        screenshot(page, "timeline-chats")
        chats.locator("> summary .hop-chat").click()
        expect(cell_of(page, "bot")).to_have_class(re.compile(r"\bflash\b"))


@pytest.mark.timeout(180)
def test_an_ask_waiting_in_a_queue_shows_queued_and_open_chat_makes_a_cell_for_its_agent(
    tmp_path: Path, page: Page
) -> None:
    project, fifo = held_project(tmp_path)
    with idea_serve(tmp_path, project) as (url, _), ThreadPoolExecutor(2) as pool:
        open_app(page, url)
        page.locator('[data-panel="log"]').click()
        first = send_request(project, "first", "lead", "HOLD the first plan")
        running = page.locator('.deleg[data-target="lead"][data-state="running"]')
        expect(running.locator(".deleg-excerpt")).to_have_text("HOLD the first plan")
        # Asked again while its turn runs: the ask waits in lead's queue, and says so.
        second = send_request(project, "second", "lead", "the second plan")
        waiting = page.locator('.deleg[data-target="lead"][data-state="queued"]')
        expect(waiting.locator(".pill")).to_have_text("queued")
        expect(waiting.locator(".deleg-timing")).to_have_text("waiting for its turn")
        expect(waiting.locator(".badge.source")).to_have_text("file")
        expect(waiting.locator(".deleg-excerpt")).to_have_text("the second plan")
        expect(page.locator(".timeline-running")).to_have_text("1 running · 1 queued")
        waiting.locator("summary").click()
        expect(waiting.locator(".deleg-meta")).to_contain_text("waiting in lead's queue")
        screenshot(page, "timeline-queued")

        # Its turn comes once the first one's ends; then both are done.
        pool.submit(release, fifo).result(timeout=30)
        until_blocking(lambda: first.exists() and second.exists(), 30, "both answers")
        expect(waiting).to_have_count(0)
        expect(page.locator('.deleg[data-target="lead"][data-state="ok"]')).to_have_count(2)
        expect(page.locator(".timeline-running")).to_be_hidden()

        # lead runs in the background (the file door started it): no cell shows it, so its
        # button opens one, beside the cell there is, with lead's chat in it.
        assert cell_of(page, "lead").count() == 0
        button = page.locator('.deleg[data-target="lead"] .hop-chat').first
        expect(button).to_have_text("Open chat")
        page.locator(".cell").first.locator('.picker-row[data-agent="sh"] .picker-main').click()
        expect(cell_of(page, "sh").locator(".xterm")).to_be_visible()
        button.click()
        expect(page.locator(".cell")).to_have_count(2)
        lead = cell_of(page, "lead")
        expect(lead.locator(".chat-input")).to_be_visible()
        expect(lead).to_have_class(re.compile(r"\bflash\b"))
        expect(page.locator('.deleg[data-target="lead"] .hop-chat').first).to_have_text("Chat")
        screenshot(page, "timeline-open-chat")


@pytest.mark.timeout(90)
def test_the_new_agent_form_defaults_errors_under_their_field_and_says_it_created(
    served: str, page: Page, tmp_path: Path
) -> None:
    open_app(page, served)
    page.locator('[data-panel="agents"]').click()
    page.get_by_role("button", name="New agent").click()
    form = page.locator(".agent-form")
    # An installed CLI with a chat adapter (the fake Claude: the real claude is not installed),
    # in chat mode, with Claude's permission modes and models on offer.
    expect(form.locator('select[name="profile"]')).to_have_value("fake")
    expect(form.locator('select[name="mode"]')).to_have_value("structured")
    modes = form.locator('select[name="mode"] option')
    expect(modes).to_have_text(["Chat (structured)", "Terminal"])
    permission = form.locator('select[name="permission_mode"]')
    expect(permission).to_be_visible()
    expect(permission).to_have_value("")
    expect(permission.locator('option[value="acceptEdits"]')).to_have_count(1)
    expect(form.locator("datalist option[value='sonnet']")).to_have_count(1)
    screenshot(page, "agent-form-defaults")

    # A bad name: said under the name field, not in the page's banner.
    name = form.locator('input[name="name"]')
    name.fill("Bad Name!")
    form.get_by_role("button", name="Create").click()
    error = form.locator('.field-error[data-field="name"]')
    expect(error).to_be_visible()
    expect(error).to_contain_text("not valid")
    expect(name).to_have_class(re.compile(r"\binvalid\b"))
    expect(page.locator(".banner")).to_have_count(0)
    screenshot(page, "agent-form-error")
    name.fill("reviewer")
    expect(error).to_be_hidden()  # cleared on edit

    # A shell has no chat, no permission modes, no model.
    form.locator('select[name="profile"]').select_option("shell")
    expect(form.locator('select[name="mode"]')).to_have_value("terminal")
    expect(permission).to_be_hidden()
    form.locator('select[name="profile"]').select_option("fake")
    permission.select_option("plan")
    form.locator('input[name="model"]').fill("opus")
    form.get_by_role("button", name="Create").click()

    notice = page.locator(".agents-notice")
    expect(notice).to_have_text(re.compile(r"^Created reviewer"))
    expect(page.locator('.agent-row[data-agent="reviewer"]')).to_be_visible()
    expect(page.locator(".field-error:visible")).to_have_count(0)
    expect(page.locator(".banner")).to_have_count(0)
    screenshot(page, "agent-form-created")
    agent_file = tmp_path / "project" / ".ideai" / "agents" / "reviewer.md"
    text = agent_file.read_text("utf-8")
    assert "profile: fake" in text and "permission_mode: plan" in text and "model: opus" in text
    assert "mode:" not in text.replace("permission_mode:", "")  # chat is fake's own default

    # Editing shows it as saved; the notice goes when a form opens.
    page.locator('.agent-row[data-agent="reviewer"]').get_by_role("button", name="Edit").click()
    expect(notice).to_have_count(0)
    expect(form.locator('select[name="permission_mode"]')).to_have_value("plan")
    expect(form.locator('input[name="model"]')).to_have_value("opus")
    expect(form.locator('select[name="mode"]')).to_have_value("structured")
    form.get_by_role("button", name="Save").click()
    expect(page.locator(".agents-notice")).to_have_text(re.compile(r"^Saved reviewer"))
