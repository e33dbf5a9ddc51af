"""PTY output -> UI WebSocket client throughput, beside a raw read of a PTY (DESIGN.md §12).

One program writes SIZE bytes (``head -c SIZE /dev/zero | tr '\\0' a``) into a pseudo-terminal:
* raw: spawned with ptyprocess in this process and read with blocking ``os.read`` until EOF;
* WS: typed into a shell agent of ``idea serve`` (created and launched through the UI API) whose
  terminal this process attaches to as the web UI does (aiohttp client, ui/API.md); the time runs
  from the ``terminal.write`` of the command to a marker printed after it, seen in the frames.
The server's peak RSS growth over the run (psutil, sampled every 5 ms) shows its memory bound.
A client that falls behind gets ONE re-sync (the scrollback) instead of its pending output
(ui/API.md §3): the frames' bytes and the re-syncs are printed, and MB/s counts the bytes that
reached the client.

``--browser``: the client is the real UI in Chromium instead (bench/ui_browser.py), the shell
shown in a cell, its xterm.js drawn by the WebGL renderer and then by the DOM renderer (forced
through the UI's stored preference); the time runs to the marker parsed in the page's terminal,
and MB/s counts the output characters xterm parsed; the page that falls behind skips to the current
screen (ui/API.md §3), so the program's own rate (its size over the time to its marker) is the
figure that matters. Headless Chromium has no GPU here: its WebGL is SwiftShader, on the CPU (the
UI itself would pick the DOM renderer on it).

Targets: WS >= 50 % of raw; the program's rate with the UI in Chromium >= 80 % of raw.
Usage: python bench/pty_ws_throughput.py [--mb 100] [--rounds 3] [--browser]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import threading
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import psutil
import ptyprocess
from playwright.async_api import ConsoleMessage
from ui_browser import chromium, ui_page, wait_terminal, written
from ui_ws import UiClient, Watch

from tests.e2e.conftest import idea_serve, make_project

TARGET = 0.5
TIMEOUT = 120.0
MB = 1_000_000


def command(size: int) -> str:
    return f"head -c {size} /dev/zero | tr '\\0' a"


RawRound = tuple[float, int]  # seconds, bytes read


def raw(size: int) -> RawRound:
    started = time.perf_counter()
    proc = ptyprocess.PtyProcess.spawn(["/bin/sh", "-c", command(size)])
    total = 0
    try:
        while True:
            try:
                data = os.read(proc.fd, 64 * 1024)
            except OSError:  # EIO: the program is gone and the terminal hung up
                break
            if not data:
                break
            total += len(data)
    finally:
        proc.close(force=True)
    return time.perf_counter() - started, total


class PeakRss:
    """The highest RSS of one process while running, sampled on a thread."""

    def __init__(self, pid: int) -> None:
        self._proc = psutil.Process(pid)
        self.start = self.peak = self._proc.memory_info().rss
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        while not self._stop.wait(0.005):
            self.peak = max(self.peak, self._proc.memory_info().rss)

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        return self.peak - self.start


async def rounds_of(url: str, pid: int, size: int, rounds: int) -> list[tuple[RawRound, WsRound]]:
    """Raw and WS take turns, so load from elsewhere on the machine hits both alike."""
    results = []
    async with UiClient(url) as client:
        await client.shell_agent("pump")
        for i in range(rounds):
            raw_round = raw(size)  # blocks this loop: the client has nothing to read meanwhile
            # The typed line shows "$((40+2))"; only the output has the marker (a fresh one per
            # round: a re-sync replays the scrollback, which may hold the previous one).
            watch = Watch(f"done{i}-42".encode())
            attach_id, _ = await client.attach("pump", watch)
            rss = PeakRss(pid)
            started = time.perf_counter()
            line = f"{command(size)}; echo done{i}-$((40+2))\n"
            await client.call("terminal.write", name="pump", data=line)
            async with asyncio.timeout(TIMEOUT):
                await watch.found.wait()
            elapsed = time.perf_counter() - started
            results.append((raw_round, WsRound(elapsed, watch, rss.stop())))
            await client.call("terminal.detach", attach_id=attach_id)
    return results


@dataclass
class WsRound:
    seconds: float
    watch: Watch
    rss_growth: int

    @property
    def rate(self) -> float:
        """MB/s of the stream that reached the client as output (re-syncs not counted)."""
        return self.watch.output_bytes / self.seconds / MB


RENDERERS = ("webgl", "dom")


def note_error(errors: list[str], message: ConsoleMessage) -> None:
    if message.type == "error":
        errors.append(message.text)


@dataclass
class PageRound:
    seconds: float
    chars: int  # output characters xterm parsed
    resyncs: int
    renderer: str

    @property
    def rate(self) -> float:
        return self.chars / self.seconds / MB


async def browser_rounds(
    url: str, size: int, rounds: int
) -> list[tuple[RawRound, list[PageRound]]]:
    """Per round: raw, then the UI in Chromium with each renderer, in turn."""
    results = []
    async with UiClient(url) as client, chromium() as browser:
        # The project's shell agent, shown in the first cell (what a click in its picker does).
        layouts = await client.call("layouts.get")
        assert isinstance(layouts, dict)
        leaf = next(t for t in layouts["tabs"] if t["id"] == layouts["active_tab"])["root"]
        while leaf["type"] != "leaf":
            leaf = leaf["children"][0]
        agents = await client.call("agents.list")
        assert isinstance(agents, list)
        sh = next(a for a in agents if a["name"] == "sh")
        await client.call("layouts.apply", op="bind", leaf_id=leaf["id"], agent_id=sh["id"])
        await client.call("session.launch", name="sh", node_id=leaf["id"], mode="terminal")
        for i in range(rounds):
            raw_round = raw(size)
            pages = []
            for renderer in RENDERERS:
                async with ui_page(browser, url, renderer) as page:
                    errors: list[str] = []
                    page.on("console", partial(note_error, errors))
                    shown = await wait_terminal(page, "sh")
                    # Typed into, so it has the keyboard: its output is drawn as it comes.
                    await page.locator('.cell[data-agent="sh"] .xterm').click()
                    marker = f"done{i}{renderer}-42"
                    before, resyncs_before = await written(page, "sh")
                    started = time.perf_counter()
                    line = f"{command(size)}; echo done{i}{renderer}-$((40+2))\n"
                    await client.call("terminal.write", name="sh", data=line)
                    await page.wait_for_function(
                        "m => window.ideaTerminals.get('sh').tail(6).some(r => r.includes(m))",
                        arg=marker,
                        polling="raf",
                        timeout=TIMEOUT * 1000,
                    )
                    elapsed = time.perf_counter() - started
                    after, resyncs_after = await written(page, "sh")
                    pages.append(
                        PageRound(
                            elapsed,
                            after - before,
                            resyncs_after - resyncs_before,
                            shown["renderer"],
                        )
                    )
                    for e in errors[:3]:
                        print(f"note: the page logged an error: {e[:200]}")
            results.append((raw_round, pages))
    return results


def main_browser(size: int, mb: int, rounds: int) -> None:
    with tempfile.TemporaryDirectory(prefix="idea-bench-") as tmp:
        tmp_path = Path(tmp)
        with idea_serve(tmp_path, make_project(tmp_path)) as (url, _):
            both = asyncio.run(browser_rounds(url, size, rounds))
    for i, ((seconds, total), pages) in enumerate(both):
        parts = " | ".join(
            f"{p.renderer} {p.chars / MB:.1f} MB parsed in {p.seconds:.2f} s = {p.rate:.1f} MB/s,"
            f" {p.resyncs} re-syncs or screens"
            for p in pages
        )
        print(f"round {i + 1}: raw {total / seconds / MB:.0f} MB/s | {parts}")
    raw_rate = statistics.median(total / seconds / MB for (seconds, total), _ in both)
    rates = {
        r: statistics.median(p.rate for _, pages in both for p in pages if p.renderer == r)
        for r in {p.renderer for _, pages in both for p in pages}
    }
    print(f"raw PTY read, in process (median): {raw_rate:.0f} MB/s")
    for r, rate in sorted(rates.items()):
        through = statistics.median(
            size / p.seconds / MB for _, pages in both for p in pages if p.renderer == r
        )
        print(
            f"UI in Chromium, {r} renderer (median): {rate:.1f} MB/s of output parsed by "
            f"xterm.js; the program's {mb} MB done and its marker shown at {through:.0f} MB/s"
        )
        print(f"ratio program/raw, {r} renderer = {through / raw_rate:.2f} (target >= 0.80)")
    if "dom" in rates and "webgl" in rates:
        print(f"ratio DOM/raw = {rates['dom'] / raw_rate:.3f}")
    if "webgl" in rates:
        print(f"ratio WebGL/raw = {rates['webgl'] / raw_rate:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--browser", action="store_true", help="the real UI in Chromium")
    args = parser.parse_args()
    size = args.mb * MB
    if args.browser:
        return main_browser(size, args.mb, args.rounds)

    with tempfile.TemporaryDirectory(prefix="idea-bench-") as tmp:
        tmp_path = Path(tmp)
        with idea_serve(tmp_path, make_project(tmp_path)) as (url, proc):
            both = asyncio.run(rounds_of(url, proc.pid, size, args.rounds))
    raws = [raw_round for raw_round, _ in both]
    ws = [ws_round for _, ws_round in both]

    for i, ((seconds, total), r) in enumerate(both):
        print(
            f"round {i + 1}: raw {total / MB:.0f} MB in {seconds:.2f} s = "
            f"{total / seconds / MB:.0f} MB/s | WS {r.watch.output_bytes / MB:.1f} MB of output "
            f"in {r.seconds:.2f} s = {r.rate:.0f} MB/s, {r.watch.resyncs} re-syncs "
            f"({r.watch.resync_bytes / MB:.1f} MB); server peak RSS +{r.rss_growth / 2**20:.1f} MiB"
        )
    raw_rate = statistics.median(total / seconds / MB for seconds, total in raws)
    ws_rate = statistics.median(r.rate for r in ws)
    program = statistics.median(size / r.seconds / MB for r in ws)
    growth = max(r.rss_growth for r in ws)
    print(f"raw PTY read, in process (median): {raw_rate:.0f} MB/s")
    print(
        f"WS client (median): {ws_rate:.0f} MB/s of output received "
        f"(the program's {args.mb} MB went through the server at {program:.0f} MB/s)"
    )
    print(f"server peak RSS growth (max over rounds): {growth / 2**20:.1f} MiB")
    ratio = ws_rate / raw_rate
    verdict = "ok" if ratio >= TARGET else "MISSED"
    print(f"ratio WS/raw = {ratio:.2f} (target >= {TARGET:.2f}): {verdict}")


if __name__ == "__main__":
    main()
