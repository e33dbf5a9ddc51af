"""``connect`` against the fake app in this process: the proof both ways, bounded failures."""

import os
import socket
import threading
import time

import pytest

from idea.bridge.channel import AuthenticationFailed, EndpointUnavailable, connect
from idea.endpoint import loopback
from tests.fakes.loopback_app import FakeLoopbackApp

pytestmark = pytest.mark.skipif(os.name == "nt", reason="Unix-socket endpoints (POSIX)")

KEY = os.urandom(32)


@pytest.fixture
def app():
    with FakeLoopbackApp(KEY) as fake:
        yield fake


def test_connect_proves_both_ways_then_moves_frames(app):
    channel = connect(app.endpoint, KEY, "agent-a")
    try:
        channel.send(loopback.hello("p", "a", 1))
        assert loopback.unpack(channel.recv(timeout=5)) == {"t": "welcome", "v": loopback.VERSION}
        channel.send(loopback.rpc(b'{"jsonrpc":"2.0","id":1,"method":"ping"}'))
        reply = loopback.unpack(channel.recv(timeout=5))
        assert reply["t"] == "rpc" and b'"echo":"ping"' in reply["data"]
    finally:
        channel.close()
    assert app.hellos == [
        {"t": "hello", "v": loopback.VERSION, "project": "p", "requester": "a", "pid": 1}
    ]


def test_recv_with_a_timeout_raises_timeout_error(app):
    channel = connect(app.endpoint, KEY, "agent-a")
    try:
        with pytest.raises(TimeoutError):
            channel.recv(timeout=0.02)
    finally:
        channel.close()


def test_close_from_another_thread_ends_a_blocked_recv(app):
    channel = connect(app.endpoint, KEY, "agent-a")
    outcome = []
    waiting = threading.Thread(target=lambda: outcome.append(_recv_error(channel)))
    waiting.start()
    channel.close()
    waiting.join(5)
    assert not waiting.is_alive()
    assert outcome == [EOFError]
    channel.close()  # idempotent


def _recv_error(channel):
    try:
        channel.recv()
    except Exception as exc:
        return type(exc)
    return None


def test_wrong_key_is_an_authentication_failure(app):
    with pytest.raises(AuthenticationFailed, match="authentication failed"):
        connect(app.endpoint, b"not the key", "agent-a")
    assert app.auth_failures == 1


def test_an_app_without_the_key_is_an_authentication_failure():
    with FakeLoopbackApp(KEY, wrong_proof=True) as impostor, pytest.raises(AuthenticationFailed):
        connect(impostor.endpoint, KEY, "agent-a")


def test_missing_and_refused_endpoints(tmp_path):
    with pytest.raises(EndpointUnavailable, match="no IdeA endpoint"):
        connect(str(tmp_path / "absent.sock"), KEY, "agent-a")
    dead = str(tmp_path / "d.sock")
    if len(dead.encode()) > 100:
        pytest.skip("temp path too long for a Unix socket")
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(dead)
    with pytest.raises(EndpointUnavailable, match="refused"):
        connect(dead, KEY, "agent-a")


def test_an_endpoint_that_cannot_be_reached_says_why(tmp_path):
    # The OS gives no strerror for a socket path too long: the reason is the error's own text.
    endpoint = str(tmp_path / ("x" * 200))
    with pytest.raises(EndpointUnavailable, match="path too long"):
        connect(endpoint, KEY, "agent-a")


def test_a_silent_app_fails_within_the_timeout():
    with FakeLoopbackApp(KEY, silent=True) as silent:
        started = time.monotonic()
        with pytest.raises(AuthenticationFailed, match="timed out"):
            connect(silent.endpoint, KEY, "agent-a", timeout=0.2)
        assert time.monotonic() - started < 1.0
