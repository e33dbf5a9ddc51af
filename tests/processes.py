"""Real child processes for tests: bounded waits on their output, and no orphan left behind."""

from __future__ import annotations

import contextlib
import queue
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import IO, AnyStr, Generic


class LineWatcher(Generic[AnyStr]):
    """Reads a text or byte stream on a thread so that waiting for a line is always bounded."""

    def __init__(self, stream: IO[AnyStr]) -> None:
        self.lines: list[AnyStr] = []  # every line read so far
        self._queue: queue.Queue[AnyStr | None] = queue.Queue()
        self._thread = threading.Thread(target=self._pump, args=(stream,), daemon=True)
        self._thread.start()

    def _pump(self, stream: IO[AnyStr]) -> None:
        for line in stream:
            self.lines.append(line)
            self._queue.put(line)
        self._queue.put(None)

    def next_line(self, timeout: float = 10.0) -> AnyStr | None:
        """The next line, or None at the end of the stream; AssertionError after ``timeout``."""
        try:
            return self._queue.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no line within {timeout}s; got {self.lines!r}") from None

    def wait_for(self, predicate: Callable[[AnyStr], bool], timeout: float = 10.0) -> AnyStr:
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
            if predicate(line):
                return line

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)

    def text(self) -> str:
        return "".join(line if isinstance(line, str) else line.decode() for line in self.lines)


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
