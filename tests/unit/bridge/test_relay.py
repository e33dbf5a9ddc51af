"""``relay`` with in-memory stdio and a fake channel: no process, no socket."""

import io
import json
import queue
import threading

import pytest

from idea.bridge.relay import EXIT_APP_GONE, EXIT_OK, EXIT_REJECTED, relay
from idea.protocol import jsonrpc, loopback

WAIT = 5.0
EOF_MARK = object()


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


class FakeChannel:
    """The app side in memory: ``sent`` gets what the bridge sends; ``app`` reacts to it."""

    def __init__(self, greeting=None, app=None):
        self.sent = queue.Queue()
        self.closed = threading.Event()
        self._inbox = queue.Queue()
        self._app = app or (lambda channel, message: None)
        self._greeting = loopback.welcome() if greeting is None else greeting

    def push(self, payload):
        self._inbox.put(payload)

    def push_rpc(self, message):
        self.push(loopback.rpc(json.dumps(message).encode()))

    def app_closes(self):
        self._inbox.put(EOF_MARK)

    def send(self, payload):
        if self.closed.is_set():
            raise OSError("closed")
        message = loopback.unpack(payload)
        self.sent.put(message)
        if message["t"] == "hello":
            if self._greeting != b"silent":
                self.push(self._greeting)
        else:
            self._app(self, message)

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


def echo_app(channel, message):
    request = json.loads(message["data"])
    if "id" in request and request.get("method") != "hold":
        channel.push_rpc(jsonrpc.result(request["id"], {"echo": request["method"]}))


class Run:
    """``relay`` on a thread (it blocks like a process main), bounded join."""

    def __init__(self, channel, stdin=None, stdout=None, **kwargs):
        self.stdin = stdin or FakeStdin()
        self.stdout = stdout or FakeStdout()
        self.stderr = io.StringIO()
        self.channel = channel
        self.code = None
        kwargs.setdefault("project", "proj")
        kwargs.setdefault("requester", "agent-a")
        kwargs.setdefault("pid", 4242)
        self._thread = threading.Thread(target=self._main, args=(kwargs,), daemon=True)
        self._thread.start()

    def _main(self, kwargs):
        self.code = relay(self.stdin, self.stdout, self.channel, self.stderr, **kwargs)

    def result(self):
        self._thread.join(WAIT)
        assert not self._thread.is_alive(), "relay did not return"
        return self.code

    def stderr_lines(self):
        return self.stderr.getvalue().splitlines()


@pytest.fixture
def runs():
    started = []

    def start(*args, **kwargs):
        run = Run(*args, **kwargs)
        started.append(run)
        return run

    yield start
    for run in started:  # never leave a relay thread behind
        run.stdin.eof()
        run.channel.close()
        run.result()


def test_hello_then_request_answer_then_stdin_eof(runs):
    channel = FakeChannel(app=echo_app)
    run = runs(channel)
    hello = channel.sent.get(timeout=WAIT)
    assert hello == {"t": "hello", "v": 1, "project": "proj", "requester": "agent-a", "pid": 4242}
    run.stdin.feed_json({"jsonrpc": "2.0", "id": 1, "method": "initialize"})
    assert run.stdout.wait_lines(1) == [jsonrpc.result(1, {"echo": "initialize"})]
    run.stdin.eof()
    assert run.result() == EXIT_OK
    assert channel.closed.is_set()
    assert run.stderr.getvalue() == ""


def test_reject_is_one_stderr_line_with_code_and_message_exit_2(runs):
    channel = FakeChannel(greeting=loopback.reject("UNKNOWN_AGENT", "no agent 'x'"))
    run = runs(channel)
    assert run.result() == EXIT_REJECTED
    assert run.stderr_lines() == [
        "idea mcp-server: rejected by the IdeA app: UNKNOWN_AGENT: no agent 'x'"
    ]
    assert run.stdout.data == b""


def test_no_welcome_in_time_exits_1(runs):
    run = runs(FakeChannel(greeting=b"silent"), welcome_timeout=0.05)
    assert run.result() == EXIT_APP_GONE
    assert "did not answer the hello" in run.stderr.getvalue()


def test_a_message_other_than_welcome_exits_1(runs):
    run = runs(FakeChannel(greeting=loopback.rpc(b"{}")))
    assert run.result() == EXIT_APP_GONE
    assert "instead of a welcome" in run.stderr.getvalue()


def test_lines_are_forwarded_without_line_ends_blank_ones_skipped(runs):
    channel = FakeChannel()
    run = runs(channel)
    run.stdin.feed(b"\r\n")
    run.stdin.feed(b"   \n")
    run.stdin.feed(b'{"jsonrpc":"2.0","id":1,"method":"a"}\r\n')
    run.stdin.feed(b"not json at all\n")
    run.stdin.feed(b'{"jsonrpc":"2.0","method":"last"}')  # no final newline before EOF
    assert channel.next_sent_rpc() == b'{"jsonrpc":"2.0","id":1,"method":"a"}'
    assert channel.next_sent_rpc() == b"not json at all"
    assert channel.next_sent_rpc() == b'{"jsonrpc":"2.0","method":"last"}'
    run.stdin.eof()
    assert run.result() == EXIT_OK


def test_a_multi_line_message_from_the_app_is_written_as_one_line(runs):
    channel = FakeChannel()
    run = runs(channel)
    channel.push(loopback.rpc(b'{\n  "jsonrpc": "2.0",\r\n  "method": "x"\n}\n'))
    channel.push(loopback.rpc('{"jsonrpc":"2.0","method":"é"}'.encode()))
    assert run.stdout.wait_lines(2) == [
        {"jsonrpc": "2.0", "method": "x"},
        {"jsonrpc": "2.0", "method": "é"},
    ]
    assert bytes(run.stdout.data).count(b"\n") == 2


def test_unknown_message_types_from_the_app_are_not_written(runs):
    channel = FakeChannel()
    run = runs(channel)
    channel.push(loopback.pack({"t": "future-thing", "x": 1}))
    channel.push_rpc({"jsonrpc": "2.0", "method": "after"})
    assert run.stdout.wait_lines(1) == [{"jsonrpc": "2.0", "method": "after"}]


def test_notifications_are_written_while_a_request_is_pending(runs):
    def app(channel, message):
        request = json.loads(message["data"])
        if request.get("method") == "slow":
            channel.push_rpc({"jsonrpc": "2.0", "method": "notifications/progress"})
        elif request.get("method") == "go":
            channel.push_rpc(jsonrpc.result("s", "done"))

    channel = FakeChannel(app=app)
    run = runs(channel)
    run.stdin.feed_json({"jsonrpc": "2.0", "id": "s", "method": "slow"})
    assert run.stdout.wait_lines(1)[0]["method"] == "notifications/progress"
    run.stdin.feed_json({"jsonrpc": "2.0", "method": "go"})
    assert run.stdout.wait_lines(2)[1] == jsonrpc.result("s", "done")


def test_app_gone_answers_every_pending_request_and_exits_1(runs):
    def app(channel, message):
        request = json.loads(message["data"])
        if isinstance(request, list):
            return
        if request.get("method") == "answered":
            channel.push_rpc(jsonrpc.result(request["id"], None))
        elif request.get("method") == "die":
            channel.app_closes()

    channel = FakeChannel(app=app)
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


def test_app_gone_with_nothing_pending_still_exits_1(runs):
    channel = FakeChannel()
    run = runs(channel)
    channel.sent.get(timeout=WAIT)  # the hello: the relay is past the greeting
    channel.app_closes()
    assert run.result() == EXIT_APP_GONE
    assert run.stdout.data == b""
    assert len(run.stderr_lines()) == 1


def test_garbage_from_the_app_fails_pending_requests(runs):
    def app(channel, message):
        channel.push(b"\xc1 not msgpack")

    channel = FakeChannel(app=app)
    run = runs(channel)
    run.stdin.feed_json({"jsonrpc": "2.0", "id": 9, "method": "x"})
    assert run.result() == EXIT_APP_GONE
    assert run.stdout.lines()[0]["error"]["code"] == jsonrpc.CONNECTION_CLOSED
    assert "loopback protocol" in run.stderr.getvalue()


def test_partial_writes_still_give_whole_lines(runs):
    channel = FakeChannel()
    run = runs(channel, stdout=FakeStdout(max_chunk=3))
    channel.push_rpc({"jsonrpc": "2.0", "method": "a-fairly-long-method-name"})
    assert run.stdout.wait_lines(1) == [{"jsonrpc": "2.0", "method": "a-fairly-long-method-name"}]


def test_a_client_that_stopped_reading_ends_the_relay_quietly(runs):
    channel = FakeChannel()
    run = runs(channel, stdout=FakeStdout(broken=True))
    channel.push_rpc({"jsonrpc": "2.0", "method": "x"})
    assert run.result() == EXIT_OK
    assert channel.closed.is_set()
