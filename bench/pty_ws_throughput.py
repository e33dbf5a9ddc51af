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

Target: WS >= 50 % of raw.
Usage: python bench/pty_ws_throughput.py [--mb 100] [--rounds 3]
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
from pathlib import Path

import psutil
import ptyprocess
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    size = args.mb * MB

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
