"""A file's version (the sha256 of its bytes) and a write that refuses to lose a change on disk.

Invariant: ``write_if_unchanged`` replaces a file only if its bytes still hash to the version the
writer's edit was made on, checked and written under one lock that every IdeA writer of those
files holds (threads and processes alike: ``file_lock.py``), so no IdeA write slips in between.
An editor outside IdeA takes no lock: its save is seen by the next check (DESIGN.md §18).
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
import weakref
from collections.abc import Iterator
from pathlib import Path

from idea.domain.errors import ChangedOnDisk, Conflict
from idea.infrastructure.files.atomic import read_bytes, write_atomic
from idea.infrastructure.files.file_lock import locked

__all__ = [
    "MISSING_VERSION",
    "TEXT_MAX_BYTES",
    "bounded_text",
    "check_unchanged",
    "edit_lock",
    "file_version",
    "version_of",
    "write_if_unchanged",
]

# The version of a file that does not exist: an edit made on nothing expects nothing there.
MISSING_VERSION = ""
# Each text a conflict carries (the file on disk, the one refused) is cut here: both together
# stay well under what one UI message may hold (``terminals.outbox.DEFAULT_MESSAGE_LIMIT_BYTES``).
TEXT_MAX_BYTES = 2 * 1024 * 1024

# One lock per lock file within this process (flock would also serialise threads, but by polling).
_locks: weakref.WeakValueDictionary[str, threading.Lock] = weakref.WeakValueDictionary()
_locks_guard = threading.Lock()


def version_of(data: bytes | None) -> str:
    """The version of a file holding ``data`` (``None``: no file)."""
    return MISSING_VERSION if data is None else hashlib.sha256(data).hexdigest()


def file_version(path: Path) -> str:
    """The version of ``path`` as it is on disk now. Raises ``Internal`` (I/O, too large)."""
    return version_of(read_bytes(path))


@contextlib.contextmanager
def edit_lock(lock_path: Path) -> Iterator[None]:
    """Hold the lock IdeA's writers of some files share (``<lock_path>.lock``). Not re-entrant.
    Raises ``Internal`` if another IdeA holds it too long."""
    key = str(lock_path.absolute())
    with _locks_guard:
        lock = _locks.get(key)
        if lock is None:
            lock = _locks[key] = threading.Lock()
    with lock, locked(lock_path):
        yield


def write_if_unchanged(path: Path, data: bytes, expected: str | None) -> None:
    """Replace ``path`` with ``data`` unless ``expected`` is given and the file's version is
    another; the caller holds its ``edit_lock``. Raises ``Conflict`` with ``changed`` (nothing
    written), ``Internal``."""
    check_unchanged(path, expected, data)
    write_atomic(path, data)


def check_unchanged(path: Path, expected: str | None, yours: bytes) -> None:
    """Raises ``Conflict`` (``changed``: both versions) if ``expected`` is given and ``path``'s
    version is another."""
    if expected is None:
        return
    on_disk = read_bytes(path)
    version = version_of(on_disk)
    if version != expected:
        changed = ChangedOnDisk(
            str(path), version, bounded_text(on_disk or b""), bounded_text(yours)
        )
        raise Conflict.changed_on_disk(changed)


def bounded_text(data: bytes, limit: int = TEXT_MAX_BYTES) -> str:
    """``data`` as text (bytes that are not UTF-8 replaced), cut at ``limit`` bytes with a line
    saying how much was left out."""
    if len(data) <= limit:
        return data.decode("utf-8", errors="replace")
    kept = data[:limit].decode("utf-8", errors="replace")
    return f"{kept}\n[… {len(data) - limit:,} more bytes not shown]"
