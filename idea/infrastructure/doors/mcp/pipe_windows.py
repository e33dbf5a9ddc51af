"""A Windows named-pipe server for the MCP endpoint, restricted to the current user.

``multiprocessing``'s pipe listener sets no security descriptor and accepts remote clients; this
one creates each pipe instance with a DACL granting access to the current user only and with
``PIPE_REJECT_REMOTE_CLIENTS``. Each connected instance is served through asyncio streams (a reader
thread feeds a ``StreamReader``; writes go through a thread) so the listener's handshake and serve
code is the same as for Unix sockets. Every instance is overlapped
(``idea.endpoint.overlapped_pipe``): the pump's pending read never holds up a write to the same
instance. Imported only on Windows.
"""

from __future__ import annotations

import _winapi
import asyncio
import contextlib
import ctypes
import logging
import sys
import threading
from collections.abc import Callable, Coroutine
from ctypes import wintypes
from typing import Any

from idea.application.tasks import TaskSet

assert sys.platform == "win32"

from idea.endpoint.overlapped_pipe import (  # noqa: E402 - names exist on Windows only
    ERROR_PIPE_CONNECTED,
    FILE_FLAG_OVERLAPPED,
    OverlappedPipe,
    new_event,
    set_event,
)

log = logging.getLogger(__name__)

_kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
_advapi32 = ctypes.WinDLL("advapi32", use_last_error=True)
# Declared: without a restype a HANDLE comes back as a C int (GetCurrentProcess's -1 would be
# passed on as 0xFFFFFFFF, and an INVALID_HANDLE_VALUE would never compare equal).
_kernel32.GetCurrentProcess.restype = wintypes.HANDLE
_kernel32.GetCurrentProcess.argtypes = []
_kernel32.CreateNamedPipeW.restype = wintypes.HANDLE
_kernel32.CreateNamedPipeW.argtypes = [
    wintypes.LPCWSTR,
    wintypes.DWORD,
    wintypes.DWORD,
    wintypes.DWORD,
    wintypes.DWORD,
    wintypes.DWORD,
    wintypes.DWORD,
    wintypes.LPVOID,
]
_kernel32.LocalFree.restype = wintypes.HLOCAL
_kernel32.LocalFree.argtypes = [wintypes.HLOCAL]
_kernel32.CloseHandle.argtypes = [wintypes.HANDLE]
_advapi32.OpenProcessToken.argtypes = [wintypes.HANDLE, wintypes.DWORD, wintypes.PHANDLE]
_advapi32.GetTokenInformation.argtypes = [
    wintypes.HANDLE,
    ctypes.c_int,
    wintypes.LPVOID,
    wintypes.DWORD,
    wintypes.PDWORD,
]
_advapi32.ConvertSidToStringSidW.argtypes = [wintypes.LPVOID, ctypes.POINTER(wintypes.LPWSTR)]
_advapi32.ConvertStringSecurityDescriptorToSecurityDescriptorW.argtypes = [
    wintypes.LPCWSTR,
    wintypes.DWORD,
    ctypes.POINTER(wintypes.LPVOID),
    wintypes.PULONG,
]

PIPE_ACCESS_DUPLEX = 0x00000003
FILE_FLAG_FIRST_PIPE_INSTANCE = 0x00080000
PIPE_TYPE_BYTE = 0x00000000
PIPE_READMODE_BYTE = 0x00000000
PIPE_WAIT = 0x00000000
PIPE_REJECT_REMOTE_CLIENTS = 0x00000008
PIPE_UNLIMITED_INSTANCES = 255
INVALID_HANDLE_VALUE = ctypes.c_void_p(-1).value
TOKEN_QUERY = 0x0008
TOKEN_USER_CLASS = 1
BUFFER = 64 * 1024


class _SecurityAttributes(ctypes.Structure):
    _fields_ = [
        ("nLength", wintypes.DWORD),
        ("lpSecurityDescriptor", wintypes.LPVOID),
        ("bInheritHandle", wintypes.BOOL),
    ]


def current_user_sid() -> str:
    token = wintypes.HANDLE()
    process = _kernel32.GetCurrentProcess()
    if not _advapi32.OpenProcessToken(process, TOKEN_QUERY, ctypes.byref(token)):
        raise ctypes.WinError(ctypes.get_last_error())
    try:
        size = wintypes.DWORD()
        _advapi32.GetTokenInformation(token, TOKEN_USER_CLASS, None, 0, ctypes.byref(size))
        buffer = ctypes.create_string_buffer(size.value)
        if not _advapi32.GetTokenInformation(
            token, TOKEN_USER_CLASS, buffer, size, ctypes.byref(size)
        ):
            raise ctypes.WinError(ctypes.get_last_error())
        sid = ctypes.cast(buffer, ctypes.POINTER(ctypes.c_void_p))[0]  # TOKEN_USER.User.Sid
        text = wintypes.LPWSTR()
        if not _advapi32.ConvertSidToStringSidW(ctypes.c_void_p(sid), ctypes.byref(text)):
            raise ctypes.WinError(ctypes.get_last_error())
        try:
            return str(text.value)
        finally:
            _kernel32.LocalFree(text)
    finally:
        _kernel32.CloseHandle(token)


def pipe_sddl(sid: str) -> str:
    """The pipe's security descriptor: a protected DACL with one entry, ``sid``'s full access."""
    return f"D:P(A;;GA;;;{sid})"


def _security_attributes() -> _SecurityAttributes:
    """Full access for the current user, nobody else (protected DACL)."""
    descriptor = wintypes.LPVOID()
    sddl = pipe_sddl(current_user_sid())
    if not _advapi32.ConvertStringSecurityDescriptorToSecurityDescriptorW(
        sddl, 1, ctypes.byref(descriptor), None
    ):
        raise ctypes.WinError(ctypes.get_last_error())
    return _SecurityAttributes(ctypes.sizeof(_SecurityAttributes), descriptor, False)


class _PipeWriter:
    """The parts of ``asyncio.StreamWriter`` the listener uses, over one pipe instance."""

    def __init__(self, pipe: OverlappedPipe, loop: asyncio.AbstractEventLoop) -> None:
        self._pipe = pipe
        self._loop = loop
        self._lock = threading.Lock()
        self._pending: list[bytes] = []
        self._closed = False

    def write(self, data: bytes) -> None:
        self._pending.append(data)

    async def drain(self) -> None:
        data, self._pending = b"".join(self._pending), []
        if data and not self._closed:
            await self._loop.run_in_executor(None, self._write_all, data)

    def _write_all(self, data: bytes) -> None:
        with self._lock:  # frames from two drains never interleave
            try:
                self._pipe.write(data)
            except BrokenPipeError as exc:
                raise ConnectionResetError("the MCP bridge closed the pipe") from exc

    def is_closing(self) -> bool:
        return self._closed

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._pipe.close()

    async def wait_closed(self) -> None:
        return None


OnClient = Callable[[asyncio.StreamReader, _PipeWriter], Coroutine[Any, Any, None]]


class PipeServer:
    def __init__(self, name: str, on_client: OnClient) -> None:
        self.name = name
        self._on_client = on_client
        self._loop = asyncio.get_running_loop()
        self._attributes = _security_attributes()
        self._stop = new_event()
        self._first = True
        self._ready: int | None = None
        self._thread = threading.Thread(target=self._accept_forever, daemon=True)
        self._clients = TaskSet("MCP pipe server")

    def start(self) -> None:
        """Raises ``OSError`` if the pipe exists already (another IdeA serves the project)."""
        self._ready = self._new_instance()
        self._thread.start()

    def close(self) -> None:
        """Stop accepting: the waiting connect is abandoned and its instance closed."""
        set_event(self._stop)
        if not self._thread.is_alive() and self._ready is not None:
            _winapi.CloseHandle(self._ready)
            self._ready = None

    def _new_instance(self) -> int:
        mode = (
            PIPE_ACCESS_DUPLEX
            | FILE_FLAG_OVERLAPPED
            | (FILE_FLAG_FIRST_PIPE_INSTANCE if self._first else 0)
        )
        handle = _kernel32.CreateNamedPipeW(
            self.name,
            mode,
            PIPE_TYPE_BYTE | PIPE_READMODE_BYTE | PIPE_WAIT | PIPE_REJECT_REMOTE_CLIENTS,
            PIPE_UNLIMITED_INSTANCES,
            BUFFER,
            BUFFER,
            0,
            ctypes.byref(self._attributes),
        )
        if handle is None or handle == INVALID_HANDLE_VALUE:
            raise ctypes.WinError(ctypes.get_last_error())
        self._first = False
        return int(handle)

    def _accept_forever(self) -> None:
        while True:
            try:
                handle, self._ready = self._ready or self._new_instance(), None
            except OSError:
                log.exception("MCP endpoint: cannot create a pipe instance")
                return
            outcome = self._connect(handle)
            if outcome == "connected":
                self._loop.call_soon_threadsafe(self._serve, handle)
                continue
            _winapi.CloseHandle(handle)
            if outcome == "stopped":
                _winapi.CloseHandle(self._stop)
                return

    def _connect(self, handle: int) -> str:
        """Wait for a client on ``handle``: ``connected``, ``failed`` (a client that left before
        it was accepted) or ``stopped`` (``close()`` was called)."""
        try:
            ov = _winapi.ConnectNamedPipe(handle, overlapped=True)
        except OSError as exc:  # connected between CreateNamedPipe and now: fine
            return "connected" if exc.winerror == ERROR_PIPE_CONNECTED else "failed"
        done = _winapi.WaitForMultipleObjects([ov.event, self._stop], False, _winapi.INFINITE)
        if done != _winapi.WAIT_OBJECT_0:
            ov.cancel()
            with contextlib.suppress(OSError):
                ov.GetOverlappedResult(True)  # the aborted connect, before ov goes away
            return "stopped"
        try:
            ov.GetOverlappedResult(True)
        except OSError as exc:
            log.info("MCP endpoint: a client left before it was accepted (%s)", exc)
            return "failed"
        return "connected"

    def _serve(self, handle: int) -> None:
        pipe = OverlappedPipe(handle)
        reader = asyncio.StreamReader()
        writer = _PipeWriter(pipe, self._loop)
        threading.Thread(target=self._pump, args=(pipe, reader), daemon=True).start()
        self._clients.spawn(self._on_client(reader, writer), name="mcp pipe client")

    def _pump(self, pipe: OverlappedPipe, reader: asyncio.StreamReader) -> None:
        while chunk := pipe.read(BUFFER):
            self._loop.call_soon_threadsafe(reader.feed_data, chunk)
        self._loop.call_soon_threadsafe(reader.feed_eof)
