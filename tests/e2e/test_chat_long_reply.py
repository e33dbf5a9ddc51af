"""A reply of a megabyte on one line, in a real browser against a real ``idea serve``: it appears
folded to a bounded preview as plain text (never run through Markdown), the page keeps answering,
"Show more" and "Show all" reveal the rest, Copy takes the whole text, and a reload shows it folded
the same way from the server's history. The fake Claude answers ``ONE_LINE_REPLY <n>`` with one
line of ``n`` characters (tests/fakes/clis/claude.py), all at once or, with ``STREAM``, in pieces.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import open_chat, say, screenshot
from tests.fakes.clis.claude import LINE_END, LINE_START, one_line

pytestmark = pytest.mark.slow

SIZE = 1_000_000
PREVIEW, STEP = 8 * 1024, 64 * 1024  # ui/src/model/longtext.ts
PLAIN = "plain text: too long to format"


def shown_chars(reply) -> int:
    return reply.locator(".folded-text").evaluate("e => e.textContent.length")


def answers(page: Page) -> bool:
    """A round trip through the page's main thread: it answers only when nothing holds it."""
    return page.evaluate("new Promise(r => requestAnimationFrame(() => r(true)))")


@pytest.mark.timeout(120)
def test_a_megabyte_on_one_line_appears_folded_and_show_more_reveals_the_rest(
    served: str, page: Page
) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    cell = open_chat(page, served)
    say(cell, f"ONE_LINE_REPLY {SIZE}")
    reply = cell.locator(".msg.assistant").last
    note = reply.locator(".fold-note")
    expect(note).to_have_text(f"Showing 8 KiB of 977 KiB · {PLAIN}")
    assert answers(page)
    assert shown_chars(reply) == PREVIEW
    expect(reply.locator(".folded-step").first).to_contain_text(LINE_START)
    expect(reply.locator("p, code, a")).to_have_count(0)  # no Markdown ran over it
    screenshot(page, "chat-long-line")

    reply.get_by_role("button", name="Show more").click()
    expect(note).to_have_text(f"Showing 72 KiB of 977 KiB · {PLAIN}")
    assert shown_chars(reply) == PREVIEW + STEP
    assert answers(page)

    reply.get_by_role("button", name="Show all").click()
    expect(note).to_have_text(f"977 KiB · {PLAIN}")
    expect(reply.get_by_role("button", name="Show more")).to_be_hidden()
    assert answers(page)
    whole = reply.locator(".folded-text").evaluate("e => e.textContent")
    assert whole == one_line(SIZE)
    assert whole.endswith(LINE_END)

    reply.get_by_role("button", name="Copy").click()
    expect(reply.get_by_role("button", name="Copied")).to_be_visible()
    assert page.evaluate("navigator.clipboard.readText()") == one_line(SIZE)

    # After a reload the server's history has the reply: folded the same way.
    page.reload()
    expect(page.locator(".connection")).to_have_text("connected")
    again = cell.locator(".msg.assistant").last
    expect(again.locator(".fold-note")).to_have_text(f"Showing 8 KiB of 977 KiB · {PLAIN}")
    assert shown_chars(again) == PREVIEW
    assert answers(page)


@pytest.mark.timeout(120)
def test_a_megabyte_streamed_in_pieces_stays_folded_while_it_grows(served: str, page: Page) -> None:
    cell = open_chat(page, served)
    # Record the reply as it streamed: folded from the moment it is too long, never more shown.
    page.evaluate(
        """log => {
            window.__frames = [];
            new MutationObserver(() => {
                const r = log.querySelector('.msg.assistant');
                if (!r) return;
                const shown = r.querySelector('.folded-text')?.textContent.length ?? -1;
                window.__frames.push([r.classList.contains('streaming'), shown]);
            }).observe(log, { childList: true, subtree: true, characterData: true });
        }""",
        cell.locator(".chat-log").element_handle(),
    )
    say(cell, f"ONE_LINE_REPLY {SIZE} STREAM 2048")
    reply = cell.locator(".msg.assistant").last
    expect(reply.locator(".fold-note")).to_contain_text(PLAIN)
    assert answers(page)
    expect(reply).not_to_have_class(re.compile(r"\bstreaming\b"), timeout=60_000)
    expect(reply.locator(".fold-note")).to_have_text(f"Showing 8 KiB of 977 KiB · {PLAIN}")
    expect(reply.locator(".folded-step")).to_have_count(1)
    assert reply.locator(".folded-text").evaluate("e => e.textContent") == one_line(SIZE)[:PREVIEW]
    frames = page.evaluate("window.__frames")
    assert any(streaming and shown == PREVIEW for streaming, shown in frames), frames[-5:]
    assert max(shown for _, shown in frames) == PREVIEW
    # The chat still takes the next message and answers it.
    say(cell, "after the long one")
    expect(cell.locator(".msg.assistant").last).to_have_text("echo: after the long one")
