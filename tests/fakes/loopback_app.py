"""A stand-in for the IdeA app's MCP listener: the app side of the loopback protocol (§9.3).

Stdlib + msgpack + ``idea.endpoint``, threads only. It listens on a Unix socket in a fresh
temp folder, proves itself (or not), answers ``hello`` with ``welcome`` (or ``reject``), then
answers each JSON-RPC request the bridge relays, by method:

- ``initialize`` → a valid initialize result at once; ``ping`` and anything else → a result
  ``{"echo": method, "params": params}``;
- ``slow`` → a ``notifications/progress`` first, the answer only once ``release`` is set;
- ``hold`` → never answered; ``die`` → the connection is closed at once;
- a line that is not JSON → a -32700 parse error (id null); notifications → nothing.

Options: ``requesters`` (others are rejected with ``reject_code``), ``wrong_proof`` (the app's
proof is garbage), ``silent`` (accepts, then never says a word). ``received`` holds every
message the bridge relayed, ``hellos`` every hello, ``auth_failures`` counts bad bridge proofs,
``accepted`` is set once a bridge connected.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shutil
import socket
import tempfile
import threading
from typing import Any

from idea.endpoint import jsonrpc, loopback

REJECT_CODE = "UNKNOWN_AGENT"
WAIT_LIMIT = 10.0  # no thread of the fake waits longer than this


class _Connection:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self._decoder = loopback.FrameDecoder()
        self._frames: list[bytes] = []
        self._send_lock = threading.Lock()

    def recv(self) -> bytes | None:
        while not self._frames:
            try:
                data = self.sock.recv(65536)
            except OSError:
                return None
            if not data:
                return None
            self._frames.extend(self._decoder.feed(data))
        return self._frames.pop(0)

    def send(self, payload: bytes) -> None:
        with self._send_lock, contextlib.suppress(OSError):
            self.sock.sendall(loopback.encode_frame(payload))

    def send_rpc(self, message: dict[str, Any]) -> None:
        self.send(loopback.rpc(jsonrpc.line(message).rstrip(b"\n")))

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            self.sock.close()


class FakeLoopbackApp:
    def __init__(
        self,
        key: bytes,
        *,
        requesters: set[str] | None = None,
        reject_code: str = REJECT_CODE,
        wrong_proof: bool = False,
        silent: bool = False,
    ) -> None:
        self.key = key
        self.requesters = requesters
        self.reject_code = reject_code
        self.wrong_proof = wrong_proof
        self.silent = silent
        self.folder = tempfile.mkdtemp(prefix="idea-fake-app-")
        self.endpoint = os.path.join(self.folder, "app.sock")
        self.hellos: list[dict[str, Any]] = []
        self.received: queue.Queue[Any] = queue.Queue()
        self.release = threading.Event()
        self.auth_failures = 0
        self.proved_agent: str | None = None
        self.accepted = threading.Event()  # set once a connection was accepted
        self._stopping = threading.Event()
        self._listener: socket.socket | None = None
        self._threads: list[threading.Thread] = []
        self._connections: list[_Connection] = []
        self._lock = threading.Lock()

    def __enter__(self) -> FakeLoopbackApp:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(self.endpoint)
        listener.listen(16)
        self._listener = listener
        self._spawn(self._accept_loop, listener)

    def stop(self) -> None:
        self._stopping.set()
        self.release.set()
        if self._listener is not None:
            # Wake the accept() with a connection of our own: portable, unlike close().
            with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX) as waker:
                waker.connect(self.endpoint)
        with self._lock:
            connections = list(self._connections)
        for connection in connections:
            connection.close()
        for thread in list(self._threads):
            thread.join(WAIT_LIMIT)
        if self._listener is not None:
            self._listener.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def next_received(self, timeout: float = 5.0) -> Any:
        return self.received.get(timeout=timeout)

    def _spawn(self, target: Any, *args: Any) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)
        with self._lock:
            self._threads.append(thread)
        thread.start()

    def _accept_loop(self, listener: socket.socket) -> None:
        while True:
            sock, _ = listener.accept()
            if self._stopping.is_set():
                sock.close()
                return
            connection = _Connection(sock)
            with self._lock:
                self._connections.append(connection)
            self.accepted.set()
            self._spawn(self._serve, connection)

    def _serve(self, connection: _Connection) -> None:
        try:
            if self.silent:
                self._stopping.wait(WAIT_LIMIT)
                return
            if not self._authenticate(connection):
                return
            hello = connection.recv()
            if hello is None:
                return
            message = loopback.unpack(hello)
            self.hellos.append(message)
            if self.requesters is not None and message.get("requester") not in self.requesters:
                connection.send(
                    loopback.reject(self.reject_code, f"no agent {message.get('requester')!r}")
                )
                return
            connection.send(loopback.welcome())
            while (frame := connection.recv()) is not None:
                data = loopback.unpack(frame)["data"]
                if not self._answer(connection, data):
                    return
        finally:
            connection.close()

    def _authenticate(self, connection: _Connection) -> bool:
        nonce_app = os.urandom(loopback.NONCE_BYTES)
        connection.send(nonce_app)
        reply = connection.recv()
        if reply is None:
            return False
        try:
            nonce_bridge, proof, agent = loopback.read_bridge_proof(reply)
        except loopback.ProtocolError:
            return False
        self.proved_agent = agent
        expected = loopback.bridge_digest(self.key, nonce_app, nonce_bridge, agent)
        if not loopback.proofs_match(expected, proof):
            self.auth_failures += 1
            return False  # the real app closes the connection without a word
        answer = loopback.app_proof(self.key, nonce_app, nonce_bridge)
        connection.send(os.urandom(len(answer)) if self.wrong_proof else answer)
        return True

    def _answer(self, connection: _Connection, data: bytes) -> bool:
        """Answer one relayed line; False to end the connection."""
        try:
            message = json.loads(data)
        except ValueError:
            self.received.put(data)
            connection.send_rpc(jsonrpc.error(None, jsonrpc.PARSE_ERROR, "Parse error"))
            return True
        self.received.put(message)
        if not isinstance(message, dict) or "id" not in message or "method" not in message:
            return True  # a notification (or a response): nothing to say
        request_id, method = message["id"], message["method"]
        params = message.get("params") or {}
        if method == "initialize":
            version = params.get("protocolVersion", "2025-06-18")
            result = {
                "protocolVersion": version,
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "fake-idea", "version": "0.0.0"},
            }
            connection.send_rpc(jsonrpc.result(request_id, result))
        elif method == "slow":
            token = params.get("_meta", {}).get("progressToken", "p")
            progress = {"progressToken": token, "progress": 0, "message": "queued"}
            connection.send_rpc(
                {"jsonrpc": "2.0", "method": "notifications/progress", "params": progress}
            )
            self._spawn(self._answer_when_released, connection, request_id, method)
        elif method == "die":
            return False
        elif method != "hold":
            connection.send_rpc(jsonrpc.result(request_id, {"echo": method, "params": params}))
        return True

    def _answer_when_released(self, connection: _Connection, request_id: Any, method: str) -> None:
        if self.release.wait(WAIT_LIMIT) and not self._stopping.is_set():
            connection.send_rpc(jsonrpc.result(request_id, {"echo": method, "params": {}}))
