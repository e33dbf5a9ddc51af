"""The relay with a stdin thread: for a Windows named pipe (which ``select`` cannot wait on) and
for in-memory streams.

Threads: the caller's thread writes whatever the app sends; one daemon thread reads stdin and sends
each line as it comes. Writes to stdout are whole lines under one lock, so that the error lines of
the stdin thread never cut into a message.
"""

from __future__ import annotations

import signal
import sys
import threading
from typing import TextIO

from idea.bridge.channel import Channel
from idea.bridge.relay_common import (
    DRAIN_S,
    EXIT_OK,
    ByteWriter,
    LineReader,
    app_gone_report,
)
from idea.bridge.session import RelaySession
from idea.endpoint import loopback


def relay_threads(stdin: LineReader, stdout: ByteWriter, channel: Channel, stderr: TextIO) -> int:
    """Relay after the welcome until one side ends; returns the exit code."""
    session = RelaySession()
    out = _Output(stdout)
    stdin_done = threading.Event()
    reader = threading.Thread(
        target=_pump_stdin,
        args=(stdin, channel, out, session, stdin_done),
        name="idea-bridge-stdin",
        daemon=True,
    )
    _start_without_signals(reader)
    return _pump_app(channel, out, session, stdin_done, stderr)


def _start_without_signals(thread: threading.Thread) -> None:
    """Start ``thread`` with SIGINT/SIGTERM blocked in it, so that the OS delivers them to the
    caller's (main) thread, the only one where Python runs handlers and can interrupt a wait."""
    if sys.platform == "win32":  # no signal masks: signals go to the main thread anyway
        thread.start()
        return
    stop_signals = {signal.SIGINT, signal.SIGTERM}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, stop_signals)
    try:
        thread.start()  # the new thread inherits the blocked mask
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


class _Output:
    """The one writer of stdout: whole lines, flushed, under a lock."""

    def __init__(self, stdout: ByteWriter) -> None:
        self._stdout = stdout
        self._lock = threading.Lock()

    def write(self, line: bytes) -> bool:
        """Write one message line; False when the client no longer reads stdout."""
        with self._lock:
            try:
                # An unbuffered stream may take part of it (a signal mid-write): loop.
                view = memoryview(line)
                while view:
                    written = self._stdout.write(view)
                    if written is None:  # a non-blocking stdout that is full
                        raise BlockingIOError("stdout would block")
                    view = view[written:]
                self._stdout.flush()
            except (OSError, ValueError):  # broken pipe, or a closed stream
                return False
        return True


def _pump_stdin(
    stdin: LineReader,
    channel: Channel,
    out: _Output,
    session: RelaySession,
    stdin_done: threading.Event,
) -> None:
    """Reader thread: each non-blank stdin line becomes one ``rpc`` frame, in order."""
    try:
        while True:
            raw = stdin.readline()
            if not raw:
                break
            frame, errors = session.client_line(raw.rstrip(b"\n"))
            if frame is not None:
                channel.send_frame(frame)
            elif session.pending.closed:
                return  # the app is gone; the main thread answers and exits
            for line in errors:
                out.write(line)
    except (OSError, EOFError, ValueError):
        return  # the channel (or stdin) is closed: the main thread sees it too
    except BaseException:
        channel.close()  # never leave the main thread waiting on a relay that stopped
        raise
    # The client stopped writing: answers already on their way are still delivered (bounded).
    session.pending.wait_empty(DRAIN_S)
    stdin_done.set()  # before close(): the main thread must read this EOF as ours
    channel.close()


def _pump_app(
    channel: Channel,
    out: _Output,
    session: RelaySession,
    stdin_done: threading.Event,
    stderr: TextIO,
) -> int:
    """Main thread: each ``rpc`` frame from the app becomes one stdout line."""
    broken = ""
    while True:
        try:
            line = session.app_frame(channel.recv())
        except EOFError:
            break
        except loopback.ProtocolError as exc:
            broken = f" after breaking the loopback protocol ({exc})"
            break
        if line is not None and not out.write(line):
            return EXIT_OK  # the client stopped reading: it is gone
    if stdin_done.is_set():
        return EXIT_OK
    failed = session.app_gone()
    for line in failed:
        out.write(line)
    return app_gone_report(stderr, len(failed), broken)
