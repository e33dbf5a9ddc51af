"""The real ``idea mcp-server`` process against a fake app: what an agent's CLI sees on stdio.

Every bridge spawned here is killed and reaped at the end of its test, and its stdout is checked
to hold nothing but JSON-RPC lines, whatever happened.
"""

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from idea.endpoint import jsonrpc
from tests.fakes.loopback_app import REJECT_CODE, FakeLoopbackApp
from tests.processes import LineWatcher

pytestmark = pytest.mark.skipif(os.name == "nt", reason="Unix-socket endpoints (POSIX)")

IDEA = [sys.executable, "-m", "idea", "mcp-server"]
KEY = bytes(range(32))
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}


class Bridge:
    """The bridge as a child process: JSON lines in, JSON lines out, stderr kept aside."""

    def __init__(self, args, env=None):
        self.spawned_at = time.monotonic()
        self.proc = subprocess.Popen(
            [*IDEA, *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        self._stdout = LineWatcher(self.proc.stdout)
        self._stderr = LineWatcher(self.proc.stderr)

    @property
    def raw_stdout(self) -> list[bytes]:
        return self._stdout.lines

    def send(self, message):
        data = message if isinstance(message, bytes) else json.dumps(message).encode() + b"\n"
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def next_message(self, timeout=5.0):
        line = self._stdout.next_line(timeout)
        assert line is not None, f"stdout closed; stderr: {self.stderr()!r}"
        return json.loads(line)

    def close_stdin(self):
        self.proc.stdin.close()

    def wait(self, timeout):
        return self.proc.wait(timeout=timeout)

    def stderr(self):
        """Everything the bridge wrote to stderr (call once it has exited)."""
        self._stderr.join(5)
        return b"".join(self._stderr.lines).decode("utf-8", "replace")

    def cleanup(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)
        for reader in (self._stdout, self._stderr):
            reader.join(5)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            with contextlib.suppress(OSError):
                stream.close()

    def assert_stdout_is_only_jsonrpc(self):
        for line in self.raw_stdout:
            assert line.endswith(b"\n") and not line.endswith(b"\r\n"), line
            message = json.loads(line)
            assert isinstance(message, dict), line
            assert message.get("jsonrpc") == "2.0", line


@pytest.fixture
def key_file(tmp_path):
    path = tmp_path / "mcp.key"
    path.write_bytes(KEY)
    path.chmod(0o600)
    return path


@pytest.fixture
def app():
    with FakeLoopbackApp(KEY, requesters={"agent-a"}) as fake:
        yield fake


@pytest.fixture
def spawn():
    bridges = []

    def start(*args, env=None):
        bridge = Bridge(args, env=env)
        bridges.append(bridge)
        return bridge

    yield start
    for bridge in bridges:
        bridge.cleanup()
    for bridge in bridges:
        bridge.assert_stdout_is_only_jsonrpc()


def options(endpoint, key_file, requester="agent-a"):
    return [
        "--endpoint",
        str(endpoint),
        "--project",
        "proj-1",
        "--requester",
        requester,
        "--key-file",
        str(key_file),
    ]


def connected(spawn, app, key_file, **kwargs):
    bridge = spawn(*options(app.endpoint, key_file), **kwargs)
    bridge.send(INITIALIZE)
    answer = bridge.next_message()
    assert answer["id"] == 1 and answer["result"]["serverInfo"]["version"]
    return bridge


def test_a_request_gets_its_answer_as_one_line(spawn, app, key_file):
    bridge = connected(spawn, app, key_file)
    assert app.hellos[0]["project"] == "proj-1"
    assert app.hellos[0]["requester"] == "agent-a"
    assert app.hellos[0]["pid"] == bridge.proc.pid
    bridge.send({"jsonrpc": "2.0", "id": "s-1", "method": "ping"})
    answer = bridge.next_message()
    assert answer == {"jsonrpc": "2.0", "id": "s-1", "result": {"echo": "ping", "params": {}}}
    assert len(bridge.raw_stdout) == 2


def test_crlf_blank_lines_and_non_json_lines(spawn, app, key_file):
    bridge = connected(spawn, app, key_file)
    bridge.send(b'\r\n\n{"jsonrpc":"2.0","id":7,"method":"tools/list"}\r\n')
    assert bridge.next_message()["id"] == 7
    bridge.send(b"this is not json\n")
    error = bridge.next_message()
    assert error["error"]["code"] == jsonrpc.PARSE_ERROR


def test_option_equals_form(spawn, app, key_file):
    bridge = spawn(
        f"--endpoint={app.endpoint}",
        "--project=proj-1",
        "--requester=agent-a",
        f"--key-file={key_file}",
    )
    bridge.send(INITIALIZE)
    assert bridge.next_message()["id"] == 1


def test_notifications_flow_while_a_request_is_pending(spawn, app, key_file):
    bridge = connected(spawn, app, key_file)
    slow = {"jsonrpc": "2.0", "id": 2, "method": "slow", "params": {"_meta": {"progressToken": 9}}}
    bridge.send(slow)
    progress = bridge.next_message()
    assert progress["method"] == "notifications/progress"
    assert progress["params"]["progressToken"] == 9
    # Still pending: another request goes through and is answered first.
    bridge.send({"jsonrpc": "2.0", "id": 3, "method": "ping"})
    assert bridge.next_message()["id"] == 3
    app.release.set()
    assert bridge.next_message() == {
        "jsonrpc": "2.0",
        "id": 2,
        "result": {"echo": "slow", "params": {}},
    }


def test_stdin_eof_exits_0_promptly_even_with_a_request_pending(spawn, app, key_file):
    # The bridge waits (bounded by relay.DRAIN_S) for answers in flight, then exits anyway.
    bridge = connected(spawn, app, key_file)
    bridge.send({"jsonrpc": "2.0", "id": 5, "method": "hold"})
    assert app.next_received(timeout=5)["method"] == "initialize"
    assert app.next_received(timeout=5)["id"] == 5
    closed_at = time.monotonic()
    bridge.close_stdin()
    assert bridge.wait(timeout=5) == 0
    assert time.monotonic() - closed_at < 1.0
    assert bridge.stderr() == ""


def assert_fails_fast_with_one_line(bridge, needle):
    code = bridge.wait(timeout=5)
    elapsed = time.monotonic() - bridge.spawned_at
    stderr = bridge.stderr()
    assert code != 0
    assert elapsed < 2.0, f"took {elapsed:.2f}s"
    assert len(stderr.strip().splitlines()) == 1, stderr
    assert needle in stderr.lower(), stderr
    assert bridge.raw_stdout == []
    return code


def test_missing_endpoint_fails_fast(spawn, tmp_path, key_file):
    bridge = spawn(*options(tmp_path / "nothing.sock", key_file))
    assert_fails_fast_with_one_line(bridge, "no idea endpoint")


def test_refused_endpoint_fails_fast(spawn, app, key_file):
    dead = os.path.join(app.folder, "dead.sock")
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(dead)  # a socket file nobody listens on
    bridge = spawn(*options(dead, key_file))
    assert_fails_fast_with_one_line(bridge, "refused")


def test_wrong_key_fails_fast_saying_authentication(spawn, app, tmp_path):
    wrong = tmp_path / "wrong.key"
    wrong.write_bytes(b"x" * 32)
    bridge = spawn(*options(app.endpoint, wrong))
    assert_fails_fast_with_one_line(bridge, "authentication")
    assert app.auth_failures == 1
    assert app.hellos == []


def test_an_app_that_cannot_prove_the_key_is_refused(spawn, key_file):
    with FakeLoopbackApp(KEY, wrong_proof=True) as impostor:
        bridge = spawn(*options(impostor.endpoint, key_file))
        assert_fails_fast_with_one_line(bridge, "authentication")
        assert impostor.hellos == []


def test_a_silent_endpoint_times_out_within_2s(spawn, key_file):
    with FakeLoopbackApp(KEY, silent=True) as silent:
        bridge = spawn(*options(silent.endpoint, key_file))
        assert_fails_fast_with_one_line(bridge, "timed out")


def test_reject_exits_2_with_the_code(spawn, app, key_file):
    bridge = spawn(*options(app.endpoint, key_file, requester="stranger"))
    assert assert_fails_fast_with_one_line(bridge, REJECT_CODE.lower()) == 2
    assert "stranger" in bridge.stderr()


def test_app_closing_mid_request_fails_the_pending_requests(spawn, app, key_file):
    bridge = connected(spawn, app, key_file)
    bridge.send({"jsonrpc": "2.0", "id": "held", "method": "hold"})
    bridge.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    bridge.send({"jsonrpc": "2.0", "id": 4, "method": "die"})
    errors = {}
    for _ in range(2):
        message = bridge.next_message()
        assert message["error"]["code"] == jsonrpc.CONNECTION_CLOSED
        assert "IdeA app closed the connection" in message["error"]["message"]
        errors[message["id"]] = message
    assert set(errors) == {"held", 4}
    assert bridge.wait(timeout=5) == 1
    stderr = bridge.stderr()
    assert len(stderr.strip().splitlines()) == 1, stderr
    assert "closed the connection" in stderr


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_signal_ends_a_relaying_bridge_within_1s(spawn, app, key_file, signum):
    bridge = connected(spawn, app, key_file)
    bridge.send({"jsonrpc": "2.0", "id": 2, "method": "hold"})
    app.next_received(timeout=5)
    app.next_received(timeout=5)  # the held request reached the app: the bridge is waiting
    signalled_at = time.monotonic()
    bridge.proc.send_signal(signum)
    bridge.wait(timeout=5)
    assert time.monotonic() - signalled_at < 1.0
    assert "Traceback" not in bridge.stderr()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_signal_ends_a_bridge_waiting_for_the_app_within_1s(spawn, tmp_path, signum):
    key_file = tmp_path / "k"
    key_file.write_bytes(KEY)
    with FakeLoopbackApp(KEY, silent=True) as silent:
        # Wait until the bridge is blocked in the handshake: its connection was accepted.
        bridge = spawn(*options(silent.endpoint, key_file))
        assert silent.accepted.wait(5), "the bridge never connected"
        signalled_at = time.monotonic()
        bridge.proc.send_signal(signum)
        bridge.wait(timeout=5)
        assert time.monotonic() - signalled_at < 1.0
        assert "Traceback" not in bridge.stderr()


@pytest.mark.parametrize("missing", ["--endpoint", "--project", "--requester", "--key-file"])
def test_a_missing_option_exits_2_naming_it(spawn, app, key_file, missing):
    args = options(app.endpoint, key_file)
    at = args.index(missing)
    del args[at : at + 2]
    bridge = spawn(*args)
    assert bridge.wait(timeout=5) == 2
    stderr = bridge.stderr()
    assert len(stderr.strip().splitlines()) == 1, stderr
    assert missing in stderr


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--endpoint", "e", "--project", "p", "--requester", "a", "--bogus", "x"], "--bogus"),
        (["--endpoint", "e", "--project", "p", "--requester", "a", "--key-file"], "--key-file"),
        (["--endpoint=", "--project", "p", "--requester", "a", "--key-file", "k"], "--endpoint"),
        (["--endpoint", "e", "--project", "p", "--requester", "a", "--key-file", "/no/key"], "key"),
    ],
)
def test_bad_arguments_exit_2_naming_the_problem(spawn, args, needle):
    bridge = spawn(*args)
    assert bridge.wait(timeout=5) == 2
    stderr = bridge.stderr()
    assert len(stderr.strip().splitlines()) == 1, stderr
    assert needle in stderr


def startup_modules(tmp_path):
    """What the interpreter loads before any of our code runs (site, .pth finders)."""
    out = subprocess.run(
        [sys.executable, "-c", "import sys; print('\\n'.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    return set(out.stdout.split())


def test_the_bridge_loads_only_stdlib_msgpack_and_its_own_packages(spawn, app, key_file, tmp_path):
    dump = tmp_path / "modules.txt"
    env = {**os.environ, "IDEA_BRIDGE_DUMP_MODULES": str(dump)}
    bridge = connected(spawn, app, key_file, env=env)
    bridge.close_stdin()
    assert bridge.wait(timeout=5) == 0
    loaded = set(dump.read_text(encoding="utf-8").split())
    assert {"idea.bridge.relay", "idea.endpoint.loopback", "msgpack"} <= loaded
    ours = {"idea", "idea.__main__", "idea.cli"}
    # msgpack's compiled extension registers its Cython runtime as modules.
    allowed_prefixes = ("idea.bridge", "idea.endpoint", "msgpack", "_cython_", "cython_runtime")
    extra = sorted(
        name
        for name in loaded - startup_modules(tmp_path)
        if name.split(".")[0] not in sys.stdlib_module_names
        and name not in ours
        and not name.startswith(allowed_prefixes)
    )
    assert extra == []
    forbidden = ("asyncio", "idea.domain", "idea.application", "idea.infrastructure", "idea.app")
    assert [n for n in loaded if n.split(".")[0] == "asyncio" or n.startswith(forbidden)] == []
    assert "argparse" not in loaded
