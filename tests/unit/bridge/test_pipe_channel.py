"""The Windows pipe channel's logic, run here over a socket pair standing in for the pipe."""

import os
import socket
import threading
import time

import pytest

from idea.bridge.channel import PipeChannel, _prove
from idea.endpoint import loopback

KEY = os.urandom(32)


@pytest.fixture
def pair():
    app, bridge = socket.socketpair()
    channel = PipeChannel(bridge.makefile("rwb", buffering=0))
    yield app, channel
    channel.close()
    bridge.close()
    app.close()


def app_frames(app):
    decoder = loopback.FrameDecoder()
    while True:
        data = app.recv(65536)
        if not data:
            return
        yield from decoder.feed(data)


def test_frames_both_ways_and_mutual_proof(pair):
    app, channel = pair
    nonce_app = os.urandom(32)

    def app_side():
        app.sendall(loopback.encode_frame(nonce_app))
        frames = app_frames(app)
        nonce_bridge, digest, agent = loopback.read_bridge_proof(next(frames))
        assert agent == "agent-a"
        assert loopback.proofs_match(
            loopback.bridge_digest(KEY, nonce_app, nonce_bridge, agent), digest
        )
        app.sendall(loopback.encode_frame(loopback.app_proof(KEY, nonce_app, nonce_bridge)))
        assert next(frames) == b"ping"
        app.sendall(loopback.encode_frame(b"pong"))

    thread = threading.Thread(target=app_side)
    thread.start()
    _prove(channel, KEY, "agent-a", deadline=time.monotonic() + 5)
    channel.send(b"ping")
    assert channel.recv(timeout=5) == b"pong"
    thread.join(5)


def test_timeout_eof_and_close(pair):
    app, channel = pair
    with pytest.raises(TimeoutError):
        channel.recv(timeout=0.05)
    app.shutdown(socket.SHUT_WR)
    with pytest.raises(EOFError):
        channel.recv(timeout=5)
    with pytest.raises(EOFError):
        channel.recv(timeout=5)


def test_close_wakes_a_waiting_recv(pair):
    _, channel = pair
    errors = []

    def wait():
        try:
            channel.recv()
        except EOFError as exc:
            errors.append(exc)

    thread = threading.Thread(target=wait)
    thread.start()
    channel.close()
    thread.join(5)
    assert not thread.is_alive()
    assert errors
