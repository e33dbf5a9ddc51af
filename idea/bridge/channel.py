"""A blocking, authenticated channel from the bridge to the app's loopback endpoint (§9.3).

Invariant: ``connect`` returns only a channel whose peer proved it knows the project key (and
which accepted ours), and it returns or raises within its ``timeout``; a failure is always a
``ConnectError`` with a one-line reason, never a hang. Afterwards the channel moves whole frame
payloads: ``send(bytes)``, ``recv() -> bytes`` (``EOFError`` once the app is gone) and ``close()``,
which may be called from another thread and wakes a ``recv`` blocked in the main thread.

Every message, the proof steps included, is one frame of ``idea.endpoint.loopback``, over a Unix
socket (POSIX) or a named pipe opened for overlapped I/O (Windows, ``\\\\.\\pipe\\…``): with a
plain blocking handle the pump's pending read would hold up every write, the proof's included.
"""

from __future__ import annotations

import contextlib
import os
import queue
import socket
import sys
import threading
import time
from collections import deque
from typing import Protocol

from idea.endpoint import loopback

CONNECT_TIMEOUT = 1.5  # seconds for connect + proof; the caller adds the hello on top
_CHUNK = 256 * 1024


class ConnectError(Exception):
    """The app could not be reached or authenticated; ``str(exc)`` is one line for stderr."""


class EndpointUnavailable(ConnectError):
    """Nothing listens on the endpoint (missing, refused, timed out)."""


class AuthenticationFailed(ConnectError):
    """One side could not prove it knows the project key."""


class Channel(Protocol):
    def send(self, payload: bytes) -> None:
        """Send one frame; raises ``OSError`` (or ``EOFError``) once the app is gone."""

    def send_frame(self, frame: bytes) -> None:
        """Send one whole frame, header included (``loopback.rpc_frame``); as ``send``."""

    def recv(self, timeout: float | None = None) -> bytes:
        """Next frame payload; ``EOFError`` when the app closed, ``TimeoutError`` after
        ``timeout`` seconds (``None``: wait as long as it takes)."""

    def close(self) -> None:
        """Idempotent; safe from another thread, where it ends a pending ``recv``."""


def connect(endpoint: str, key: bytes, agent: str, timeout: float = CONNECT_TIMEOUT) -> Channel:
    """Connect to ``endpoint`` and authenticate both ways as ``agent`` with its ``key`` within
    ``timeout``."""
    if sys.platform == "win32":
        return _connect_pipe(endpoint, key, agent, timeout)
    return _connect_socket(endpoint, key, agent, timeout)


class SocketChannel:
    """Frames over a connected ``AF_UNIX`` stream socket."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._decoder = loopback.FrameDecoder()
        self._frames: deque[bytes] = deque()
        self._closed = False

    def send(self, payload: bytes) -> None:
        self._sock.sendall(loopback.encode_frame(payload))

    def send_frame(self, frame: bytes) -> None:
        self._sock.sendall(frame)

    def recv(self, timeout: float | None = None) -> bytes:
        if timeout is not None:
            deadline = time.monotonic() + timeout
        while not self._frames:
            if timeout is not None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError("no message from the IdeA app in time")
                self._sock.settimeout(remaining)
            try:
                data = self._sock.recv(_CHUNK)
            except TimeoutError:
                raise TimeoutError("no message from the IdeA app in time") from None
            except OSError as exc:  # reset, or closed under us by close()
                raise EOFError(str(exc)) from exc
            finally:
                if timeout is not None and not self._closed:
                    with contextlib.suppress(OSError):
                        self._sock.settimeout(None)
            if not data:
                raise EOFError("the IdeA app closed the connection")
            self._frames.extend(self._decoder.feed(data))
        return self._frames.popleft()

    # -- for one select loop (``relay_select``): the socket non-blocking, frames as they come --

    def fileno(self) -> int:
        return self._sock.fileno()

    def set_nonblocking(self) -> None:
        self._sock.setblocking(False)

    def buffered(self) -> list[bytes]:
        """Frames already received (with the handshake's reads) and not returned yet."""
        frames = list(self._frames)
        self._frames.clear()
        return frames

    def read_ready(self) -> list[bytes]:
        """The frames completed by what the socket holds now (maybe none); ``EOFError`` once
        the app closed, ``loopback.ProtocolError`` for a bad frame."""
        try:
            data = self._sock.recv(_CHUNK)
        except (BlockingIOError, InterruptedError):
            return []
        except OSError as exc:  # reset
            raise EOFError(str(exc)) from exc
        if not data:
            raise EOFError("the IdeA app closed the connection")
        return self._decoder.feed(data)

    def send_some(self, data: bytes | bytearray | memoryview) -> int:
        """Bytes of ``data`` the socket took now (0 when full); ``OSError`` once the app is gone."""
        try:
            return self._sock.send(data)
        except (BlockingIOError, InterruptedError):
            return 0

    def close(self) -> None:
        self._closed = True
        # shutdown() first: close() alone does not wake a recv() blocked in another thread.
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            self._sock.close()


def _connect_socket(endpoint: str, key: bytes, agent: str, timeout: float) -> SocketChannel:
    if sys.platform == "win32":  # Unix sockets: POSIX only (mypy --platform win32 knows it)
        raise EndpointUnavailable("no Unix sockets on Windows")
    deadline = time.monotonic() + timeout
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    channel = SocketChannel(sock)
    try:
        sock.settimeout(timeout)
        try:
            sock.connect(endpoint)
        except FileNotFoundError:
            raise _no_endpoint(endpoint) from None
        except ConnectionRefusedError:
            raise EndpointUnavailable(
                f"connection refused by {endpoint} (is the project open in IdeA?)"
            ) from None
        except TimeoutError:
            raise EndpointUnavailable(f"timed out connecting to {endpoint}") from None
        except OSError as exc:
            raise _cannot_connect(endpoint, exc) from None
        sock.settimeout(None)
        _prove(channel, key, agent, deadline)
    except BaseException:
        channel.close()
        raise
    return channel


def _no_endpoint(endpoint: str) -> EndpointUnavailable:
    return EndpointUnavailable(f"no IdeA endpoint at {endpoint} (is the project open in IdeA?)")


def _cannot_connect(endpoint: str, exc: OSError) -> EndpointUnavailable:
    """The OS's reason, or the error itself when it has none (``AF_UNIX path too long``)."""
    return EndpointUnavailable(f"cannot connect to {endpoint}: {exc.strerror or exc}")


def _prove(channel: Channel, key: bytes, agent: str, deadline: float) -> None:
    """The bridge's side of the mutual proof of ``idea.endpoint.loopback``."""

    def receive(step: str) -> bytes:
        try:
            return channel.recv(timeout=deadline - time.monotonic())
        except TimeoutError:
            raise AuthenticationFailed(
                f"authentication timed out waiting for the app's {step}"
            ) from None
        except EOFError:
            raise AuthenticationFailed(
                "authentication failed: the IdeA app refused the key in --key-file"
            ) from None
        except loopback.ProtocolError as exc:
            raise AuthenticationFailed(f"authentication failed: {exc}") from None

    nonce_app = receive("challenge")
    if len(nonce_app) != loopback.NONCE_BYTES:
        raise AuthenticationFailed("authentication failed: malformed challenge from the endpoint")
    nonce_bridge = os.urandom(loopback.NONCE_BYTES)
    try:
        channel.send(loopback.bridge_proof(key, nonce_app, nonce_bridge, agent))
    except OSError:
        raise AuthenticationFailed(
            "authentication failed: the IdeA app closed the connection"
        ) from None
    answer = receive("proof")
    if not loopback.proofs_match(loopback.app_proof(key, nonce_app, nonce_bridge), answer):
        raise AuthenticationFailed(
            "authentication failed: the endpoint does not know the project key"
        )


class _Pipe(Protocol):
    """A connected byte stream: ``idea.endpoint.overlapped_pipe.OverlappedPipe`` on Windows."""

    def read(self, size: int, /) -> bytes | None: ...
    def write(self, data: memoryview, /) -> int | None: ...
    def close(self) -> None: ...


class PipeChannel:
    """Frames over a Windows named pipe (the app's pipe server restricts it to the current
    user). A reader thread feeds a queue, so waits are bounded and ``close()`` wakes a waiting
    ``recv()`` whatever the platform's blocking-read semantics."""

    def __init__(self, pipe: _Pipe) -> None:
        self._pipe = pipe
        self._frames: queue.Queue[bytes | None] = queue.Queue()
        self._lock = threading.Lock()
        self._closed = False
        threading.Thread(target=self._pump, name="idea-bridge-pipe", daemon=True).start()

    def _pump(self) -> None:
        decoder = loopback.FrameDecoder()
        try:
            while chunk := self._pipe.read(_CHUNK):
                for frame in decoder.feed(chunk):
                    self._frames.put(frame)
        except (OSError, ValueError, loopback.ProtocolError):
            pass
        self._frames.put(None)

    def send(self, payload: bytes) -> None:
        self.send_frame(loopback.encode_frame(payload))

    def send_frame(self, frame: bytes) -> None:
        data = memoryview(frame)
        with self._lock:
            while data:
                written = self._pipe.write(data)
                data = data[written or 0 :]

    def recv(self, timeout: float | None = None) -> bytes:
        try:
            frame = self._frames.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError("no message from the IdeA app in time") from None
        if frame is None:
            self._frames.put(None)  # every later recv sees the end too
            raise EOFError("the IdeA app closed the connection")
        return frame

    def close(self) -> None:
        self._closed = True
        self._frames.put(None)
        with contextlib.suppress(OSError, ValueError):
            self._pipe.close()


_PIPE_BUSY_RETRY_S = 0.01


def _open_pipe(endpoint: str, deadline: float) -> _Pipe:
    if sys.platform != "win32":  # named pipes: Windows only (mypy --platform win32 checks it)
        raise EndpointUnavailable("named pipes are Windows only")
    else:
        from idea.endpoint.overlapped_pipe import open_client  # noqa: PLC0415

        while True:
            try:
                return open_client(endpoint)
            except FileNotFoundError:
                raise _no_endpoint(endpoint) from None
            except BlockingIOError as exc:  # every instance busy: another bridge is accepted
                if time.monotonic() >= deadline:
                    raise _cannot_connect(endpoint, exc) from None
                time.sleep(_PIPE_BUSY_RETRY_S)
            except OSError as exc:
                raise _cannot_connect(endpoint, exc) from None


def _connect_pipe(endpoint: str, key: bytes, agent: str, timeout: float) -> PipeChannel:
    deadline = time.monotonic() + timeout
    pipe = _open_pipe(endpoint, deadline)
    channel = PipeChannel(pipe)
    try:
        _prove(channel, key, agent, deadline)
    except BaseException:
        channel.close()
        raise
    return channel
