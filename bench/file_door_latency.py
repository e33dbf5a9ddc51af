"""File door latency: request written -> response written, p50 and p99 over N requests.

Beside it, the floor: how long watchdog takes to report a new file in the same folder. The
target is p50 <= 30 ms. Usage: python bench/file_door_latency.py [--requests 500]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

import idea.infrastructure.doors.file  # noqa: F401  (the door's watchdog settings)
from idea.app.bootstrap import open_project
from tests.fakes.ports.session_starter import FakeSessionStarter


def quantiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


async def door_latencies(root: Path, count: int) -> list[float]:
    runtime = await open_project(root, starter=FakeSessionStarter())
    folder = runtime.services.paths.orchestrator
    body = json.dumps({"action": "workstate.get"})
    samples = []
    try:
        for i in range(count):
            tmp, final = folder / f".b{i}.tmp", folder / f"b{i}.request.json"
            response = folder / f"b{i}.response.json"
            tmp.write_text(body, encoding="utf-8")
            started = time.perf_counter()
            os.replace(tmp, final)
            while not response.exists():
                await asyncio.sleep(0.0005)
            samples.append(time.perf_counter() - started)
    finally:
        await runtime.close()
    return samples


class _Seen(FileSystemEventHandler):
    def __init__(self) -> None:
        self.event = threading.Event()

    def on_any_event(self, event: FileSystemEvent) -> None:
        # Only the final name counts: the temp file's own events are not the floor.
        paths = (event.src_path, getattr(event, "dest_path", ""))
        if any(os.fsdecode(p).endswith(".json") for p in paths if p):
            self.event.set()


def watchdog_floor(folder: Path, count: int) -> list[float]:
    seen = _Seen()
    observer = Observer()
    observer.schedule(seen, str(folder))
    observer.start()
    samples = []
    try:
        for i in range(count):
            tmp = folder / f".f{i}.tmp"
            tmp.write_text("{}", encoding="utf-8")
            seen.event.clear()
            started = time.perf_counter()
            os.replace(tmp, folder / f"f{i}.json")
            if not seen.event.wait(5):
                raise RuntimeError("watchdog reported nothing")
            samples.append(time.perf_counter() - started)
    finally:
        observer.stop()
        observer.join()
    return samples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=500)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        floor = watchdog_floor(Path(tmp), args.requests)
    with tempfile.TemporaryDirectory() as tmp:
        door = asyncio.run(door_latencies(Path(tmp), args.requests))
    f50, f99 = quantiles(floor)
    d50, d99 = quantiles(door)
    print(f"watchdog event floor: p50 {f50 * 1000:.2f} ms, p99 {f99 * 1000:.2f} ms")
    print(f"file door request -> response: p50 {d50 * 1000:.2f} ms, p99 {d99 * 1000:.2f} ms")
    print(f"ratio to the floor (p50): {d50 / f50:.1f}x; target p50 <= 30 ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
