"""A huge structured reply: IdeA's time to answer and its peak RSS, as ratios to a 1 KB reply.

A real ``idea serve`` asks a structured agent through the file door; the agent is a fake CLI
(tests/fakes/clis) answering ``HUGE_REPLY <MB>``: Gemini streams it in 64 KiB deltas (its answer
is their sum), Claude in 64 KiB assistant messages with the whole text in its ``result`` line
(one line: past 8 MiB IdeA fails the turn with LINE_TOO_LONG). Measured per size: the time from
the request to its response, the server's peak RSS (``VmHWM``, the CLI not counted), the slowest
UI HTTP answer meanwhile, and what the asker got. Linux only (``/proc``).
Usage: python bench/huge_reply.py [--sizes 0.001,20,200] [--clis gemini,claude]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.e2e.conftest import idea_serve, make_project
from tests.paths import FAKE_CLIS, ROOT

TIMEOUT_S = 900.0
AUTH = {"security": {"auth": {"selectedType": "gemini-api-key"}}}


def use_cli(tmp: Path, project: Path, cli: str) -> None:
    """Make the project's ``bot`` agent run the fake ``cli``."""
    wrapper = tmp / "bin" / f"fake-{cli}"
    wrapper.write_text(
        f'#!/bin/sh\nexec "{sys.executable}" "{FAKE_CLIS / f"{cli}.py"}" "$@"\n', encoding="utf-8"
    )
    wrapper.chmod(0o755)
    profiles = {"profiles": {"fake": {"command": [str(wrapper)], "structured": cli}}}
    (project / ".ideai" / "profiles.json").write_text(json.dumps(profiles), encoding="utf-8")
    settings = tmp / "home" / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps(AUTH), encoding="utf-8")


def peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text(encoding="utf-8").splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM")


class HttpProbe(threading.Thread):
    """GETs the UI page in a loop; keeps the slowest answer (a failure counts as the timeout)."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url, self.slowest, self.failures = url, 0.0, 0
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            started = time.perf_counter()
            try:
                with urllib.request.urlopen(self.url, timeout=30) as answer:
                    answer.read()
            except OSError:
                self.failures += 1
            self.slowest = max(self.slowest, time.perf_counter() - started)
            self.stop.wait(0.2)


def one(cli: str, megabytes: float) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        project = make_project(tmp)
        use_cli(tmp, project, cli)
        # This checkout's IdeA, not the one the environment was installed from.
        with idea_serve(tmp, project, env={"PYTHONPATH": str(ROOT)}) as (url, proc):
            door = project / ".ideai" / "orchestrator"
            door.mkdir(parents=True, exist_ok=True)
            request = {"action": "agent.message", "targetAgent": "bot"}
            request["task"] = f"HUGE_REPLY {megabytes:g}"
            request["timeout_s"] = TIMEOUT_S
            probe = HttpProbe(url)
            probe.start()
            (door / ".r.tmp").write_text(json.dumps(request), encoding="utf-8")
            started = time.perf_counter()
            os.replace(door / ".r.tmp", door / "r.request.json")
            answer = door / "r.response.json"
            while not answer.exists() and time.perf_counter() - started < TIMEOUT_S:
                time.sleep(0.05)
            elapsed = time.perf_counter() - started
            probe.stop.set()
            probe.join(timeout=40)
            rss = peak_rss_mib(proc.pid)
            outcome = "no answer"
            if answer.exists():
                body = json.loads(answer.read_text(encoding="utf-8"))
                reply = body.get("reply")
                outcome = (
                    f"reply of {len(reply.encode()) / 2**20:.2f} MiB"
                    if isinstance(reply, str)
                    else f"error {(body.get('error') or {}).get('code', body.get('code'))}"
                )
    return {
        "time_s": elapsed,
        "rss_mib": rss,
        "http_s": probe.slowest,
        "http_failures": probe.failures,
        "outcome": outcome,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="0.001,20,200", help="reply sizes in MB")
    parser.add_argument("--clis", default="gemini,claude")
    args = parser.parse_args(argv)
    sizes = [float(s) for s in args.sizes.split(",")]
    for cli in args.clis.split(","):
        rows = [(size, one(cli, size)) for size in sizes]
        base = rows[0][1]
        for size, row in rows:
            print(
                f"{cli} {size:g} MB: {row['time_s']:.2f} s, peak RSS {row['rss_mib']:.0f} MiB, "
                f"slowest UI HTTP {row['http_s']:.2f} s ({row['http_failures']} failed), "
                f"{row['outcome']}"
            )
        for size, row in rows[1:]:
            time_ratio = float(row["time_s"]) / float(base["time_s"])  # type: ignore[arg-type]
            rss_ratio = float(row["rss_mib"]) / float(base["rss_mib"])  # type: ignore[arg-type]
            print(
                f"{cli} ratio {size:g} MB / {sizes[0]:g} MB: time {time_ratio:.1f}x, "
                f"peak RSS {rss_ratio:.2f}x"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
