"""A 1 MB reply on one line in the chat, as a user sees it: the real UI in Chromium against a real
``idea serve`` whose structured agent is the fake Claude (``ONE_LINE_REPLY <n>``, with
``STREAM [<k>]`` in pieces of 16 KiB or ``k`` characters, unpaced; tests/fakes/clis/claude.py).

Per case, on a fresh server: the time from Enter to the reply's bubble in the page (time to
appear), the longest main-thread task from then until the reply is done (PerformanceObserver
``longtask``; 50 ms is the smallest one the browser reports), the time until it is all there
(done), and the longest round trip of
``page.evaluate`` meanwhile (how long the page did not answer). Ratios are to a short reply.

Target: time to appear and longest task within 10x of a short reply's (their floor 50 ms).
Usage: python bench/chat_long_reply.py [--chars 1000000]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ui_browser import chromium, ui_page

from tests.e2e.conftest import idea_serve, make_project

TARGET_RATIO = 10.0
FLOOR_MS = 50.0  # the shortest task the browser reports as long
WATCH = """
() => {
  window.__long = 0;
  new PerformanceObserver((l) => {
    for (const e of l.getEntries()) window.__long = Math.max(window.__long, e.duration);
  }).observe({ type: "longtask" });
  const log = document.querySelector('.cell[data-agent="bot"] .chat-log');
  const before = log.querySelectorAll(".msg.assistant").length;
  window.__appeared = 0;
  new MutationObserver((_, obs) => {
    if (log.querySelectorAll(".msg.assistant").length > before) {
      window.__appeared = performance.now();
      obs.disconnect();
    }
  }).observe(log, { childList: true, subtree: true });
  window.__sentAt = 0;
  const input = document.querySelector('.cell[data-agent="bot"] .chat-input');
  input.addEventListener("keydown", () => (window.__sentAt = performance.now()), { once: true });
}
"""
DONE = """
() => window.__appeared > 0 && !document.querySelector('.cell[data-agent="bot"] .msg.streaming')
"""


async def one_case(browser, tmp: Path, prompt: str) -> dict[str, float]:
    with idea_serve(tmp, make_project(tmp)) as (url, _):
        async with ui_page(browser, url, None) as page:
            await page.locator('.picker-row[data-agent="bot"] .picker-main').click()
            composer = page.locator('.cell[data-agent="bot"] .chat-input')
            await composer.wait_for()
            await page.evaluate(WATCH)
            await composer.fill(prompt)
            sent = time.perf_counter()
            await composer.press("Enter")
            worst = 0.0
            done_ms = float("nan")
            deadline = time.monotonic() + 600
            while time.monotonic() < deadline:
                start = time.perf_counter()
                done = await page.evaluate(DONE)
                worst = max(worst, time.perf_counter() - start)
                if done:
                    done_ms = (time.perf_counter() - sent) * 1000
                    break
                await asyncio.sleep(0.02)
            await page.wait_for_timeout(1000)  # a task still running after the last check
            appear, longest = await page.evaluate(
                "[window.__appeared - window.__sentAt, window.__long]"
            )
            return {
                "appear_ms": appear,
                "done_ms": done_ms,
                "longest_ms": longest,
                "no_answer_ms": worst * 1000,
            }


async def run(chars: int) -> int:
    cases = {
        "short reply": "hello",
        f"{chars:,} chars, one line": f"ONE_LINE_REPLY {chars}",
        f"{chars:,} chars, one line, 16 KiB pieces": f"ONE_LINE_REPLY {chars} STREAM",
        f"{chars:,} chars, one line, 64 B pieces": f"ONE_LINE_REPLY {chars} STREAM 64",
    }
    results: dict[str, dict[str, float]] = {}
    async with chromium() as browser:
        for name, prompt in cases.items():
            with tempfile.TemporaryDirectory() as tmp:
                results[name] = await one_case(browser, Path(tmp), prompt)
            r = results[name]
            print(
                f"{name:>38}: appears in {r['appear_ms']:7.0f} ms, done in {r['done_ms']:7.0f} ms, "
                f"longest task "
                f"{r['longest_ms']:6.0f} ms, page not answering {r['no_answer_ms']:6.0f} ms"
            )
    base = results["short reply"]
    ok = True
    for name, r in list(results.items())[1:]:
        appear = r["appear_ms"] / max(base["appear_ms"], FLOOR_MS)
        longest = max(r["longest_ms"], FLOOR_MS) / max(base["longest_ms"], FLOOR_MS)
        ok = ok and appear <= TARGET_RATIO and longest <= TARGET_RATIO
        print(
            f"{name:>38}: ratio to a short reply: appear {appear:.1f}x, longest task {longest:.1f}x"
        )
    print(f"target ≤ {TARGET_RATIO:.0f}x: {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chars", type=int, default=1_000_000)
    args = parser.parse_args()
    return asyncio.run(run(args.chars))


if __name__ == "__main__":
    sys.exit(main())
