"""Keystroke echo latency through the UI WebSocket while 10 terminals stream output (DESIGN.md §12).

``idea serve`` runs 11 shell agents, created and launched through the UI API; one client (as the
web UI) attaches to all of them. Ten run a program that prints ``--kb`` KB every 10 ms; the
eleventh is an interactive bash (prompt ``> ``) that the client types into: a letter, then, once
its echo came, a backspace. Latency = from sending ``terminal.write`` with the letter to the
output frame that holds its echo, read by the client. Keys come at a typist's pace (``--gap-ms``
after each echo), the first WARM_UP not counted.

Target: p50 < 10 ms.
Usage: python bench/keystroke_latency.py [--keys 300] [--streams 10] [--kb 1] [--gap-ms 30]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import string
import sys
import tempfile
import time
from pathlib import Path

from ui_ws import UiClient, Watch

from tests.e2e.conftest import idea_serve, make_project

TARGET_P50_MS = 10.0
WARM_UP = 20
TIMEOUT = 10.0
STREAMER = """\
import sys, time
line = "x" * 79 + "\\n"
lines = max(1, int(sys.argv[1]) * 1000 // 80)
while True:
    sys.stdout.write(line * lines)
    sys.stdout.flush()
    time.sleep(0.01)
"""


class Echo:
    """Frames of the typed-into terminal: when the awaited text shows up, and at what time."""

    def __init__(self) -> None:
        self.expected = b""
        self.seen_at = 0.0
        self.seen = asyncio.Event()
        self.bytes = 0

    def expect(self, text: bytes) -> None:
        self.expected = text
        self.seen.clear()

    def __call__(self, kind: int, text: memoryview) -> None:
        self.bytes += len(text)
        if self.expected and not self.seen.is_set() and self.expected in bytes(text):
            self.seen_at = time.perf_counter()
            self.seen.set()


async def type_keys(
    url: str, streamer: Path, streams: int, kb: int, keys: int, gap: float
) -> tuple[list[float], int]:
    """Per measured key, its echo latency in seconds; and the bytes the streams sent meanwhile."""
    async with UiClient(url) as client:
        watches = []
        for i in range(streams):
            await client.shell_agent(f"stream{i}")
            watch = Watch(b"never printed")
            watches.append(watch)
            await client.attach(f"stream{i}", watch)
        await client.shell_agent("typist")
        echo = Echo()
        await client.attach("typist", echo)

        # A prompt without letters, no bracketed-paste codes: only the typed letters are letters.
        echo.expect(b"ready-42")
        setup = "bind 'set enable-bracketed-paste off'; PS1='> '; echo ready-$((40+2))\n"
        await client.call("terminal.write", name="typist", data=setup)
        async with asyncio.timeout(TIMEOUT):
            await echo.seen.wait()

        for i in range(streams):
            command = f"{sys.executable} {streamer} {kb}\n"
            await client.call("terminal.write", name=f"stream{i}", data=command)
        # Wait until every stream is flowing before the first key.
        async with asyncio.timeout(TIMEOUT):
            while not all(w.output_bytes > kb * 1000 for w in watches):
                await asyncio.sleep(0.01)
        before = sum(w.output_bytes for w in watches)

        samples = []
        for k in range(WARM_UP + keys):
            letter = string.ascii_lowercase[k % 26]
            echo.expect(letter.encode())
            await asyncio.sleep(gap)
            sent = time.perf_counter()
            await client.send("terminal.write", name="typist", data=letter)
            async with asyncio.timeout(TIMEOUT):
                await echo.seen.wait()
            if k >= WARM_UP:
                samples.append(echo.seen_at - sent)
            echo.expect(b"\x08")  # the backspace's echo: the line stays empty
            await asyncio.sleep(gap)
            await client.send("terminal.write", name="typist", data="\x7f")
            async with asyncio.timeout(TIMEOUT):
                await echo.seen.wait()
        streamed = sum(w.output_bytes for w in watches) - before
        resyncs = sum(w.resyncs for w in watches)
        if resyncs:
            print(f"note: the streams got {resyncs} re-syncs (the client fell behind)")
    return samples, streamed


def quantile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=300)
    parser.add_argument("--streams", type=int, default=10)
    parser.add_argument("--kb", type=int, default=1, help="KB each stream prints every 10 ms")
    parser.add_argument("--gap-ms", type=float, default=30.0, help="pause before each key")
    args = parser.parse_args()

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="idea-bench-") as tmp:
        tmp_path = Path(tmp)
        streamer = tmp_path / "streamer.py"
        streamer.write_text(STREAMER, encoding="utf-8")
        with idea_serve(tmp_path, make_project(tmp_path)) as (url, _):
            run = type_keys(url, streamer, args.streams, args.kb, args.keys, args.gap_ms / 1000)
            samples, streamed = asyncio.run(run)
    elapsed = time.perf_counter() - started

    ms = [s * 1000 for s in samples]
    p50, p95, p99 = (quantile(ms, q) for q in (0.5, 0.95, 0.99))
    print(
        f"{args.streams} terminals streaming {args.kb} KB / 10 ms each: "
        f"{streamed / 1e6:.1f} MB received while typing ({elapsed:.0f} s run)"
    )
    print(
        f"keystroke echo over {len(ms)} keys: p50 {p50:.2f} ms, p95 {p95:.2f} ms, "
        f"p99 {p99:.2f} ms, mean {statistics.fmean(ms):.2f} ms, max {max(ms):.2f} ms"
    )
    verdict = "ok" if p50 < TARGET_P50_MS else "MISSED"
    print(
        f"p50 / target = {p50 / TARGET_P50_MS:.2f} (target p50 < {TARGET_P50_MS:.0f} ms): {verdict}"
    )


if __name__ == "__main__":
    main()
