"""End-to-end: a real ``idea serve`` subprocess and Debian's Chromium driven by Playwright.

The project has a shell agent (``sh``) and a structured agent (``bot``) whose profile runs the fake
Claude CLI through a wrapper script. Chromium comes from apt (``/usr/bin/chromium``; `.ci/run`
installs it); Playwright's own browser download is never used.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from tests.paths import fake_claude_program
from tests.processes import LineWatcher

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "ui" / "dist" / "index.html"
# `make screenshots` writes the README's pictures into docs/; a plain test run keeps them in tmp.
SCREENSHOTS = Path(
    os.environ.get("IDEA_SCREENSHOTS_DIR") or Path(tempfile.gettempdir()) / "idea-screenshots"
)
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

NO_CHROMIUM = f"{CHROMIUM} is absent (apt-get install chromium; .ci/run installs it)"

expect.set_options(timeout=15_000)


# A server that answers late, as one does under load: every message the page's WebSocket receives
# is handed to the page 300 ms after it came, in order. For ``page.add_init_script``.
SLOW_SERVER = """
(() => {
  const Real = window.WebSocket;
  window.WebSocket = class extends Real {
    set onmessage(handler) {
      super.onmessage = (ev) => setTimeout(() => handler.call(this, ev), 300);
    }
    get onmessage() { return super.onmessage; }
  };
})();
"""


def make_project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    ideai = project / ".ideai"
    (ideai / "agents").mkdir(parents=True)
    wrapper = fake_claude_program(tmp_path / "bin" / "fake-claude")
    profiles = {
        "profiles": {
            "fake": {
                "command": [str(wrapper)],
                "structured": "claude",
                "description": "The fake Claude CLI",
            }
        }
    }
    (ideai / "profiles.json").write_text(json.dumps(profiles), encoding="utf-8")
    (ideai / "agents" / "sh.md").write_text(
        "---\nname: sh\nprofile: shell\ndescription: A plain shell\n---\nRuns commands.\n",
        encoding="utf-8",
    )
    (ideai / "agents" / "bot.md").write_text(
        "---\nname: bot\nprofile: fake\ndescription: Echoes what it is told\n---\nEcho.\n",
        encoding="utf-8",
    )
    return project


@contextlib.contextmanager
def idea_serve(
    tmp_path: Path, project: Path, *, trust: bool = True, env: dict[str, str] | None = None
) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """``idea serve`` on ``project`` with its own HOME: (UI URL, process); SIGTERM and wait at
    the end. The project is the test user's own (trusted) unless ``trust`` is False; ``env`` adds
    to its environment. Shared by the browser tests and the benchmarks in bench/."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {
        **os.environ,
        "HOME": str(home),
        "SHELL": "/bin/bash",
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        **(env or {}),
    }
    log = (tmp_path / "serve.stderr").open("w", encoding="utf-8")
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "idea", "serve", str(project), "--port", "0"),
            *(("--trust",) if trust else ()),
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
        encoding="utf-8",
        env=env,
        cwd=tmp_path,
    )
    try:
        watcher = LineWatcher(proc.stdout)  # type: ignore[arg-type]
        line = watcher.wait_for(lambda s: s.startswith("IdeA UI: "), timeout=20)
        yield line.removeprefix("IdeA UI: ").strip(), proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
        if proc.stdout is not None:
            proc.stdout.close()
        log.close()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    """``idea serve`` on a fresh project; yields the UI URL."""
    if not Path(CHROMIUM).exists():
        pytest.skip(NO_CHROMIUM)
    assert DIST.is_file(), (
        "ui/dist is not built: run `make test` (or `cd ui && npm ci && npm run build`)"
    )
    with idea_serve(tmp_path, make_project(tmp_path)) as (url, _):
        yield url


@pytest.fixture
def browser() -> Iterator[Browser]:
    # Only the browser tests skip without Chromium (this folder also holds the window test).
    if not Path(CHROMIUM).exists():
        pytest.skip(NO_CHROMIUM)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, timeout=20_000)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1440, "height": 860})
    context.set_default_timeout(15_000)
    pg = context.new_page()
    try:
        yield pg
    finally:
        context.close()


def screenshot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


# -- what the browser tests do on the page ------------------------------------------------------


def open_app(page: Page, url: str) -> None:
    page.goto(url)
    expect(page.locator(".connection")).to_have_text("connected")
    expect(page.locator(".cell").first).to_be_visible()


def cell_of(page: Page, agent: str):
    return page.locator(f'.cell[data-agent="{agent}"]')


def focused_cell(page: Page):
    return page.locator(".cell.focused")


def open_chat(page: Page, url: str, agent: str = "bot"):
    """The app with ``agent`` opened from the first cell's picker in its chat; that cell."""
    open_app(page, url)
    page.locator(f'.picker-row[data-agent="{agent}"] .picker-main').click()
    cell = cell_of(page, agent)
    expect(cell.locator(".chat-input")).to_be_visible()
    return cell


def say(cell, text: str) -> None:
    composer = cell.locator(".chat-input")
    composer.fill(text)
    composer.press("Enter")


def parent_of(layouts: dict, leaf_id: str) -> str:
    """The id of the split holding ``leaf_id`` in a ``layouts.get`` answer (tests and benches
    that build a grid of cells through the UI API)."""

    def walk(node: dict) -> str | None:
        if node["type"] == "leaf":
            return None
        if any(c["id"] == leaf_id for c in node["children"]):
            return node["id"]
        return next((found for c in node["children"] if (found := walk(c))), None)

    for tab in layouts["tabs"]:
        if found := walk(tab["root"]):
            return found
    raise LookupError(leaf_id)
