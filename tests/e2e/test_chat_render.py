"""The chat as a user reads it, in a real browser against a real ``idea serve``: Markdown replies,
hostile replies that run nothing, tool calls by their own name, an interrupt that is not a failure,
and a scroll that stays on the newest message. The fake Claude answers ``MARKDOWN`` and ``HOSTILE``
with fixed documents (tests/fakes/clis/claude.py)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import cell_of, open_chat, say, screenshot

pytestmark = pytest.mark.slow

CODE = (
    "import csv\n\ndef parse(line: str) -> list[str]:\n"
    "    return [f.strip() for f in next(csv.reader([line]))]\n"
)


def distance_from_bottom(cell) -> float:
    return cell.locator(".chat-log").evaluate("l => l.scrollHeight - l.scrollTop - l.clientHeight")


def wait_at_bottom(page: Page, cell) -> None:
    log = cell.locator(".chat-log").element_handle()
    page.wait_for_function(
        "l => l.scrollHeight > l.clientHeight && l.scrollHeight - l.scrollTop - l.clientHeight < 2",
        arg=log,
        timeout=10_000,
    )


@pytest.mark.timeout(90)
def test_a_markdown_reply_renders_headings_a_table_and_code_with_a_copy_button(
    served: str, page: Page
) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    cell = open_chat(page, served)
    say(cell, "MARKDOWN please")
    reply = cell.locator(".msg.assistant").last
    expect(reply.locator("h2")).to_have_text("Plan for parse()")
    expect(reply.locator("h2 code")).to_have_text("parse()")
    expect(reply.locator("strong")).to_have_text("quoting")
    expect(reply.locator("table th")).to_have_text(["Case", "Input", "Expected"])
    expect(reply.locator("table tbody tr")).to_have_count(2)
    expect(reply.locator("table tbody td").nth(2)).to_have_attribute("style", "text-align:right")
    expect(reply.locator(".code-block .code-lang")).to_have_text("python")
    expect(reply.locator(".code-block pre code .hljs-keyword").first).to_have_text("import")
    font = reply.locator(".code-block pre code").evaluate("c => getComputedStyle(c).fontFamily")
    assert "mono" in font.lower(), font
    boxes = reply.locator("li.task-list-item input[type=checkbox]")
    expect(boxes).to_have_count(2)
    expect(boxes.first).to_be_checked()
    expect(boxes.first).to_be_disabled()
    link = reply.get_by_role("link", name="csv module docs")
    expect(link).to_have_attribute("href", "https://docs.python.org/3/library/csv.html")
    expect(link).to_have_attribute("target", "_blank")
    expect(link).to_have_attribute("rel", "noopener noreferrer")
    # Nothing raw is left of the Markdown.
    expect(reply).not_to_contain_text("```")
    expect(reply).not_to_contain_text("| ---")

    copy = reply.locator(".code-block").get_by_role("button", name="Copy")
    copy.click()
    expect(reply.locator(".code-copy")).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == CODE
    screenshot(page, "chat-markdown")


@pytest.mark.timeout(90)
def test_a_reply_streamed_in_pieces_ends_as_the_same_markdown(served: str, page: Page) -> None:
    cell = open_chat(page, served)
    say(cell, "MARKDOWN at once")
    whole = cell.locator(".msg.assistant").last
    expect(whole.locator(".code-block")).to_have_count(1)
    # Record what the streaming reply looked like on the way (it must stream, in blocks).
    page.evaluate(
        """log => {
            window.__frames = [];
            new MutationObserver(() => {
                const r = log.querySelectorAll('.msg.assistant')[1];
                if (!r) return;
                const h2 = r.querySelectorAll('h2').length;
                window.__frames.push([r.classList.contains('streaming'), h2]);
            }).observe(log, { childList: true, subtree: true, characterData: true });
        }""",
        cell.locator(".chat-log").element_handle(),
    )
    say(cell, "MARKDOWN STREAM it")
    streamed = cell.locator(".msg.assistant").nth(1)
    expect(streamed).not_to_have_class(re.compile("streaming"), timeout=20_000)
    expect(streamed.locator(".code-block")).to_have_count(1)
    assert streamed.locator(".md").inner_html() == whole.locator(".md").inner_html()
    frames = page.evaluate("window.__frames")
    assert any(streaming and h2 == 1 for streaming, h2 in frames), frames[:20]


@pytest.mark.timeout(90)
def test_a_tool_call_shows_the_tools_own_name_its_server_and_labelled_data(
    served: str, page: Page
) -> None:
    cell = open_chat(page, served)
    say(cell, "USE_TOOL now")
    expect(cell.locator(".msg.assistant").last).to_have_text("echo: USE_TOOL now")
    tool = cell.locator(".msg.tool")
    expect(tool.locator(".tool-name")).to_have_text("ping")
    expect(tool.locator(".tool-server")).to_have_text("idea")
    expect(tool.locator("summary")).to_have_attribute("title", "mcp__idea__ping")
    tool.locator("summary").click()
    expect(tool.locator(".tool-output .tool-label")).to_have_text("Output")
    expect(tool.locator(".tool-output pre")).to_have_text("pong")
    screenshot(page, "chat-tool")


@pytest.mark.timeout(90)
def test_a_hostile_reply_runs_nothing_and_stays_in_its_bubble(served: str, page: Page) -> None:
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    cell = open_chat(page, served)
    assert page.evaluate("typeof window.__pwned") == "undefined"
    say(cell, "HOSTILE reply please")
    reply = cell.locator(".msg.assistant").last
    expect(reply).to_contain_text("END OF HOSTILE")
    # What the agent wrote as markup is shown as text.
    expect(reply).to_contain_text('<script>window.__pwned = "script"</script>')

    log = cell.locator(".chat-log")
    for selector in ("script", "iframe", "style", "img", "svg", "object", "embed", "form"):
        expect(log.locator(selector)).to_have_count(0)
    for attr in ("onerror", "onload", "ontoggle", "onclick"):
        expect(log.locator(f"[{attr}]")).to_have_count(0)
    expect(log.locator('a[href^="javascript:" i], a[href^="data:" i]')).to_have_count(0)
    styled = log.locator("[style]").evaluate_all("els => els.map(e => e.tagName)")
    assert set(styled) <= {"TD", "TH"}, styled
    # The links that were javascript:/data: are inert text; clicking them runs nothing.
    reply.get_by_text("md link").click()
    reply.get_by_text("data link").click()
    web = reply.get_by_role("link", name="web link")
    expect(web).to_have_attribute("target", "_blank")
    expect(web).to_have_attribute("rel", "noopener noreferrer")

    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert dialogs == []
    assert not [u for u in requests if "pixel.png" in u], requests
    # The <style> did not hide the app; the <div style=fixed> does not cover it.
    expect(page.locator(".cell").first).to_be_visible()
    expect(cell.locator(".chat-input")).to_be_visible()
    screenshot(page, "chat-hostile")


@pytest.mark.timeout(90)
def test_interrupt_shows_interrupted_and_no_error_banner(served: str, page: Page) -> None:
    cell = open_chat(page, served)
    header_stop = cell.locator(".cell-header").get_by_role("button", name="Stop agent")
    expect(header_stop).to_be_visible()
    interrupt = cell.locator(".chat-buttons").get_by_role("button", name="Interrupt", exact=True)
    expect(interrupt).to_have_attribute("title", re.compile("Interrupt the running turn"))
    expect(cell.locator(".chat-buttons").get_by_role("button", name="Stop")).to_have_count(0)

    say(cell, "SLOW task")
    expect(cell.locator(".chat-busy")).to_be_visible()
    interrupt.click()
    marker = cell.locator(".chat-interrupted")
    expect(marker).to_have_text("Interrupted")
    expect(cell.locator(".chat-busy")).to_be_hidden()
    expect(interrupt).to_be_disabled()
    # The next message is answered; by then the interrupted chat.send has long replied.
    say(cell, "after the interrupt")
    expect(cell.locator(".msg.assistant").last).to_have_text("echo: after the interrupt")
    expect(page.locator(".banner")).to_have_count(0)
    expect(cell.locator(".msg-error")).to_have_count(0)
    expect(marker).to_have_count(1)
    screenshot(page, "chat-interrupted")
    # After a reload the server's history says it too: still "Interrupted", not a red error.
    page.reload()
    expect(page.locator(".connection")).to_have_text("connected")
    expect(cell.locator(".msg.assistant").last).to_have_text("echo: after the interrupt")
    expect(cell.locator(".chat-interrupted")).to_have_count(1)
    expect(cell.locator(".msg-error")).to_have_count(0)


@pytest.mark.timeout(120)
def test_the_chat_stays_on_the_newest_message_across_tab_switches_splits_and_closes(
    served: str, page: Page
) -> None:
    cell = open_chat(page, served)
    for n in range(3):
        say(cell, f"MARKDOWN {n}")
        expect(cell.locator(".msg.assistant")).to_have_count(n + 1)
        expect(cell.locator(".msg.assistant").last.locator("h2")).to_be_visible()
    wait_at_bottom(page, cell)

    # Another tab and back: the cell is drawn anew, still at the newest message.
    page.locator(".tab-add").click()
    expect(page.locator(".tab")).to_have_count(2)
    expect(cell).to_have_count(0)
    page.locator(".tab").first.click()
    expect(cell.locator(".msg.assistant")).to_have_count(3)
    wait_at_bottom(page, cell)

    # A split moves the cell into a new pane: still at the bottom.
    cell.get_by_title("Split down").click()
    expect(page.locator(".cell")).to_have_count(2)
    wait_at_bottom(page, cell)
    # Closing the other cell moves it back: still at the bottom.
    page.locator('.cell[data-agent=""]').get_by_title("Close cell").click()
    expect(page.locator(".cell")).to_have_count(1)
    wait_at_bottom(page, cell)

    # Scrolled up, the user stays where they were across a tab switch...
    log = cell.locator(".chat-log")
    log.evaluate("l => { l.scrollTop = 120; l.dispatchEvent(new Event('scroll')); }")
    page.locator(".tab").nth(1).click()
    expect(cell).to_have_count(0)
    page.locator(".tab").first.click()
    expect(cell.locator(".msg.assistant")).to_have_count(3)
    page.wait_for_function(
        "l => Math.abs(l.scrollTop - 120) < 2", arg=log.element_handle(), timeout=10_000
    )
    # ...but what they send, they see, and the reply after it.
    say(cell, "a short one")
    expect(cell.locator(".msg.assistant").last).to_have_text("echo: a short one")
    wait_at_bottom(page, cell)
    expect(cell.locator(".msg.user").last).to_be_in_viewport()


@pytest.mark.timeout(90)
def test_a_finished_reply_is_announced_once_politely(served: str, page: Page) -> None:
    cell = open_chat(page, served)
    status = cell.get_by_role("status")
    expect(status).to_have_attribute("aria-live", "polite")
    say(cell, "hello there")
    expect(cell.locator(".msg.assistant")).to_have_text("echo: hello there")
    expect(status).to_have_text("bot replied: echo: hello there")
    # A reload shows the history, which is not news: nothing is announced.
    page.reload()
    expect(cell_of(page, "bot").locator(".msg.assistant")).to_have_text("echo: hello there")
    expect(cell_of(page, "bot").get_by_role("status")).to_have_text("")
