"""An agent on another host, from the user's side: ``hosts.json`` in IdeA's config folder, the
host's key in the user's ``~/.ssh/known_hosts``, the packaged IdeA installed in the host
account's home; ``idea serve`` and the real UI in Chromium.

The agent editor offers the host; the shell agent started in a cell runs there (as the host's
user, in its checkout); keystrokes typed in the terminal cross the link and its output comes
back; the board, the cell and the agent list say where it runs and that its link is up.
"""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import (
    CHROMIUM,
    NO_CHROMIUM,
    cell_of,
    idea_serve,
    make_project,
    open_app,
    screenshot,
)
from tests.packaging.builds import FROZEN, require_build
from tests.sshd import installed_idea, running_sshd, skip_reason

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform == "win32", reason="an agent host is POSIX"),
]


@pytest.fixture
def remote_served(tmp_path: Path, monkeypatch) -> Iterator[tuple[str, str, Path, int]]:
    """``idea serve`` on a project whose agent ``far`` is a shell on host ``box`` (an sshd on
    this machine): (UI URL, the host's user, the host's checkout, the host's SSH port)."""
    if not Path(CHROMIUM).exists():
        pytest.skip(NO_CHROMIUM)
    if (reason := skip_reason()) is not None:
        pytest.skip(reason)
    frozen = require_build(FROZEN, "package")
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    project = make_project(tmp_path)
    (project / ".ideai" / "agents" / "far.md").write_text(
        "---\nid: id-far\nname: far\nprofile: shell\nhost: box\n---\nA shell on the box.\n",
        encoding="utf-8",
    )
    config = tmp_path / "config"
    config.mkdir()
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True, mode=0o700)
    with running_sshd() as sshd, installed_idea(frozen) as idea:
        checkout = sshd.work / "checkout"
        sshd.write("checkout/README", "the host's checkout\n")
        # What a user has: the host's key accepted once, the host in hosts.json.
        (home / ".ssh" / "known_hosts").write_text(sshd.known_hosts.read_text("utf-8"), "utf-8")
        entry = {
            "ssh": f"{sshd.user}@127.0.0.1:{sshd.port}",
            "identity_file": str(sshd.client_key),
            "root": str(checkout),
            "idea": idea,
        }
        (config / "hosts.json").write_text(
            json.dumps({"version": 1, "hosts": {"box": entry}}), encoding="utf-8"
        )
        env = {"IDEA_CONFIG_DIR": str(config)}
        with idea_serve(tmp_path, project, env=env) as (url, _):
            yield url, sshd.user, checkout, sshd.port
        assert not sshd.session_processes(), "the project's close left processes on the host"


@pytest.mark.timeout(180)
def test_a_shell_agent_on_another_host_in_the_ui(
    remote_served: tuple[str, str, Path, int], page: Page
) -> None:
    url, user, checkout, port = remote_served
    open_app(page, url)

    # The agent list and the editor say where it runs.
    page.locator('[data-panel="agents"]').click()
    expect(page.locator('.agent-row[data-agent="far"]')).to_contain_text("on box")
    page.get_by_role("button", name="New agent").click()
    runs_on = page.locator('.agent-form select[name="host"]')
    expect(runs_on).to_be_visible()
    expect(runs_on.locator("option")).to_have_text(
        ["This machine", f"box ({user}@127.0.0.1:{port})"]
    )
    page.get_by_role("button", name="Cancel").click()

    page.locator('.cell .picker-row[data-agent="far"] .picker-main').first.click()
    term = cell_of(page, "far").locator(".xterm")
    expect(term).to_be_visible()
    sentinel = f"FAR{uuid.uuid4().hex[:10]}"
    term.click()
    # The quotes split the word: only the command's OUTPUT shows the whole sentinel.
    page.keyboard.type(f"echo \"$(id -un):$(pwd):\"{sentinel[:4]}''{sentinel[4:]}")
    page.keyboard.press("Enter")
    expect(cell_of(page, "far").locator(".xterm-rows")).to_contain_text(
        f"{user}:{checkout}:{sentinel}", timeout=30_000
    )
    expect(cell_of(page, "far").locator('.badge.host[data-host="box"]')).to_have_text("box")
    page.locator('[data-panel="board"]').click()
    pill = page.locator('.board-row[data-agent="far"] .badge.host')
    expect(pill).to_have_text("box")
    expect(pill).to_have_attribute("title", "Runs on box over SSH")
    screenshot(page, "remote-agent")
