"""A terminal's screen on the server: parse speed, snapshot time and the cost of a flood.

Every figure is measured side by side with plain ``pyte.Screen`` on the same input, in this run:
1. parse speed of this module's screen and stream (``VtScreen``: fast draw; ``VtStream``: whole
   CSI sequences at once) against pyte's, on plain, coloured and CJK output (Mchar/s, ratio);
2. ``snapshot()`` time of a screen after a flood (rebuilt from its tail) and of a screen kept exact
   (render only), for 80x24 and 200x50;
3. ``feed()`` of a flood in 4 KB chunks, as a share of what parsing it with pyte would cost.
Targets (issue 27): a snapshot after a flood in a few ms; the flood's feed well under 5 % of
parsing it.
Usage: python bench/terminal_screen.py [--flood-mb 100] [--parse-kb 1024]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pyte

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from idea.infrastructure.terminal.screen import TerminalScreen
from idea.infrastructure.terminal.vt import VtScreen, VtStream

CHUNK = 4096
REPEATS = 7


def plain_output(size: int) -> str:
    lines, total, i = [], 0, 0
    while total < size:
        line = f"{i:6d} compiling module_{i % 97}.py ... ok, {i * 7919 % 100_000} bytes\r\n"
        lines.append(line)
        total, i = total + len(line), i + 1
    return "".join(lines)


def coloured_output(size: int) -> str:
    words = ["\x1b[1;32mPASS\x1b[m", "\x1b[31mFAIL\x1b[m", "\x1b[38;5;244mtests/unit\x1b[m"]
    lines, total, i = [], 0, 0
    while total < size:
        line = f"{words[i % 3]} test_{i}.py::case_{i % 13} \x1b[2m[{i % 100:3d}%]\x1b[m\r\n"
        lines.append(line)
        total, i = total + len(line), i + 1
    return "".join(lines)


def cjk_output(size: int) -> str:
    line = "日本語のテキストと English text 混在 🙂 行末まで\r\n"
    return line * (size // len(line) + 1)


def parse_seconds(data: str, *, ours: bool = False) -> float:
    """Best of 3: plain pyte, or this module's screen and stream."""
    best = float("inf")
    for _ in range(3):
        stream = VtStream(VtScreen(80, 24)) if ours else pyte.Stream(pyte.Screen(80, 24))
        start = time.perf_counter()
        for i in range(0, len(data), CHUNK):
            stream.feed(data[i : i + CHUNK])
        best = min(best, time.perf_counter() - start)
    return best


def parse_speed(parse_kb: int) -> float:
    """Print each input's speed with both screens; return pyte's speed on plain output."""
    print(f"parse speed ({parse_kb} KB of each, 80x24, 4 KB chunks):")
    pyte_plain = 0.0
    for name, make in (("plain", plain_output), ("coloured", coloured_output), ("cjk", cjk_output)):
        data = make(parse_kb * 1024)
        slow = len(data) / parse_seconds(data) / 1e6
        fast = len(data) / parse_seconds(data, ours=True) / 1e6
        pyte_plain = pyte_plain or slow
        print(f"  {name:9s} pyte {slow:6.2f} Mchar/s  this screen {fast:6.2f} Mchar/s", end="")
        print(f"  x{fast / slow:.1f}")
    return pyte_plain


def median_ms(action: Callable[[], object]) -> float:
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def flooded(rows: int, cols: int, flood: str) -> TerminalScreen:
    screen = TerminalScreen(rows, cols, clock=lambda: 0.0)  # no budget: text is dropped
    for i in range(0, len(flood), CHUNK):
        screen.feed(flood[i : i + CHUNK])
    return screen


def snapshot_times() -> None:
    print("snapshot (median of 7):")
    flood = coloured_output(1024 * 1024)
    for rows, cols in ((24, 80), (50, 200)):
        screens = iter([flooded(rows, cols, flood) for _ in range(REPEATS)])
        rebuilt = median_ms(lambda screens=screens: next(screens).snapshot())
        exact = flooded(rows, cols, flood)
        exact.snapshot()
        assert not exact.exact
        exact_ms = median_ms(exact.snapshot)
        size = len(exact.snapshot())
        tail_ms = parse_seconds(flood[-exact.tail :]) * 1000  # for scale
        print(
            f"  {cols}x{rows}: after a flood {rebuilt:.2f} ms (tail {exact.tail} chars; pyte "
            f"parses that tail in {tail_ms:.2f} ms), exact screen {exact_ms:.2f} ms, "
            f"{size} chars of ANSI"
        )


def flood_cost(flood_mb: int, pyte_speed: float) -> None:
    chunks = [coloured_output(64 * 1024)[i : i + CHUNK] for i in range(0, 64 * 1024, CHUNK)]
    chunks = [c for c in chunks if len(c) == CHUNK]
    count = flood_mb * 1024 * 1024 // CHUNK
    screen = TerminalScreen(24, 80)  # the real clock: the budget lets some text be parsed
    start = time.perf_counter()
    for i in range(count):
        screen.feed(chunks[i % len(chunks)])
    fed = time.perf_counter() - start
    snap_ms = median_ms(screen.snapshot)
    chars = count * CHUNK
    parse = chars / (pyte_speed * 1e6)
    print(
        f"flood: {flood_mb} MB in {CHUNK} B chunks fed in {fed:.2f} s "
        f"({chars / fed / 1e6:.0f} Mchar/s); pyte would parse it in ~{parse:.0f} s: "
        f"feed costs {fed / parse * 100:.2f} % of parsing (target < 5 %); "
        f"snapshot after it {snap_ms:.2f} ms"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flood-mb", type=int, default=100)
    parser.add_argument("--parse-kb", type=int, default=1024)
    args = parser.parse_args(argv)
    pyte_speed = parse_speed(args.parse_kb)
    snapshot_times()
    flood_cost(args.flood_mb, pyte_speed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
