"""The app's end of the window process (``process.py``): spawned first, told what to show, heard on
its stdout, its stderr relayed line by line, and closed: asked, then terminated, then killed.

Two threads read the window process (its answers, its stderr) and hand each event to one
listener, set once the app's loop runs (events before that wait for it). An event is a kind and
a detail: ``shown``, ``ready``, ``unavailable`` (detail: why), and ``exited`` (detail: why the
window never showed, or "" once it had). Nothing here imports the window toolkit.
"""

from __future__ import annotations

import collections
import contextlib
import subprocess
import sys
import threading
from collections.abc import Callable

from idea.app.window.wire import CLOSE, EVENT, REASON, ROOT, SHOWN, TITLE, URL, decode, encode

Printer = Callable[[str], None]
Listener = Callable[[str, str], None]

EXITED = "exited"
# What the app says when the project is served for a browser instead of the window.
UNAVAILABLE_LINE = "IdeA window unavailable ({}); serving the UI for a browser instead"
CLOSE_TIMEOUT_S = 30.0  # for a window asked to close, before it is ended
COMMAND = "window-process"  # idea.cli routes it to process.main
KILL_WAIT_S = 10.0
STDERR_KEPT = 50  # lines, to say why Qt did not start
STDERR_DRAIN_S = 2.0


def _argv() -> list[str]:
    if getattr(sys, "frozen", False):  # the one executable routes its own commands
        return [sys.executable, COMMAND]
    return [sys.executable, "-m", "idea", COMMAND]


def first_telling_line(stderr: str, code: int) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    if not lines:
        return f"exit code {code}"
    telling = lines[-1] if "Error" in lines[-1] else lines[0]
    return telling[:300]


class WindowLink:
    def __init__(self, proc: subprocess.Popen[bytes], err: Printer) -> None:
        self._proc = proc
        self._err = err
        self._lock = threading.Lock()
        self._listener: Listener | None = None
        self._pending: list[tuple[str, str]] = []
        self._shown = False
        self._stderr_tail: collections.deque[str] = collections.deque(maxlen=STDERR_KEPT)
        self._stderr = threading.Thread(target=self._relay_stderr, name="idea-window-err")
        self._answers = threading.Thread(target=self._read_answers, name="idea-window")
        self._stderr.daemon = self._answers.daemon = True

    @classmethod
    def spawn(cls, err: Printer, argv: list[str] | None = None) -> WindowLink:
        """Start the window process now (``argv``: another program, for tests); raises
        ``OSError`` if it cannot be started."""
        proc = subprocess.Popen(
            argv or _argv(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        link = cls(proc, err)
        link._stderr.start()
        link._answers.start()
        return link

    def listen(self, listener: Listener) -> None:
        """``listener`` runs on the link's threads, under its lock (so in order; it must not
        block); it gets the events that came before too."""
        with self._lock:
            self._listener = listener
            for kind, detail in self._pending:
                listener(kind, detail)
            self._pending.clear()

    def show(self, url: str, title: str, root: str) -> None:
        self._tell({URL: url, TITLE: title, ROOT: root})

    def retitle(self, title: str, root: str) -> None:
        self._tell({TITLE: title, ROOT: root})

    def close(self, timeout_s: float) -> int:
        """Ask the window to close and wait ``timeout_s`` for it, then terminate, then kill; its
        exit status. Idempotent; blocks, so not on the app's loop."""
        self._tell({CLOSE: "1"})
        with self._lock, contextlib.suppress(OSError):
            if self._proc.stdin is not None:
                self._proc.stdin.close()  # the end of stdin closes it as well
        try:
            return self._proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            self._err(f"warning: the window did not close within {timeout_s:g} s: ended")
        self._proc.terminate()
        try:
            return self._proc.wait(KILL_WAIT_S)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            return self._proc.wait()

    def discard(self) -> None:
        """Kill a window that has not shown yet (nothing flashes on the screen); close one that
        has. Idempotent."""
        if self._shown:
            self.close(KILL_WAIT_S)
            return
        with contextlib.suppress(OSError):
            self._proc.kill()
        self._proc.wait()

    def terminate(self) -> None:
        """End the window process now, without waiting (its exit is still heard)."""
        with contextlib.suppress(OSError):
            self._proc.terminate()

    def _tell(self, message: dict[str, str]) -> None:
        line = encode(message)
        with self._lock, contextlib.suppress(OSError, ValueError):  # gone, or stdin closed
            if self._proc.stdin is not None:
                self._proc.stdin.write(line)
                self._proc.stdin.flush()

    def _deliver(self, kind: str, detail: str) -> None:
        with self._lock:
            if self._listener is None:
                self._pending.append((kind, detail))
            else:
                self._listener(kind, detail)

    def _read_answers(self) -> None:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            try:
                answer = decode(line)
                kind, reason = answer[EVENT], answer.get(REASON, "")
            except (ValueError, KeyError):
                self._err(f"warning: the window said something unexpected: {line!r}")
                continue
            self._shown = self._shown or kind == SHOWN
            self._deliver(kind, reason)
        self._proc.stdout.close()
        code = self._proc.wait()
        why = ""
        if not self._shown:
            self._stderr.join(STDERR_DRAIN_S)  # Qt's last words, if it aborted
            stderr = "\n".join(self._stderr_tail)
            why = "Qt cannot start: " + first_telling_line(stderr, code) if code else ""
        self._deliver(EXITED, why)

    def _relay_stderr(self) -> None:
        assert self._proc.stderr is not None
        for raw in self._proc.stderr:
            line = raw.decode("utf-8", "replace").rstrip()
            self._stderr_tail.append(line)
            self._err(line)
        self._proc.stderr.close()
