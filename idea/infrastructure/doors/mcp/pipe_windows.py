"""A Windows named-pipe server for the MCP endpoint, restricted to the current user.

``multiprocessing``'s pipe listener sets no security descriptor and accepts remote clients; this
one creates each pipe instance with a DACL granting access to the current user only and with
``PIPE_REJECT_REMOTE_CLIENTS``. Each connected instance is served through asyncio streams (a reader
thread feeds a ``StreamReader``; writes go through a thread) so the listener's handshake and serve
code is the same as for Unix sockets. Imported only on Windows.
"""

from __future__ import annotations

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

log = logging.getLogger(__name__)

_kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
_advapi32 = ctypes.WinDLL("advapi32", use_last_error=True)

PIPE_ACCESS_DUPLEX = 0x00000003
FILE_FLAG_FIRST_PIPE_INSTANCE = 0x00080000
PIPE_TYPE_BYTE = 0x00000000
PIPE_READMODE_BYTE = 0x00000000
PIPE_WAIT = 0x00000000
PIPE_REJECT_REMOTE_CLIENTS = 0x00000008
PIPE_UNLIMITED_INSTANCES = 255
ERROR_PIPE_CONNECTED = 535
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


def _current_user_sid() -> str:
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


def _security_attributes() -> _SecurityAttributes:
    """Full access for the current user, nobody else (protected DACL)."""
    descriptor = wintypes.LPVOID()
    sddl = f"D:P(A;;GA;;;{_current_user_sid()})"
    if not _advapi32.ConvertStringSecurityDescriptorToSecurityDescriptorW(
        sddl, 1, ctypes.byref(descriptor), None
    ):
        raise ctypes.WinError(ctypes.get_last_error())
    return _SecurityAttributes(ctypes.sizeof(_SecurityAttributes), descriptor, False)


class _PipeWriter:
    """The parts of ``asyncio.StreamWriter`` the listener uses, over a pipe handle."""

    def __init__(self, handle: int, loop: asyncio.AbstractEventLoop) -> None:
        self._handle = handle
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
        with self._lock:
            view = memoryview(data)
            while view:
                written = wintypes.DWORD()
                if not _kernel32.WriteFile(
                    self._handle,
                    bytes(view[:BUFFER]),
                    min(len(view), BUFFER),
                    ctypes.byref(written),
                    None,
                ):
                    raise ConnectionResetError("the MCP bridge closed the pipe")
                view = view[written.value :]

    def is_closing(self) -> bool:
        return self._closed

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            _kernel32.DisconnectNamedPipe(self._handle)
            _kernel32.CloseHandle(self._handle)

    async def wait_closed(self) -> None:
        return None


OnClient = Callable[[asyncio.StreamReader, _PipeWriter], Coroutine[Any, Any, None]]


class PipeServer:
    def __init__(self, name: str, on_client: OnClient) -> None:
        self.name = name
        self._on_client = on_client
        self._loop = asyncio.get_running_loop()
        self._attributes = _security_attributes()
        self._stopping = False
        self._first = True
        self._ready: int | None = None
        self._thread = threading.Thread(target=self._accept_forever, daemon=True)
        self._clients = TaskSet("MCP pipe server")

    def start(self) -> None:
        """Raises ``OSError`` if the pipe exists already (another IdeA serves the project)."""
        self._ready = self._new_instance()
        self._thread.start()

    def close(self) -> None:
        """Stop accepting; a dummy connection unblocks the waiting ``ConnectNamedPipe``."""
        self._stopping = True
        with contextlib.suppress(OSError), open(self.name, "r+b", buffering=0):
            pass

    def _new_instance(self) -> int:
        mode = PIPE_ACCESS_DUPLEX | (FILE_FLAG_FIRST_PIPE_INSTANCE if self._first else 0)
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
        if handle == INVALID_HANDLE_VALUE:
            raise ctypes.WinError(ctypes.get_last_error())
        self._first = False
        return int(handle)

    def _accept_forever(self) -> None:
        while not self._stopping:
            try:
                handle, self._ready = self._ready or self._new_instance(), None
            except OSError:
                log.exception("MCP endpoint: cannot create a pipe instance")
                return
            connected = _kernel32.ConnectNamedPipe(handle, None)
            if not connected and ctypes.get_last_error() != ERROR_PIPE_CONNECTED:
                _kernel32.CloseHandle(handle)
                continue
            if self._stopping:
                _kernel32.CloseHandle(handle)
                return
            self._loop.call_soon_threadsafe(self._serve, handle)

    def _serve(self, handle: int) -> None:
        reader = asyncio.StreamReader()
        writer = _PipeWriter(handle, self._loop)
        threading.Thread(target=self._pump, args=(handle, reader), daemon=True).start()
        self._clients.spawn(self._on_client(reader, writer), name="mcp pipe client")

    def _pump(self, handle: int, reader: asyncio.StreamReader) -> None:
        buffer = ctypes.create_string_buffer(BUFFER)
        while True:
            read = wintypes.DWORD()
            if not _kernel32.ReadFile(handle, buffer, BUFFER, ctypes.byref(read), None):
                break
            if read.value == 0:
                break
            self._loop.call_soon_threadsafe(reader.feed_data, buffer.raw[: read.value])
        self._loop.call_soon_threadsafe(reader.feed_eof)
