"""File door flood: 10,000 request files dropped at once into a running ``idea serve``.

Prints the time until every request is answered, the time to the first answer, the UI's HTTP
latency (p50, p95, max) while the flood is answered, and SIGTERM-to-exit, both after the flood
and in the middle of another one. Each figure is also a ratio to one request's latency measured
in the same run (the median of a few requests sent one at a time to the idle app).
Targets on a 2-core machine: all answered <= 60 s, HTTP <= 1 s throughout, exit <= 5 s.
Usage: python bench/door_flood.py [--requests 10000] [--deadline 300]
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.worlds import trust_project

BODY = json.dumps({"action": "workstate.get"})
SINGLES = 20
HTTP_EVERY_S = 0.1
HTTP_TIMEOUT_S = 120.0
EXIT_WAIT_S = 60.0


class Serve:
    """``idea serve ROOT`` as a user starts it; its stdout read on a thread."""

    def __init__(self, root: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "idea", "serve", str(root)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self._lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        self.url = ""
        deadline = time.monotonic() + 60
        while not self.url:
            line = self._lines.get(timeout=max(0.1, deadline - time.monotonic()))
            if line.startswith("IdeA UI: "):
                self.url = line.removeprefix("IdeA UI: ").strip()
        while not line.startswith("headless core running"):
            line = self._lines.get(timeout=max(0.1, deadline - time.monotonic()))

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line)

    def sigterm(self) -> float | None:
        """Seconds from SIGTERM to exit; None if it had not ended after ``EXIT_WAIT_S``."""
        started = time.perf_counter()
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=EXIT_WAIT_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
            return None
        return time.perf_counter() - started


class HttpProbe:
    """GETs the UI's URL every ``HTTP_EVERY_S`` on a thread, noting each request's latency."""

    def __init__(self, url: str) -> None:
        self._url = url
        self.samples: list[float] = []
        self.failures = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            started = time.perf_counter()
            try:
                with urllib.request.urlopen(self._url, timeout=HTTP_TIMEOUT_S) as answer:
                    answer.read()
            except OSError:
                self.failures += 1
            self.samples.append(time.perf_counter() - started)
            self._stop.wait(HTTP_EVERY_S)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(HTTP_TIMEOUT_S + 5)


def new_project(tmp: Path, name: str) -> Path:
    root = tmp / name
    root.mkdir()
    trust_project(root)
    (root / ".ideai" / "orchestrator").mkdir(exist_ok=True)
    return root


def single_latency(folder: Path) -> float:
    """The median of ``SINGLES`` requests sent one at a time, each request -> its response."""
    samples = []
    for i in range(SINGLES):
        tmp, final = folder / f".single{i}.tmp", folder / f"single{i}.request.json"
        response = folder / f"single{i}.response.json"
        tmp.write_text(BODY, encoding="utf-8")
        started = time.perf_counter()
        os.replace(tmp, final)
        while not response.exists():
            time.sleep(0.0005)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def stage(root: Path, count: int, prefix: str) -> list[Path]:
    """Write ``count`` requests beside the door (same file system), ready to be renamed in."""
    staging = root / ".ideai" / f"staging-{prefix}"
    staging.mkdir()
    names = []
    for i in range(count):
        path = staging / f"{prefix}{i:05d}.request.json"
        path.write_text(BODY, encoding="utf-8")
        names.append(path)
    return names


def drop(staged: list[Path], folder: Path) -> float:
    """Rename every staged request into the door; returns when the first one landed."""
    started = time.perf_counter()
    for path in staged:
        os.replace(path, folder / path.name)
    return started


def answered(folder: Path, prefix: str) -> int:
    with os.scandir(folder) as entries:
        return sum(
            1 for e in entries if e.name.startswith(prefix) and e.name.endswith(".response.json")
        )


def quantile(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def flood(tmp: Path, count: int, deadline_s: float) -> dict[str, float | int | None]:
    root = new_project(tmp, "flood")
    folder = root / ".ideai" / "orchestrator"
    staged = stage(root, count, "n")
    serve = Serve(root)
    figures: dict[str, float | int | None] = {}
    try:
        figures["single"] = single_latency(folder)
        probe = HttpProbe(serve.url)
        started = drop(staged, folder)
        first = done = None
        seen = 0
        while time.perf_counter() - started < deadline_s:
            seen = answered(folder, "n")
            now = time.perf_counter() - started
            if seen and first is None:
                first = now
            if seen == count:
                done = now
                break
            time.sleep(0.05)
        probe.stop()
        figures.update(first=first, all=done, answered=seen)
        samples = sorted(probe.samples) or [float("nan")]
        figures.update(
            http_p50=statistics.median(samples),
            http_p95=quantile(samples, 0.95),
            http_max=samples[-1],
            http_failures=probe.failures,
            http_samples=len(probe.samples),
        )
        figures["exit_after"] = serve.sigterm()
    finally:
        if serve.proc.poll() is None:
            serve.proc.kill()
            serve.proc.wait(timeout=10)
    return figures


def sigterm_mid_flood(tmp: Path, count: int) -> float | None:
    """SIGTERM once the first answer of a fresh flood is written (or after 10 s without one)."""
    root = new_project(tmp, "mid")
    folder = root / ".ideai" / "orchestrator"
    staged = stage(root, count, "m")
    serve = Serve(root)
    try:
        started = drop(staged, folder)
        while not answered(folder, "m") and time.perf_counter() - started < 10:
            time.sleep(0.02)
        return serve.sigterm()
    finally:
        if serve.proc.poll() is None:
            serve.proc.kill()
            serve.proc.wait(timeout=10)


def seconds(value: float | int | None, single: float, missing: str) -> str:
    if value is None:
        return missing
    return f"{value:.2f} s ({value / single:.0f}x one request)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--deadline", type=float, default=300.0, help="give up after (s)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        f = flood(tmp, args.requests, args.deadline)
        mid = sigterm_mid_flood(tmp, args.requests)
    single = float(f["single"] or 1.0)
    n = args.requests
    gave_up = f"not within {args.deadline:g} s ({f['answered']} of {n} answered)"
    print(f"one request alone: {single * 1000:.2f} ms (the unit of the ratios)")
    print(f"{n} requests: first answer {seconds(f['first'], single, gave_up)}")
    print(f"{n} requests: all answered {seconds(f['all'], single, gave_up)}")
    print(
        f"UI HTTP during the flood ({f['http_samples']} GETs, {f['http_failures']} failed): "
        f"p50 {seconds(f['http_p50'], single, '-')}, p95 {seconds(f['http_p95'], single, '-')}, "
        f"max {seconds(f['http_max'], single, '-')}"
    )
    killed = f"still running after {EXIT_WAIT_S:g} s (killed)"
    print(f"SIGTERM to exit after the flood: {seconds(f['exit_after'], single, killed)}")
    print(f"SIGTERM to exit in the middle of a flood: {seconds(mid, single, killed)}")
    print("targets: all answered <= 60 s, HTTP <= 1 s throughout, SIGTERM exit <= 5 s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
