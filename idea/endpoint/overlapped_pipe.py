"""Overlapped I/O on one Windows named-pipe handle, shared by the bridge and the app's pipe server.

Invariant: a read pending in one thread never holds up a write from another (Windows serialises
synchronous I/O on one handle, so a blocking read would keep the handshake's reply from ever
leaving), and ``close()`` from any thread ends a pending read or write at once. Every failure of
the pipe (the peer gone, the handle closed) reads as the end of the stream: ``read`` returns
``b""``, ``write`` raises ``BrokenPipeError``. Imported only on Windows.
"""

from __future__ import annotations

import _winapi
import contextlib
import ctypes
import sys
import threading
from ctypes import wintypes

assert sys.platform == "win32"

_kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
_kernel32.CreateEventW.restype = wintypes.HANDLE
_kernel32.CreateEventW.argtypes = [wintypes.LPVOID, wintypes.BOOL, wintypes.BOOL, wintypes.LPCWSTR]
_kernel32.SetEvent.argtypes = [wintypes.HANDLE]


def new_event() -> int:
    """A manual-reset event, not set."""
    handle = _kernel32.CreateEventW(None, True, False, None)
    if not handle:
        raise ctypes.WinError(ctypes.get_last_error())
    return int(handle)


def set_event(handle: int) -> None:
    _kernel32.SetEvent(handle)


ERROR_BROKEN_PIPE = 109
ERROR_PIPE_BUSY = 231
ERROR_PIPE_CONNECTED = 535
ERROR_IO_PENDING = 997
GENERIC_READ = 0x80000000
GENERIC_WRITE = 0x40000000
FILE_FLAG_OVERLAPPED = 0x40000000
OPEN_EXISTING = 3


class OverlappedPipe:
    """One connected pipe handle (opened with ``FILE_FLAG_OVERLAPPED``), owned from here on."""

    def __init__(self, handle: int) -> None:
        self.handle = handle
        self._closed = new_event()
        self._lock = threading.Lock()
        self._busy = 0  # operations in flight: the handle is closed by the last one out
        self._closing = False

    def read(self, size: int) -> bytes:
        """Up to ``size`` bytes as they come; ``b""`` once the peer or ``close()`` ended it."""
        try:
            with self._operation():
                ov, _ = _winapi.ReadFile(self.handle, size, overlapped=True)
                if self._finish(ov) is None:
                    return b""
                return ov.getbuffer() or b""
        except OSError:  # broken pipe, not connected, aborted, closed: the end
            return b""

    def write(self, data: bytes | bytearray | memoryview) -> int:
        """Write all of ``data`` (its length is returned); ``BrokenPipeError`` once the pipe is
        gone."""
        view = memoryview(data)
        while view:
            try:
                with self._operation():
                    ov, _ = _winapi.WriteFile(self.handle, bytes(view), overlapped=True)
                    written = self._finish(ov)
                    if written is None:
                        raise BrokenPipeError("the pipe is closed")
            except BrokenPipeError:
                raise
            except OSError as exc:
                raise BrokenPipeError(f"the pipe is closed ({exc})") from exc
            view = view[written:]
        return len(data)

    def close(self) -> None:
        """Idempotent, from any thread: pending operations end, then the handle is closed."""
        with self._lock:
            if self._closing:
                return
            self._closing = True
            # Under the lock: the last operation out cannot close the event before it is set.
            set_event(self._closed)
            idle = self._busy == 0
        if idle:
            self._release()

    def _finish(self, ov: _winapi.Overlapped) -> int | None:
        """Bytes moved by ``ov`` once done; None when ``close()`` came first (``ov`` is then
        cancelled). Raises the operation's ``OSError``."""
        done = _winapi.WaitForMultipleObjects([ov.event, self._closed], False, _winapi.INFINITE)
        if done != _winapi.WAIT_OBJECT_0:
            ov.cancel()
            # The cancelled operation still completes (aborted): wait for it before its buffer
            # goes away.
            with contextlib.suppress(OSError):
                ov.GetOverlappedResult(True)
            return None
        moved, _ = ov.GetOverlappedResult(True)
        return int(moved)

    def _operation(self) -> _Operation:
        return _Operation(self)

    def _enter(self) -> None:
        with self._lock:
            if self._closing:
                raise BrokenPipeError("the pipe is closed")
            self._busy += 1

    def _leave(self) -> None:
        with self._lock:
            self._busy -= 1
            last = self._closing and self._busy == 0
        if last:
            self._release()

    def _release(self) -> None:
        _winapi.CloseHandle(self.handle)
        _winapi.CloseHandle(self._closed)


class _Operation:
    def __init__(self, pipe: OverlappedPipe) -> None:
        self._pipe = pipe

    def __enter__(self) -> None:
        self._pipe._enter()

    def __exit__(self, *_: object) -> None:
        self._pipe._leave()


def open_client(name: str) -> OverlappedPipe:
    """Connect to the pipe server ``name``. Raises ``FileNotFoundError`` when nobody serves it,
    ``BlockingIOError`` while every instance is busy (retry), ``OSError`` otherwise."""
    try:
        handle = _winapi.CreateFile(
            name,
            GENERIC_READ | GENERIC_WRITE,
            0,
            _winapi.NULL,
            OPEN_EXISTING,
            FILE_FLAG_OVERLAPPED,
            _winapi.NULL,
        )
    except OSError as exc:
        if exc.winerror == ERROR_PIPE_BUSY:
            raise BlockingIOError(exc.errno, exc.strerror) from None
        raise
    return OverlappedPipe(handle)
