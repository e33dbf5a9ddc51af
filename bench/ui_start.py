"""App start -> UI ready, in browser and window mode; the app's RSS with 10 live shell agents
(DESIGN.md §12).

* Browser mode: ``idea serve`` spawned -> its URL printed -> Debian's Chromium (Playwright, the
  e2e tests' flags; launched once beforehand with a blank tab, its launch printed apart) loads the
  URL in that tab -> the UI is ready: ``window.ideaReady`` resolved (the project is shown) and two
  frames painted, the signal the desktop window waits for too.
* Window mode: ``idea open`` under Xvfb (Qt WebEngine) -> ``IdeA window ready``.
* RSS: a fresh ``idea serve`` with 10 shell agents created, launched and attached through the UI
  API (each has run a command); the process tree of ``idea serve``, without the shells and with
  them. RSS counts shared pages once per process, so PSS (shared pages split) is printed too.

Usage: python bench/ui_start.py [--rounds 5] [--window-rounds 3] [--agents 10]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

import psutil
from playwright.sync_api import sync_playwright
from ui_ws import UiClient, Watch

from tests.desktop import READY, window_env, xvfb
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, DIST, idea_serve, make_project
from tests.processes import LineWatcher, spawned

# What the desktop window waits for before it says it is ready (idea/app/window/process.py),
# without its time-out: here a UI that never gets ready must fail, not count as ready.
PAINTED_JS = (
    "window.ideaReady.then(() => new Promise("
    "r => requestAnimationFrame(() => requestAnimationFrame(() => r(1)))))"
)
MiB = 2**20


def browser_rounds(rounds: int) -> tuple[float, list[tuple[float, float]]]:
    """Chromium's launch; per round (spawn -> URL, URL -> UI ready) in seconds."""
    results = []
    with sync_playwright() as p:
        started = time.perf_counter()
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, timeout=30_000)
        launch = time.perf_counter() - started
        try:
            for _ in range(rounds):
                with tempfile.TemporaryDirectory(prefix="idea-bench-") as tmp:
                    tmp_path = Path(tmp)
                    project = make_project(tmp_path)
                    # A tab is open before the app starts, as in a browser the user already runs.
                    context = browser.new_context(viewport={"width": 1440, "height": 860})
                    page = context.new_page()
                    spawn = time.perf_counter()
                    with idea_serve(tmp_path, project) as (url, _):
                        printed = time.perf_counter()
                        page.goto(url, timeout=30_000)
                        assert page.evaluate(PAINTED_JS) == 1
                        ready = time.perf_counter()
                        assert page.locator(".cell").count() >= 1, "ready without a cell"
                        context.close()
                    results.append((printed - spawn, ready - printed))
        finally:
            browser.close()
    return launch, results


BARE_WINDOW = Path(__file__).with_name("bare_window.py")


def bare_window_round(env: dict[str, str]) -> float:
    """Spawn -> a bare pywebview window painted (``bench/bare_window.py``), the baseline."""
    spawn = time.perf_counter()
    with spawned([sys.executable, str(BARE_WINDOW)], env=env) as proc:
        LineWatcher(proc.stdout).wait_for(  # type: ignore[arg-type]
            lambda line: line.strip() == "bare window ready", timeout=90
        )
        ready = time.perf_counter()
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    return ready - spawn


def window_rounds(
    rounds: int,
) -> tuple[list[tuple[float, float]], tuple[int, int], list[float]]:
    """Per round (spawn -> URL, spawn -> ``IdeA window ready``), each next to a bare pywebview
    window's spawn -> painted; the window's tree (processes, RSS) once ready, in the last round."""
    results = []
    bare: list[float] = []
    tree = (0, 0)
    with xvfb() as display, tempfile.TemporaryDirectory(prefix="idea-bench-") as tmp:
        tmp_path = Path(tmp)
        home = tmp_path / "home"  # the recent-projects list goes there, not to the user's
        home.mkdir()
        env = {**window_env(display), "HOME": str(home)}
        for i in range(rounds):
            bare.append(bare_window_round(env))
            project = tmp_path / f"project{i}"
            project.mkdir()
            spawn = time.perf_counter()
            with spawned([sys.executable, "-m", "idea", "open", str(project)], env=env) as proc:
                out = LineWatcher(proc.stdout)  # type: ignore[arg-type]
                out.wait_for(lambda line: line.startswith("IdeA UI: "), timeout=60)
                printed = time.perf_counter()
                out.wait_for(lambda line: line.strip() == READY, timeout=90)
                ready = time.perf_counter()
                processes = [psutil.Process(proc.pid), *psutil.Process(proc.pid).children(True)]
                tree = (len(processes), sum(rss(p) for p in processes))
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=30)
            results.append((printed - spawn, ready - spawn))
    return results, tree, bare


def rss(process: psutil.Process) -> int:
    try:
        return process.memory_info().rss
    except psutil.NoSuchProcess:
        return 0


def pss(process: psutil.Process) -> int:
    try:
        return process.memory_full_info().pss
    except psutil.NoSuchProcess:
        return 0


async def live_agents(url: str, pid: int, count: int) -> dict[str, tuple[int, int, int]]:
    """(processes, RSS, PSS) of the serve tree before the agents, without and with the shells."""
    server = psutil.Process(pid)
    before = (1, rss(server), pss(server))
    async with UiClient(url) as client:
        for i in range(count):
            name = f"shell{i}"
            await client.shell_agent(name)
            watch = Watch(f"live{i}-42".encode())
            await client.attach(name, watch)
            await client.call("terminal.write", name=name, data=f"echo live{i}-$((40+2))\n")
            async with asyncio.timeout(20):
                await watch.found.wait()
        shell = "bash"  # idea_serve runs the agents' shell as SHELL=/bin/bash
        tree = [server, *server.children(recursive=True)]
        shells = [p for p in tree if p.pid != pid and p.name() == shell]
        app = [p for p in tree if p not in shells]
        assert len(shells) == count, f"expected {count} shells, found {[p.name() for p in tree]}"
        return {
            "before": before,
            "app": (len(app), sum(map(rss, app)), sum(map(pss, app))),
            "all": (len(tree), sum(map(rss, tree)), sum(map(pss, tree))),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--window-rounds", type=int, default=3)
    parser.add_argument("--agents", type=int, default=10)
    args = parser.parse_args()
    assert DIST.is_file(), "ui/dist is not built: make ui"
    assert Path(CHROMIUM).exists(), f"{CHROMIUM} is absent (apt-get install chromium)"

    launch, browser = browser_rounds(args.rounds)
    for i, (to_url, to_ready) in enumerate(browser):
        print(
            f"browser round {i + 1}: spawn -> URL {to_url * 1000:.0f} ms, "
            f"URL -> UI ready {to_ready * 1000:.0f} ms, total {(to_url + to_ready) * 1000:.0f} ms"
        )
    browser_total = statistics.median(a + b for a, b in browser)
    print(
        f"browser mode (median of {len(browser)}): spawn -> URL "
        f"{statistics.median(a for a, _ in browser) * 1000:.0f} ms, URL -> UI ready "
        f"{statistics.median(b for _, b in browser) * 1000:.0f} ms, start -> ready "
        f"{browser_total * 1000:.0f} ms (Chromium's own launch, before: {launch * 1000:.0f} ms)"
    )

    window_total = None
    if shutil.which("Xvfb") is None or args.window_rounds < 1:
        print("window mode: skipped (Xvfb is not installed, or --window-rounds 0)")
    else:
        window, (count, tree_rss), bare = window_rounds(args.window_rounds)
        for i, (to_url, to_ready) in enumerate(window):
            print(
                f"window round {i + 1}: spawn -> URL {to_url * 1000:.0f} ms, "
                f"spawn -> window ready {to_ready * 1000:.0f} ms"
            )
        window_total = statistics.median(b for _, b in window)
        print(
            f"window mode (median of {len(window)}): spawn -> '{READY}' "
            f"{window_total * 1000:.0f} ms; its tree once ready: {count} processes, "
            f"RSS {tree_rss / MiB:.0f} MiB (Qt WebEngine included)"
        )
        bare_total = statistics.median(bare)
        print(
            f"bare pywebview window (median of {len(bare)}, same runs): spawn -> painted "
            f"{bare_total * 1000:.0f} ms; IdeA's window / bare: {window_total / bare_total:.2f} "
            "(target: <= 1.5 s, or <= 1.2x the bare window)"
        )

    with tempfile.TemporaryDirectory(prefix="idea-bench-") as tmp:
        tmp_path = Path(tmp)
        with idea_serve(tmp_path, make_project(tmp_path)) as (url, proc):
            memory = asyncio.run(live_agents(url, proc.pid, args.agents))
    for key, label in (
        ("before", "idea serve, no agent"),
        ("app", f"idea serve with {args.agents} live shells, shells excluded"),
        ("all", f"idea serve with {args.agents} live shells, shells included"),
    ):
        n, total_rss, total_pss = memory[key]
        print(
            f"{label}: {n} processes, RSS {total_rss / MiB:.1f} MiB, PSS {total_pss / MiB:.1f} MiB"
        )
    per_agent = (memory["app"][1] - memory["before"][1]) / args.agents
    print(f"app RSS growth per live shell agent (shells excluded): {per_agent / 1024:.0f} KiB")

    if window_total is not None:
        print(f"ratio window / browser start -> ready = {window_total / browser_total:.2f}")
    else:
        print("ratio window / browser start -> ready = n/a (no window mode here)")


if __name__ == "__main__":
    main()
