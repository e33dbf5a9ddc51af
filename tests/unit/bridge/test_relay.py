"""``relay`` against a fake app, with both drivers: the select loop (real pipes and a socket
pair, no process) and the stdin thread (in-memory streams, as for a Windows named pipe)."""

import contextlib
import io
import json
import os
import queue
import socket
import sys
import threading

import pytest

from idea.bridge.channel import SocketChannel
from idea.bridge.relay import EXIT_APP_GONE, EXIT_OK, EXIT_REJECTED, relay
from idea.endpoint import jsonrpc, loopback

WAIT = 5.0
EOF_MARK = object()
DRIVERS = ["threads"] if sys.platform == "win32" else ["select", "threads"]


class FakeStdin:
    """A blocking line source the test feeds; ``eof()`` ends it."""

    def __init__(self):
        self._lines = queue.Queue()

    def feed(self, data):
        self._lines.put(data)

    def feed_json(self, message):
        self.feed(json.dumps(message).encode() + b"\n")

    def eof(self):
        self._lines.put(b"")

    def readline(self):
        return self._lines.get(timeout=WAIT * 2)


class PipeStdin:
    """The same over a real pipe (the select loop reads its descriptor)."""

    def __init__(self):
        self._read, self._write = os.pipe()
        self._lock = threading.Lock()
        self._file = None

    def fileno(self):
        return self._read

    def readline(self):  # for the thread driver (a writer without a descriptor)
        if self._file is None:
            self._file = open(self._read, "rb", closefd=False)  # noqa: SIM115
        return self._file.readline()

    def feed(self, data):
        with self._lock:
            if self._write is not None:
                os.write(self._write, data)

    def feed_json(self, message):
        self.feed(json.dumps(message).encode() + b"\n")

    def eof(self):
        with self._lock:
            if self._write is not None:
                os.close(self._write)
                self._write = None

    def close(self):
        self.eof()
        os.close(self._read)


class FakeStdout:
    """Collects writes; ``max_chunk`` makes it accept only part of each write, like a raw fd."""

    def __init__(self, max_chunk=None, broken=False):
        self.data = bytearray()
        self.max_chunk = max_chunk
        self.broken = broken
        self._changed = threading.Condition()

    def write(self, chunk):
        if self.broken:
            raise BrokenPipeError("the client is gone")
        taken = bytes(chunk[: self.max_chunk] if self.max_chunk else chunk)
        with self._changed:
            self.data += taken
            self._changed.notify_all()
        return len(taken)

    def flush(self):
        pass

    def lines(self):
        return [json.loads(line) for line in bytes(self.data).splitlines()]

    def wait_lines(self, count):
        with self._changed:
            ok = self._changed.wait_for(lambda: self.data.count(b"\n") >= count, timeout=WAIT)
        assert ok, f"expected {count} lines, got {bytes(self.data)!r}"
        return self.lines()


class PipeStdout(FakeStdout):
    """The same over a real pipe: a thread collects what the relay writes to the descriptor;
    ``broken``: nobody reads the pipe (its read end is closed)."""

    def __init__(self, max_chunk=None, broken=False):
        super().__init__()
        self._read, self._write = os.pipe()
        self._reader = None
        if broken:
            os.close(self._read)
        else:
            self._reader = threading.Thread(target=self._collect, daemon=True)
            self._reader.start()

    def fileno(self):
        return self._write

    def _collect(self):
        while chunk := os.read(self._read, 65536):
            with self._changed:
                self.data += chunk
                self._changed.notify_all()
        os.close(self._read)

    def lines(self):
        return [json.loads(line) for line in bytes(self.data).splitlines()]

    def close(self):
        with contextlib.suppress(OSError):
            os.close(self._write)
        if self._reader is not None:
            self._reader.join(WAIT)


class FakeChannel:
    """The app side in memory: ``sent`` gets what the bridge sends; ``app`` reacts to it."""

    def __init__(self, greeting=None, app=None):
        self.sent = queue.Queue()
        self.closed = threading.Event()
        self._inbox = queue.Queue()
        self._app = app or (lambda channel, message: None)
        self._greeting = loopback.welcome() if greeting is None else greeting
        self.bridge_side = self  # what the relay is given
        self.greeted = threading.Event()

    def push(self, payload):
        """A message from the app, sent once the bridge was greeted (as the real app does)."""
        assert self.greeted.wait(WAIT), "no hello from the bridge"
        self._push_now(payload)

    def _push_now(self, payload):
        self._inbox.put(payload)

    def push_rpc(self, message):
        self.push(loopback.rpc(json.dumps(message).encode()))

    def app_closes(self):
        self._inbox.put(EOF_MARK)

    def receive(self, payload):
        """One payload from the bridge."""
        message = loopback.unpack(payload)
        self.sent.put(message)
        if message["t"] == "hello":
            if self._greeting != b"silent":
                self._push_now(self._greeting)
            self.greeted.set()
        else:
            self._app(self, message)

    def send(self, payload):
        if self.closed.is_set():
            raise OSError("closed")
        self.receive(payload)

    def send_frame(self, frame):
        assert loopback.frame_length(frame[: loopback.HEADER_BYTES]) == len(frame) - 4
        self.send(frame[loopback.HEADER_BYTES :])

    def recv(self, timeout=None):
        try:
            item = self._inbox.get(timeout=WAIT * 2 if timeout is None else timeout)
        except queue.Empty:
            if timeout is None:
                raise AssertionError("the relay waited too long") from None
            raise TimeoutError("no message") from None
        if item is EOF_MARK:
            self._inbox.put(EOF_MARK)
            raise EOFError("closed")
        return item

    def close(self):
        self.closed.set()
        self._inbox.put(EOF_MARK)

    def next_sent_rpc(self):
        while True:
            message = self.sent.get(timeout=WAIT)
            if message["t"] == "rpc":
                return message["data"]


class SocketFakeChannel(FakeChannel):
    """The same app behind a real socket pair: the relay gets a ``SocketChannel``; a thread on
    the other end answers it. ``closed`` is set once the bridge closed its end."""

    def __init__(self, greeting=None, app=None):
        super().__init__(greeting, app)
        app_sock, bridge_sock = socket.socketpair()
        self._sock = app_sock
        self._send_lock = threading.Lock()
        self.reading = threading.Event()  # cleared: the app stops reading the socket
        self.reading.set()
        self.bridge_side = SocketChannel(bridge_sock)
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self):
        decoder = loopback.FrameDecoder()
        with contextlib.suppress(OSError):
            while self.reading.wait(WAIT * 2) and (data := self._sock.recv(65536)):
                for payload in decoder.feed(data):
                    self.receive(payload)
        self.closed.set()

    def _push_now(self, payload):
        with self._send_lock, contextlib.suppress(OSError):
            self._sock.sendall(loopback.encode_frame(payload))

    def app_closes(self):
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)

    def close(self):
        self.reading.set()
        self.bridge_side.close()
        self._thread.join(WAIT)
        self._sock.close()


def echo_app(channel, message):
    request = json.loads(message["data"])
    if "id" in request and request.get("method") != "hold":
        channel.push_rpc(jsonrpc.result(request["id"], {"echo": request["method"]}))


class Run:
    """``relay`` on a thread (it blocks like a process main), bounded join."""

    def __init__(self, driver, channel, stdin=None, stdout=None, **kwargs):
        threads = driver == "threads"
        self.stdin = stdin or (FakeStdin() if threads else PipeStdin())
        self.stdout = stdout or (FakeStdout() if threads else PipeStdout())
        self.stderr = io.StringIO()
        self.channel = channel
        self.code = None
        kwargs.setdefault("project", "proj")
        kwargs.setdefault("requester", "agent-a")
        kwargs.setdefault("pid", 4242)
        self._thread = threading.Thread(target=self._main, args=(kwargs,), daemon=True)
        self._thread.start()

    def _main(self, kwargs):
        self.code = relay(self.stdin, self.stdout, self.channel.bridge_side, self.stderr, **kwargs)

    def result(self):
        self._thread.join(WAIT)
        assert not self._thread.is_alive(), "relay did not return"
        if isinstance(self.stdout, PipeStdout):
            self.stdout.close()  # the relay is done: collect everything it wrote
        return self.code

    def stderr_lines(self):
        return self.stderr.getvalue().splitlines()

    def cleanup(self):
        self.stdin.eof()
        self.channel.close()
        self.result()
        for stream in (self.stdin, self.stdout):
            if hasattr(stream, "close"):
                stream.close()


@pytest.fixture(params=DRIVERS)
def driver(request):
    return request.param


@pytest.fixture
def channel_type(driver):
    return FakeChannel if driver == "threads" else SocketFakeChannel


@pytest.fixture
def stdout_type(driver):
    return FakeStdout if driver == "threads" else PipeStdout


@pytest.fixture
def runs(driver):
    started = []

    def start(*args, **kwargs):
        run = Run(driver, *args, **kwargs)
        started.append(run)
        return run

    yield start
    for run in started:  # never leave a relay thread behind
        run.cleanup()


def test_hello_then_request_answer_then_stdin_eof(runs, channel_type):
    channel = channel_type(app=echo_app)
    run = runs(channel)
    hello = channel.sent.get(timeout=WAIT)
    assert hello == {
        "t": "hello",
        "v": loopback.VERSION,
        "project": "proj",
        "requester": "agent-a",
        "pid": 4242,
    }
    run.stdin.feed_json({"jsonrpc": "2.0", "id": 1, "method": "initialize"})
    assert run.stdout.wait_lines(1) == [jsonrpc.result(1, {"echo": "initialize"})]
    run.stdin.eof()
    assert run.result() == EXIT_OK
    assert channel.closed.wait(WAIT)
    assert run.stderr.getvalue() == ""


def test_reject_is_one_stderr_line_with_code_and_message_exit_2(runs, channel_type):
    channel = channel_type(greeting=loopback.reject("UNKNOWN_AGENT", "no agent 'x'"))
    run = runs(channel)
    assert run.result() == EXIT_REJECTED
    assert run.stderr_lines() == [
        "idea mcp-server: rejected by the IdeA app: UNKNOWN_AGENT: no agent 'x'"
    ]
    assert run.stdout.data == b""


def test_no_welcome_in_time_exits_1(runs, channel_type):
    run = runs(channel_type(greeting=b"silent"), welcome_timeout=0.05)
    assert run.result() == EXIT_APP_GONE
    assert "did not answer the hello" in run.stderr.getvalue()


def test_a_message_other_than_welcome_exits_1(runs, channel_type):
    run = runs(channel_type(greeting=loopback.rpc(b"{}")))
    assert run.result() == EXIT_APP_GONE
    assert "instead of a welcome" in run.stderr.getvalue()


def test_lines_are_forwarded_without_line_ends_blank_ones_skipped(runs, channel_type):
    channel = channel_type()
    run = runs(channel)
    run.stdin.feed(b"\r\n")
    run.stdin.feed(b"   \n")
    run.stdin.feed(b'{"jsonrpc":"2.0","id":1,"method":"a"}\r\n')
    run.stdin.feed(b"not json at all\n")
    run.stdin.feed(b'{"jsonrpc":"2.0","method":"last"}')  # no final newline before EOF
    run.stdin.eof()
    assert channel.next_sent_rpc() == b'{"jsonrpc":"2.0","id":1,"method":"a"}'
    assert channel.next_sent_rpc() == b"not json at all"
    assert channel.next_sent_rpc() == b'{"jsonrpc":"2.0","method":"last"}'
    assert run.result() == EXIT_OK


def test_a_multi_line_message_from_the_app_is_written_as_one_line(runs, channel_type):
    channel = channel_type()
    run = runs(channel)
    channel.push(loopback.rpc(b'{\n  "jsonrpc": "2.0",\r\n  "method": "x"\n}\n'))
    channel.push(loopback.rpc('{"jsonrpc":"2.0","method":"é"}'.encode()))
    assert run.stdout.wait_lines(2) == [
        {"jsonrpc": "2.0", "method": "x"},
        {"jsonrpc": "2.0", "method": "é"},
    ]
    assert bytes(run.stdout.data).count(b"\n") == 2


def test_unknown_message_types_from_the_app_are_not_written(runs, channel_type):
    channel = channel_type()
    run = runs(channel)
    channel.push(loopback.pack({"t": "future-thing", "x": 1}))
    channel.push_rpc({"jsonrpc": "2.0", "method": "after"})
    assert run.stdout.wait_lines(1) == [{"jsonrpc": "2.0", "method": "after"}]


def test_notifications_are_written_while_a_request_is_pending(runs, channel_type):
    def app(channel, message):
        request = json.loads(message["data"])
        if request.get("method") == "slow":
            channel.push_rpc({"jsonrpc": "2.0", "method": "notifications/progress"})
        elif request.get("method") == "go":
            channel.push_rpc(jsonrpc.result("s", "done"))

    channel = channel_type(app=app)
    run = runs(channel)
    run.stdin.feed_json({"jsonrpc": "2.0", "id": "s", "method": "slow"})
    assert run.stdout.wait_lines(1)[0]["method"] == "notifications/progress"
    run.stdin.feed_json({"jsonrpc": "2.0", "method": "go"})
    assert run.stdout.wait_lines(2)[1] == jsonrpc.result("s", "done")


def test_app_gone_answers_every_pending_request_and_exits_1(runs, channel_type):
    def app(channel, message):
        request = json.loads(message["data"])
        if isinstance(request, list):
            return
        if request.get("method") == "answered":
            channel.push_rpc(jsonrpc.result(request["id"], None))
        elif request.get("method") == "die":
            channel.app_closes()

    channel = channel_type(app=app)
    run = runs(channel)
    run.stdin.feed_json({"jsonrpc": "2.0", "id": 1, "method": "answered"})
    run.stdout.wait_lines(1)
    run.stdin.feed_json({"jsonrpc": "2.0", "id": "1", "method": "pending-str"})
    run.stdin.feed_json({"jsonrpc": "2.0", "id": 2, "method": "pending-int"})
    run.stdin.feed_json({"jsonrpc": "2.0", "id": 3, "method": "cancelled"})
    cancel = {"requestId": 3, "reason": "user"}
    run.stdin.feed_json({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": cancel})
    run.stdin.feed(
        json.dumps([{"jsonrpc": "2.0", "id": "b", "method": "batched"}]).encode() + b"\n"
    )
    run.stdin.feed_json({"jsonrpc": "2.0", "method": "die"})
    assert run.result() == EXIT_APP_GONE
    lines = run.stdout.lines()
    assert lines[0] == jsonrpc.result(1, None)
    errors = {json.dumps(line["id"]): line["error"] for line in lines[1:]}
    assert set(errors) == {'"1"', "2", '"b"'}
    assert {e["code"] for e in errors.values()} == {jsonrpc.CONNECTION_CLOSED}
    assert all("IdeA app closed the connection" in e["message"] for e in errors.values())
    [line] = run.stderr_lines()
    assert "closed the connection" in line and "3 pending" in line


def test_app_gone_with_nothing_pending_still_exits_1(runs, channel_type):
    channel = channel_type()
    run = runs(channel)
    channel.sent.get(timeout=WAIT)  # the hello: the relay is past the greeting
    channel.app_closes()
    assert run.result() == EXIT_APP_GONE
    assert run.stdout.data == b""
    assert len(run.stderr_lines()) == 1


def test_garbage_from_the_app_fails_pending_requests(runs, channel_type):
    def app(channel, message):
        channel.push(b"\xc1 not msgpack")

    channel = channel_type(app=app)
    run = runs(channel)
    run.stdin.feed_json({"jsonrpc": "2.0", "id": 9, "method": "x"})
    assert run.result() == EXIT_APP_GONE
    assert run.stdout.lines()[0]["error"]["code"] == jsonrpc.CONNECTION_CLOSED
    assert "loopback protocol" in run.stderr.getvalue()


def test_partial_writes_still_give_whole_lines(runs, channel_type):
    # A writer object without a descriptor: the thread driver, over either channel.
    channel = channel_type()
    run = runs(channel, stdout=FakeStdout(max_chunk=3))
    channel.push_rpc({"jsonrpc": "2.0", "method": "a-fairly-long-method-name"})
    assert run.stdout.wait_lines(1) == [{"jsonrpc": "2.0", "method": "a-fairly-long-method-name"}]


def test_a_client_that_stopped_reading_ends_the_relay_quietly(runs, channel_type, stdout_type):
    channel = channel_type()
    run = runs(channel, stdout=stdout_type(broken=True))
    channel.push_rpc({"jsonrpc": "2.0", "method": "x"})
    assert run.result() == EXIT_OK
    assert channel.closed.wait(WAIT)


@pytest.mark.skipif(sys.platform == "win32", reason="the select loop is POSIX only")
def test_an_app_that_stops_reading_holds_stdin_back_but_not_its_own_messages():
    received = []
    channel = SocketFakeChannel(app=lambda channel, message: received.append(message["data"]))
    run = Run("select", channel)
    try:
        assert channel.greeted.wait(WAIT)
        channel.reading.clear()
        line = json.dumps({"jsonrpc": "2.0", "method": "n", "params": {"pad": "x" * 1000}})
        count = 3000  # 3 MB: more than the relay's outbox, the socket and the pipe hold
        half_fed = threading.Event()

        def feed():
            for i in range(count):
                run.stdin.feed(line.encode() + b"\n")
                if i == count // 3:
                    half_fed.set()

        feeder = threading.Thread(target=feed, daemon=True)
        feeder.start()
        assert half_fed.wait(WAIT)
        channel.push_rpc({"jsonrpc": "2.0", "method": "notifications/progress"})
        assert run.stdout.wait_lines(1) == [{"jsonrpc": "2.0", "method": "notifications/progress"}]
        assert feeder.is_alive()  # held back: the app does not read
        channel.reading.set()
        feeder.join(WAIT)
        assert not feeder.is_alive()
        run.stdin.eof()
        assert run.result() == EXIT_OK
        channel.close()  # the app reads to the end
        assert len(received) == count and set(received) == {line.encode()}
    finally:
        run.cleanup()
