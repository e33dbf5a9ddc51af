"""The real web UI in Debian's Chromium (Playwright, async), for the UI benchmarks that measure
what a user sees: output parsed by xterm.js in the page, not only frames off the socket.

Terminals are read through the UI's test hook ``window.ideaTerminals.get(name)`` (see
ui/src/views/termprobe.ts): size, renderer, characters parsed, re-syncs, the last rows, and a
promise for the cursor's row. ``renderer`` picks xterm's renderer through the UI's stored
preference (``idea.terminal.renderer``): "webgl", "dom", or None for the UI's own choice.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from playwright.async_api import Browser, Page, async_playwright

from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS

RENDERER_KEY = "idea.terminal.renderer"


@contextlib.asynccontextmanager
async def chromium() -> AsyncIterator[Browser]:
    async with async_playwright() as p:
        browser = await p.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, timeout=30_000
        )
        try:
            yield browser
        finally:
            await browser.close()


@contextlib.asynccontextmanager
async def ui_page(
    browser: Browser,
    url: str,
    renderer: str | None,
    viewport: tuple[int, int] = (1440, 860),
) -> AsyncIterator[Page]:
    """A fresh context on the UI, connected, with ``renderer`` preferred."""
    context = await browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    context.set_default_timeout(60_000)
    if renderer is not None:
        await context.add_init_script(f"localStorage.setItem({RENDERER_KEY!r}, {renderer!r})")
    page = await context.new_page()
    try:
        await page.goto(url)
        await page.wait_for_function(
            "() => document.querySelector('.connection')?.dataset.state === 'open'"
        )
        yield page
    finally:
        await context.close()


async def wait_terminal(page: Page, name: str, timeout_ms: float = 60_000) -> dict:
    """Once ``name``'s terminal is attached in the page: its size and renderer."""
    await page.wait_for_function(
        "n => { const t = window.ideaTerminals.get(n); return t && t.replayedAt }",
        arg=name,
        timeout=timeout_ms,
    )
    return await page.evaluate(
        "n => { const t = window.ideaTerminals.get(n);"
        " return { cols: t.cols, rows: t.rows, renderer: t.renderer } }",
        name,
    )


async def written(page: Page, name: str) -> tuple[int, int]:
    """Characters of output frames ``name``'s terminal has parsed, and the frames that reset it
    (re-syncs and screens: output it skipped)."""
    return tuple(
        await page.evaluate(
            "n => { const t = window.ideaTerminals.get(n);"
            " return [t.written, t.resyncs + t.screens] }",
            name,
        )
    )  # type: ignore[return-value]
