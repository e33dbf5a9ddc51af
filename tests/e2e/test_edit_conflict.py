"""A hand edit is never silently lost, in a real browser against a real ``idea serve``.

The agent editor (and the policy form) is opened, the file is then changed on disk as another
editor would, and the save from IdeA is refused with a notice that shows the file on disk and the
edit not saved, offering "Reload from disk" and "Overwrite".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import open_app, screenshot

pytestmark = pytest.mark.slow


def open_agents(page: Page, url: str) -> None:
    open_app(page, url)
    page.locator('[data-panel="agents"]').click()


@pytest.mark.timeout(90)
def test_an_agent_changed_on_disk_while_edited_is_a_notice_then_overwritten_or_reloaded(
    served: str, page: Page, tmp_path: Path
) -> None:
    agent_file = tmp_path / "project" / ".ideai" / "agents" / "sh.md"
    open_agents(page, served)
    row = page.locator('.agent-row[data-agent="sh"]')
    form = page.locator(".agent-form")

    row.get_by_role("button", name="Edit").click()
    expect(form.locator('textarea[name="context"]')).to_have_value("Runs commands.\n")
    form.locator('input[name="description"]').fill("Mine")
    by_hand = agent_file.read_text("utf-8").replace("Runs commands.", "Edited by hand.")
    agent_file.write_text(by_hand, "utf-8")
    form.get_by_role("button", name="Save").click()

    notice = form.locator(".edit-conflict")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("agents/sh.md changed on disk since you opened it")
    expect(notice.locator(".on-disk pre")).to_contain_text("Edited by hand.")
    expect(notice.locator(".yours pre")).to_contain_text("description: Mine")
    expect(notice.get_by_role("button", name="Reload from disk")).to_be_visible()
    expect(notice.get_by_role("button", name="Overwrite")).to_be_visible()
    assert agent_file.read_text("utf-8") == by_hand  # nothing written
    notice.scroll_into_view_if_needed()
    screenshot(page, "edit-conflict")

    notice.get_by_role("button", name="Overwrite").click()
    expect(form).to_have_count(0)
    expect(row).to_contain_text("Mine")
    saved = agent_file.read_text("utf-8")
    assert "description: Mine" in saved and "Edited by hand." not in saved  # knowingly

    # Again, and this time the version on disk is taken: the edit is dropped.
    row.get_by_role("button", name="Edit").click()
    form.locator('input[name="description"]').fill("Dropped")
    agent_file.write_text(saved.replace("Runs commands.", "Second hand edit."), "utf-8")
    form.get_by_role("button", name="Save").click()
    expect(notice).to_be_visible()
    notice.get_by_role("button", name="Reload from disk").click()
    expect(form.locator('textarea[name="context"]')).to_have_value("Second hand edit.\n")
    expect(form.locator('input[name="description"]')).to_have_value("Mine")
    expect(form.locator(".edit-conflict")).to_have_count(0)
    assert "Second hand edit." in agent_file.read_text("utf-8")
    form.get_by_role("button", name="Save").click()  # on the version reloaded: accepted
    expect(form).to_have_count(0)


@pytest.mark.timeout(90)
def test_the_policy_changed_on_disk_while_edited_is_a_notice_then_reloaded_or_overwritten(
    served: str, page: Page, tmp_path: Path
) -> None:
    policy_file = tmp_path / "project" / ".ideai" / "policy.json"
    open_agents(page, served)
    policy = page.locator("details.policy")
    if policy.get_attribute("open") is None:
        policy.locator("summary").click()
    depth = policy.locator('input[name="max_depth"]')
    expect(depth).not_to_have_value("")  # loaded

    depth.fill("3")
    policy_file.write_text(json.dumps({"version": 1, "max_depth": 7}), "utf-8")
    policy.locator("button.policy-save").click()
    notice = policy.locator(".edit-conflict")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("policy.json changed on disk")
    expect(notice.locator(".on-disk pre")).to_contain_text('"max_depth": 7')
    expect(notice.locator(".yours pre")).to_contain_text('"max_depth": 3')
    screenshot(page, "policy-conflict")
    notice.get_by_role("button", name="Reload from disk").click()
    expect(depth).to_have_value("7")
    expect(notice).to_have_count(0)

    depth.fill("4")
    policy_file.write_text(json.dumps({"version": 1, "max_depth": 8}), "utf-8")
    policy.locator("button.policy-save").click()
    expect(notice).to_be_visible()
    notice.get_by_role("button", name="Overwrite").click()
    expect(policy.locator(".policy-saved")).to_have_text("Saved.")
    assert json.loads(policy_file.read_text("utf-8"))["max_depth"] == 4
