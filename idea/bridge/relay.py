"""``relay``: stdio JSON-RPC lines ⇄ ``rpc`` frames of the loopback channel, full duplex.

Invariants: stdout carries only JSON-RPC messages, one per line, each flushed at once, and two
messages never interleave (one lock guards every write). A request the client sent and the app
did not answer is never left unanswered when the app goes away: it gets a ``CONNECTION_CLOSED``
error before the relay returns. The relay knows nothing of MCP beyond JSON-RPC ids (and
``notifications/cancelled``, which retires the cancelled id, as the server answers it no more).

Threads: the caller's thread sends ``hello``, waits for ``welcome`` and then writes whatever the
app sends; one daemon thread reads stdin and sends each line as it comes. Exit codes: 0 stdin
closed (or stdout gone), 1 app gone or misbehaving, 2 rejected by the app.
"""

from __future__ import annotations

import json
import os
import signal
import threading
from typing import Any, Protocol, TextIO

from idea.bridge.channel import Channel
from idea.protocol import jsonrpc, loopback

EXIT_OK = 0
EXIT_APP_GONE = 1
EXIT_REJECTED = 2
WELCOME_TIMEOUT = 1.5
PREFIX = "idea mcp-server: "
APP_CLOSED = "the IdeA app closed the connection"
_CANCELLED = "notifications/cancelled"


class LineReader(Protocol):
    def readline(self) -> bytes: ...


class ByteWriter(Protocol):
    def write(self, data: bytes | memoryview, /) -> int | None: ...

    def flush(self) -> object: ...


def relay(
    stdin: LineReader,
    stdout: ByteWriter,
    channel: Channel,
    stderr: TextIO,
    *,
    project: str,
    requester: str,
    pid: int | None = None,
    welcome_timeout: float = WELCOME_TIMEOUT,
) -> int:
    """Greet the app as ``requester`` of ``project``, then relay until one side ends."""
    try:
        refused = _greet(channel, stderr, project, requester, pid, welcome_timeout)
        if refused is not None:
            return refused
        out = _Output(stdout)
        pending = _Pending()
        stdin_done = threading.Event()
        reader = threading.Thread(
            target=_pump_stdin,
            args=(stdin, channel, out, pending, stdin_done),
            name="idea-bridge-stdin",
            daemon=True,
        )
        _start_without_signals(reader)
        return _pump_app(channel, out, pending, stdin_done, stderr)
    finally:
        channel.close()


def _say(stderr: TextIO, text: str) -> None:
    stderr.write(PREFIX + text + "\n")
    stderr.flush()


def _greet(
    channel: Channel,
    stderr: TextIO,
    project: str,
    requester: str,
    pid: int | None,
    timeout: float,
) -> int | None:
    """``hello`` → ``welcome`` (None); anything else is one stderr line and an exit code."""
    try:
        channel.send(loopback.hello(project, requester, os.getpid() if pid is None else pid))
        message = loopback.unpack(channel.recv(timeout=timeout))
    except TimeoutError:
        _say(stderr, f"the IdeA app did not answer the hello within {timeout:g} s")
        return EXIT_APP_GONE
    except (EOFError, OSError):
        _say(stderr, f"{APP_CLOSED} during the hello")
        return EXIT_APP_GONE
    except loopback.ProtocolError as exc:
        _say(stderr, f"the IdeA app broke the loopback protocol: {exc}")
        return EXIT_APP_GONE
    kind = message["t"]
    if kind == "welcome":
        return None
    if kind == "reject":
        code, text = message.get("code", "REJECTED"), message.get("message", "")
        _say(stderr, f"rejected by the IdeA app: {code}: {text}")
        return EXIT_REJECTED
    _say(stderr, f"the IdeA app sent {kind!r} instead of a welcome")
    return EXIT_APP_GONE


def _start_without_signals(thread: threading.Thread) -> None:
    """Start ``thread`` with SIGINT/SIGTERM blocked in it, so that the OS delivers them to the
    caller's (main) thread, the only one where Python runs handlers and can interrupt a wait."""
    if not hasattr(signal, "pthread_sigmask"):
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


def _key(request_id: Any) -> str:
    # 1 and "1" are different ids; JSON text tells them apart.
    return json.dumps(request_id, sort_keys=True)


def _messages(data: bytes) -> list[dict[str, Any]]:
    """The JSON-RPC messages of one line (a batch is a list); nothing for non-JSON."""
    try:
        parsed = json.loads(data)
    except (ValueError, RecursionError):
        return []
    items = parsed if isinstance(parsed, list) else [parsed]
    return [item for item in items if isinstance(item, dict)]


class _Pending:
    """Ids of the client's requests sent to the app and not answered yet."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._ids: dict[str, Any] = {}
        self._closed = False

    def wait_empty(self, timeout: float) -> None:
        """Block until every request was answered (or the app is gone), at most ``timeout``."""
        with self._lock:
            self._lock.wait_for(lambda: not self._ids or self._closed, timeout)

    def track(self, line: bytes) -> bool:
        """Note the requests in a client line; False once the app is gone (do not send)."""
        messages = _messages(line)
        with self._lock:
            if self._closed:
                return False
            for message in messages:
                method = message.get("method")
                if not isinstance(method, str):
                    continue
                if "id" in message:
                    self._ids[_key(message["id"])] = message["id"]
                elif method == _CANCELLED:
                    params = message.get("params")
                    if isinstance(params, dict) and "requestId" in params:
                        self._ids.pop(_key(params["requestId"]), None)
        return True

    def answered(self, data: bytes) -> None:
        """Forget the requests answered by a line from the app."""
        if not self._ids:  # nothing in flight: no need to parse
            return
        for message in _messages(data):
            if "id" in message and "method" not in message:
                with self._lock:
                    self._ids.pop(_key(message["id"]), None)
                    if not self._ids:
                        self._lock.notify_all()

    def forget(self, line: bytes) -> list[Any]:
        """Forget and return the ids of the requests in a client line that was not sent."""
        found = []
        with self._lock:
            for message in _messages(line):
                if isinstance(message.get("method"), str) and "id" in message:
                    found.append(message["id"])
                    self._ids.pop(_key(message["id"]), None)
        return found

    def close(self) -> list[Any]:
        """The app is gone: return every unanswered id; later ``track`` calls return False."""
        with self._lock:
            self._closed = True
            ids = list(self._ids.values())
            self._ids.clear()
            self._lock.notify_all()
        return ids


DRAIN_S = 0.5  # clients send SIGTERM 2 s after closing stdin (SDK, Inspector)


def _one_line(data: bytes) -> bytes:
    data = data.strip()
    if b"\n" in data or b"\r" in data:
        # Raw line breaks in JSON are only whitespace between tokens: a space keeps it valid.
        data = data.replace(b"\r\n", b" ").replace(b"\n", b" ").replace(b"\r", b" ")
    return data + b"\n"


def _pump_stdin(
    stdin: LineReader,
    channel: Channel,
    out: _Output,
    pending: _Pending,
    stdin_done: threading.Event,
) -> None:
    """Reader thread: each non-blank stdin line becomes one ``rpc`` frame, in order."""
    try:
        while True:
            raw = stdin.readline()
            if not raw:
                break
            line = raw.rstrip(b"\r\n")
            if not line.strip():
                continue
            if not pending.track(line):
                return  # the app is gone; the main thread answers and exits
            try:
                frame = loopback.rpc(line)
                channel.send(frame)
            except loopback.ProtocolError as exc:  # a line larger than a frame may be
                for request_id in pending.forget(line):
                    error = jsonrpc.error(request_id, jsonrpc.INVALID_REQUEST, str(exc))
                    out.write(jsonrpc.line(error))
    except (OSError, EOFError, ValueError):
        return  # the channel (or stdin) is closed: the main thread sees it too
    except BaseException:
        channel.close()  # never leave the main thread waiting on a relay that stopped
        raise
    # The client stopped writing: answers already on their way are still delivered (bounded).
    pending.wait_empty(DRAIN_S)
    stdin_done.set()  # before close(): the main thread must read this EOF as ours
    channel.close()


def _pump_app(
    channel: Channel,
    out: _Output,
    pending: _Pending,
    stdin_done: threading.Event,
    stderr: TextIO,
) -> int:
    """Main thread: each ``rpc`` frame from the app becomes one stdout line."""
    broken = ""
    while True:
        try:
            message = loopback.unpack(channel.recv())
        except EOFError:
            break
        except loopback.ProtocolError as exc:
            broken = f" after breaking the loopback protocol ({exc})"
            break
        data = message.get("data")
        if message["t"] != "rpc" or not isinstance(data, (bytes, str)):
            continue  # a message type from a newer app: not for the client
        line = _one_line(data.encode("utf-8") if isinstance(data, str) else data)
        pending.answered(line)
        if not out.write(line):
            return EXIT_OK  # the client stopped reading: it is gone
    if stdin_done.is_set():
        return EXIT_OK
    failed = pending.close()
    for request_id in failed:
        error = jsonrpc.error(
            request_id, jsonrpc.CONNECTION_CLOSED, f"{APP_CLOSED} before answering"
        )
        out.write(jsonrpc.line(error))
    count = f"; {len(failed)} pending request(s) failed" if failed else ""
    _say(stderr, f"{APP_CLOSED}{broken}{count}")
    return EXIT_APP_GONE
