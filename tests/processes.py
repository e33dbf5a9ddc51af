"""Real child processes for tests: bounded waits on their output, and no orphan left behind."""

from __future__ import annotations

import contextlib
import queue
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import IO


class LineWatcher:
    """Reads a text stream on a thread so that waiting for a line is always bounded."""

    def __init__(self, stream: IO[str]) -> None:
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._thread = threading.Thread(target=self._pump, args=(stream,), daemon=True)
        self._thread.start()

    def _pump(self, stream: IO[str]) -> None:
        for line in stream:
            self._queue.put(line)
        self._queue.put(None)

    def wait_for(self, predicate: Callable[[str], bool], timeout: float = 10.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"no matching line within {timeout}s; got {self.lines!r}")
            try:
                line = self._queue.get(timeout=remaining)
            except queue.Empty:
                continue
            if line is None:
                raise AssertionError(f"stream ended without a matching line; got {self.lines!r}")
            self.lines.append(line)
            if predicate(line):
                return line

    def text(self) -> str:
        return "".join(self.lines)


@contextlib.contextmanager
def spawned(args: Sequence[str], **kwargs: object) -> Iterator[subprocess.Popen[str]]:
    """Popen with text pipes; on exit the process is killed if still alive and reaped."""
    proc = subprocess.Popen(
        list(args),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        **kwargs,  # type: ignore[call-overload]
    )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
