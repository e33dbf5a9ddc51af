"""A JSON store killed with SIGKILL mid-write, over and over: the child writer and the parent loop.

Child (``python -m tests.fakes.store_writer PATH``): prints ``STARTED`` once, then toggles PATH
forever between two self-validating ~200 KB objects through the real ``JsonDocument.update`` (so
through ``write_atomic``). Parent (``run_kill_loop``): seeds the file, spawns a child, waits for the
``STARTED`` line, kills it after a random 0-20 ms, and checks the file holds one of the two objects
exactly. The invariant under test: after any kill the file parses and is the old or the new content.

Shared by ``tests/integration/test_store_crash_safety.py`` and ``bench/store_crash_soak.py``.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import selectors
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from idea.domain.json_types import JsonObject, JsonValue
from idea.infrastructure.files.atomic import remove_stale_temps
from idea.infrastructure.files.json_document import JsonDocument

STARTED = b"STARTED\n"
MARKER_COUNT = 5000
_MARKER_PAD = "x" * 24
_REPO_ROOT = Path(__file__).resolve().parents[2]
_WAIT_S = 15.0  # bound on every wait for the child; a healthy child takes ~0.1 s to start


def content(generation: int) -> JsonObject:
    """Generation 0 or 1 of the store: MARKER_COUNT identical markers and their checksum."""
    marker = f"generation-{generation}-{_MARKER_PAD}"
    markers: list[JsonValue] = [marker] * MARKER_COUNT
    return {
        "generation": generation,
        "markers": markers,
        "checksum": hashlib.sha256((marker * MARKER_COUNT).encode("utf-8")).hexdigest(),
    }


def _next(old: JsonObject | None) -> JsonObject:
    return content(1 if old is None or old.get("generation") == 0 else 0)


def child_main(path: Path) -> None:
    doc = JsonDocument(path)
    sys.stdout.buffer.write(STARTED)
    sys.stdout.buffer.flush()
    # Nothing else is printed: a full stdout pipe would block the child outside of a write.
    while True:
        doc.update(_next)


@dataclass
class SoakReport:
    kills: int = 0
    corrupt: int = 0  # did not parse
    neither: int = 0  # parsed, but is neither generation exactly
    missing: int = 0
    leftover_temps: int = 0  # temp files a kill left behind (each one: a kill mid-write)
    elapsed_s: float = 0.0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.corrupt == self.neither == self.missing == 0

    def lines(self) -> list[str]:
        rows = [
            ("kills performed", f"{self.kills}"),
            ("files that failed to parse", f"{self.corrupt}"),
            ("content neither old nor new", f"{self.neither}"),
            ("file missing", f"{self.missing}"),
            ("leftover temp files", f"{self.leftover_temps}"),
            ("elapsed", f"{self.elapsed_s:.1f} s"),
        ]
        return [f"{label + ':':<29} {value}" for label, value in rows]


def run_kill_loop(
    path: Path,
    kills: int,
    *,
    rng: random.Random,
    max_delay_s: float = 0.020,
    stop_on_problem: bool = False,
) -> SoakReport:
    """Kill a writer child ``kills`` times and check ``path`` after each kill (see the docstring).

    ``path.parent`` must be a folder of its own: after a problem it is emptied and reseeded.

    Temp files a kill leaves are counted and removed after each check, as the startup cleanup would.
    Raises ``RuntimeError`` if a child fails on its own (it never should).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    expected = [content(0), content(1)]
    JsonDocument(path).save(expected[0])
    report = SoakReport()
    start = time.monotonic()
    while report.kills < kills:
        _spawn_and_kill(path, rng.uniform(0.0, max_delay_s))
        report.kills += 1
        problem = _check(path, expected, report)
        report.leftover_temps += len(remove_stale_temps(path.parent, max_age_s=0.0))
        if problem is not None:
            report.problems.append(f"after kill {report.kills}: {problem}")
            if stop_on_problem:
                break
            # Start the next round from a sound file, so each kill is judged on its own.
            for stray in path.parent.iterdir():
                stray.unlink()
            JsonDocument(path).save(expected[0])
    report.elapsed_s = time.monotonic() - start
    return report


def _spawn_and_kill(path: Path, delay_s: float) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(_REPO_ROOT), env.get("PYTHONPATH")]))
    with subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.store_writer", str(path)],
        cwd=_REPO_ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as proc:
        try:
            _wait_for_started(proc)
            time.sleep(delay_s)  # the random kill moment, not a synchronisation
            if proc.poll() is not None:
                raise RuntimeError(f"writer exited by itself: {_stderr(proc)}")
            proc.kill()  # SIGKILL on POSIX: no handler, no flush, no cleanup
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.communicate(timeout=_WAIT_S)


def _wait_for_started(proc: subprocess.Popen[bytes]) -> None:
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    received = b""
    deadline = time.monotonic() + _WAIT_S
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        while not received.endswith(b"\n"):
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not sel.select(remaining):
                raise RuntimeError(f"writer did not start within {_WAIT_S} s")
            chunk = os.read(fd, 64)
            if not chunk:
                proc.wait(timeout=_WAIT_S)
                raise RuntimeError(f"writer exited before starting: {_stderr(proc)}")
            received += chunk
    if received != STARTED:
        raise RuntimeError(f"unexpected output from writer: {received!r}")


def _stderr(proc: subprocess.Popen[bytes]) -> str:
    assert proc.stderr is not None
    return proc.stderr.read().decode("utf-8", "replace").strip()[-2000:]


def _check(path: Path, expected: list[JsonObject], report: SoakReport) -> str | None:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        report.missing += 1
        return "the file is missing"
    try:
        value = json.loads(data.decode("utf-8"))
    except ValueError as exc:
        report.corrupt += 1
        return f"the file does not parse ({exc}); {len(data)} bytes, starting {data[:80]!r}"
    if value not in expected:
        report.neither += 1
        return f"the file parses but is neither generation: {str(value)[:200]}"
    return None


if __name__ == "__main__":
    child_main(Path(sys.argv[1]))
