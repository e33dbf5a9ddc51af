"""One Windows Job Object per agent session, with ``JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE``.

Invariant: every process of the session (the CLI, its children, grandchildren that left its
tree) is in the job, so closing the job kills them all: at stop, and when IdeA itself dies (the
system closes its handles then). A process started by the agent between its spawn and its
assignment (microseconds) is outside; the psutil tree kill still covers it. Imported only on
Windows.
"""

from __future__ import annotations

import ctypes
import logging
import sys
from ctypes import wintypes

assert sys.platform == "win32"

log = logging.getLogger(__name__)

_kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)

JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE = 0x00002000
JOB_OBJECT_BASIC_PROCESS_ID_LIST = 3
JOB_OBJECT_EXTENDED_LIMIT_INFORMATION = 9
PROCESS_TERMINATE = 0x0001
PROCESS_SET_QUOTA = 0x0100
_MAX_LISTED = 1024


class _BasicLimits(ctypes.Structure):
    _fields_ = [
        ("PerProcessUserTimeLimit", ctypes.c_int64),
        ("PerJobUserTimeLimit", ctypes.c_int64),
        ("LimitFlags", wintypes.DWORD),
        ("MinimumWorkingSetSize", ctypes.c_size_t),
        ("MaximumWorkingSetSize", ctypes.c_size_t),
        ("ActiveProcessLimit", wintypes.DWORD),
        ("Affinity", ctypes.c_size_t),
        ("PriorityClass", wintypes.DWORD),
        ("SchedulingClass", wintypes.DWORD),
    ]


class _IoCounters(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_uint64)
        for name in ("Reads", "Writes", "Others", "ReadBytes", "WriteBytes", "OtherBytes")
    ]


class _ExtendedLimits(ctypes.Structure):
    _fields_ = [
        ("BasicLimitInformation", _BasicLimits),
        ("IoInfo", _IoCounters),
        ("ProcessMemoryLimit", ctypes.c_size_t),
        ("JobMemoryLimit", ctypes.c_size_t),
        ("PeakProcessMemoryUsed", ctypes.c_size_t),
        ("PeakJobMemoryUsed", ctypes.c_size_t),
    ]


class _ProcessIdList(ctypes.Structure):
    _fields_ = [
        ("NumberOfAssignedProcesses", wintypes.DWORD),
        ("NumberOfProcessIdsInList", wintypes.DWORD),
        ("ProcessIdList", ctypes.c_size_t * _MAX_LISTED),
    ]


_kernel32.CreateJobObjectW.restype = wintypes.HANDLE
_kernel32.CreateJobObjectW.argtypes = [wintypes.LPVOID, wintypes.LPCWSTR]
_kernel32.SetInformationJobObject.argtypes = [
    wintypes.HANDLE,
    ctypes.c_int,
    wintypes.LPVOID,
    wintypes.DWORD,
]
_kernel32.QueryInformationJobObject.argtypes = [
    wintypes.HANDLE,
    ctypes.c_int,
    wintypes.LPVOID,
    wintypes.DWORD,
    wintypes.LPDWORD,
]
_kernel32.OpenProcess.restype = wintypes.HANDLE
_kernel32.OpenProcess.argtypes = [wintypes.DWORD, wintypes.BOOL, wintypes.DWORD]
_kernel32.AssignProcessToJobObject.argtypes = [wintypes.HANDLE, wintypes.HANDLE]
_kernel32.TerminateJobObject.argtypes = [wintypes.HANDLE, wintypes.UINT]
_kernel32.CloseHandle.argtypes = [wintypes.HANDLE]


def _check(ok: object) -> None:
    if not ok:
        raise ctypes.WinError(ctypes.get_last_error())


class SessionJob:
    """A kill-on-close job; ``close()`` kills what it holds (idempotent)."""

    def __init__(self) -> None:
        """Raises ``OSError`` if the job cannot be made."""
        handle = _kernel32.CreateJobObjectW(None, None)
        _check(handle)
        self._handle: int | None = handle
        limits = _ExtendedLimits()
        limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
        try:
            _check(
                _kernel32.SetInformationJobObject(
                    handle,
                    JOB_OBJECT_EXTENDED_LIMIT_INFORMATION,
                    ctypes.byref(limits),
                    ctypes.sizeof(limits),
                )
            )
        except OSError:
            self.close()
            raise

    def assign(self, pid: int) -> None:
        """Put process ``pid`` (and so every child it starts from now on) in the job; raises
        ``OSError``."""
        process = _kernel32.OpenProcess(PROCESS_SET_QUOTA | PROCESS_TERMINATE, False, pid)
        _check(process)
        try:
            _check(_kernel32.AssignProcessToJobObject(self._handle, process))
        finally:
            _kernel32.CloseHandle(process)

    def pids(self) -> list[int]:
        """The processes in the job now."""
        if self._handle is None:
            return []
        listed = _ProcessIdList()
        _check(
            _kernel32.QueryInformationJobObject(
                self._handle,
                JOB_OBJECT_BASIC_PROCESS_ID_LIST,
                ctypes.byref(listed),
                ctypes.sizeof(listed),
                None,
            )
        )
        return [int(pid) for pid in listed.ProcessIdList[: listed.NumberOfProcessIdsInList]]

    def close(self) -> None:
        handle, self._handle = self._handle, None
        if handle is not None:
            _kernel32.TerminateJobObject(handle, 1)
            _kernel32.CloseHandle(handle)  # the last handle: kill-on-close, if anything is left


def job_for(pid: int) -> SessionJob | None:
    """A new job holding ``pid``; None (logged) where jobs are refused, so that an agent still
    starts: the tree kill remains."""
    try:
        job = SessionJob()
    except OSError as exc:
        log.warning("no job object for pid %d: %s", pid, exc)
        return None
    try:
        job.assign(pid)
    except OSError as exc:
        log.warning("pid %d could not join its job object: %s", pid, exc)
        job.close()
        return None
    return job
