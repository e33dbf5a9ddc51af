"""The trust banner in the browser: a project that came with its own .ideai/ opens restricted,
says exactly what it would run, refuses a launch, and runs once the user clicks Trust."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import idea_serve, make_project, screenshot
from tests.git_repos import git

pytestmark = pytest.mark.slow


@pytest.mark.timeout(120)
def test_restricted_banner_lists_the_command_refuses_then_trusts(tmp_path, page: Page) -> None:
    project = make_project(tmp_path)
    with idea_serve(tmp_path, project, trust=False) as (url, _):
        page.goto(url)
        expect(page.locator(".connection")).to_have_text("connected")
        banner = page.locator(".banner.trust")
        expect(banner).to_contain_text("This project came from elsewhere")
        expect(banner.locator("li")).to_have_count(1)
        expect(banner.locator("li")).to_contain_text("fake: ")
        expect(banner.locator("li code")).to_contain_text(str(tmp_path / "bin" / "fake-claude"))
        screenshot(page, "trust-banner")

        # A launch while restricted: refused, with the code's sentence.
        page.locator('.picker-row[data-agent="sh"] .picker-main').first.click()
        expect(page.locator(".banner[data-code='UNTRUSTED']")).to_contain_text(
            "Project not trusted"
        )
        expect(page.locator(".xterm")).to_have_count(0)
        expect(page.locator(".cell").first).to_contain_text("sh is stopped.")

        banner.get_by_role("button", name="Trust").click()
        expect(banner).to_have_count(0)
        page.locator(".banner[data-code='UNTRUSTED'] button[title='Dismiss']").click()
        page.locator(".cell").first.get_by_role("button", name="Start").click()
        expect(page.locator('.cell[data-agent="sh"] .xterm')).to_be_visible()


@pytest.mark.timeout(120)
def test_stay_restricted_hides_the_banner_and_keeps_refusing(tmp_path, page: Page) -> None:
    with idea_serve(tmp_path, make_project(tmp_path), trust=False) as (url, _):
        page.goto(url)
        banner = page.locator(".banner.trust")
        banner.get_by_role("button", name="Stay restricted").click()
        expect(banner).to_have_count(0)
        page.locator('.picker-row[data-agent="sh"] .picker-main').first.click()
        expect(page.locator(".banner[data-code='UNTRUSTED']")).to_be_visible()


@pytest.mark.timeout(120)
def test_the_banner_lists_the_repositorys_hooks_a_merge_would_run(tmp_path, page: Page) -> None:
    project = make_project(tmp_path)
    git(project, "init", "-q", "-b", "main")
    hooks = project / ".git" / "hooks"
    for name in ("post-merge", "pre-merge-commit"):
        (hooks / name).write_text("#!/bin/sh\ntouch ran\n", encoding="utf-8")
        (hooks / name).chmod(0o755)
    (hooks / "notes.txt").write_text("not executable\n", encoding="utf-8")
    with idea_serve(tmp_path, project, trust=False) as (url, _):
        page.goto(url)
        listed = page.locator(".banner.trust .trust-hooks")
        expect(listed).to_contain_text(f"git would run this repository's hooks (from {hooks})")
        expect(listed.locator("li")).to_have_text(["post-merge", "pre-merge-commit"])
        screenshot(page, "trust-banner-hooks")
    assert not (project / "ran").exists()
