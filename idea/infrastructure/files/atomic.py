"""Atomic file writes, reads and quarantine for the files under ``<project>/.ideai/``.

Invariant: a path written by ``write_atomic`` holds either its previous content or the new one,
never a mix, even if the process is killed (SIGKILL; power loss once the directory is synced) at
any moment. The only debris a kill can leave is a hidden ``.<name>.<random>.tmp`` file beside the
target, which ``remove_stale_temps`` deletes. ``quarantine`` never overwrites an existing file.

Every ``OSError`` is translated into ``idea.domain.errors.Internal`` naming the path.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import re
import stat
import sys
import tempfile
import time
from pathlib import Path

from idea.domain.errors import Internal
from idea.infrastructure.files.os_errors import os_error, os_errors

__all__ = [
    "STALE_TEMP_AGE_S",
    "is_temp_name",
    "make_folder",
    "quarantine",
    "read_bytes",
    "read_text",
    "remove_stale_temps",
    "write_atomic",
]

log = logging.getLogger(__name__)

TEMP_SUFFIX = ".tmp"
# Older than this, a temp file cannot belong to a write in progress: a write lasts milliseconds.
STALE_TEMP_AGE_S = 60.0
# tempfile.mkstemp inserts 8 characters from this alphabet between prefix and suffix.
_TEMP_NAME_RE = re.compile(r"\..+\.[a-z0-9_]{8}\.tmp")
_MAX_QUARANTINE_ATTEMPTS = 1000


def _read_umask() -> int:
    # os.umask can only be read by setting it: done once, at import. The value set meanwhile is the
    # usual default, so a file another thread creates in that instant still gets sane permissions.
    current = os.umask(0o022)
    os.umask(current)
    return current


_UMASK = _read_umask()


def is_temp_name(name: str) -> bool:
    """True if ``name`` looks like a temp file made by ``write_atomic``."""
    return _TEMP_NAME_RE.fullmatch(name) is not None


def make_folder(folder: Path, mode: int = 0o777) -> Path:
    """``folder`` (and its parents), made if missing; the one place a store's folder is made.
    Raises ``Internal``."""
    with os_errors("create", folder):
        folder.mkdir(mode=mode, parents=True, exist_ok=True)
    return folder


def write_atomic(path: Path, data: bytes | str, *, mode: int | None = None) -> None:
    """Replace ``path`` with ``data`` (``str`` is encoded UTF-8) atomically and durably.

    ``mode`` (e.g. ``0o600`` for secrets) is applied before the file becomes visible under its name.
    Without it an existing file keeps its permissions and a new one gets the umask default (a bare
    ``mkstemp`` file would be 0600).

    Raises ``Internal`` on any OS error; the temp file is removed whatever fails.
    """
    folder = path.parent
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TEMP_SUFFIX, dir=folder)
    except OSError as exc:
        raise os_error("create a temporary file for", path, exc) from exc
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
            fh.flush()
            _fsync_file(fh.fileno())
        os.chmod(tmp, mode if mode is not None else _mode_for(path))
        os.replace(tmp, path)
    except BaseException as exc:
        # Whatever failed (including KeyboardInterrupt), the target is untouched: drop the temp.
        with contextlib.suppress(OSError):
            tmp.unlink()
        if isinstance(exc, OSError):
            raise os_error("write", path, exc) from exc
        raise
    _fsync_dir(folder)


def _mode_for(path: Path) -> int:
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return 0o666 & ~_UMASK


def _fsync_file(fd: int) -> None:
    if sys.platform == "darwin":
        import fcntl  # noqa: PLC0415 - POSIX-only module

        # On macOS plain fsync stops at the drive cache; F_FULLFSYNC reaches the medium.
        fcntl.fcntl(fd, fcntl.F_FULLFSYNC)
    else:
        os.fsync(fd)


def _fsync_dir(folder: Path) -> None:
    """Make the rename itself durable (POSIX); Windows has no directory handles to sync."""
    if os.name == "nt":
        return
    try:
        dir_fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError as exc:
        raise os_error("open the folder", folder, exc) from exc
    try:
        os.fsync(dir_fd)
    except OSError as exc:
        # Some file systems (network, FUSE) cannot sync a directory; the rename already happened.
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF):
            raise os_error("sync the folder", folder, exc) from exc
    finally:
        os.close(dir_fd)


# A state file is small; a larger one is not one of IdeA's (or is an attack on its memory).
MAX_READ_BYTES = 16 * 1024 * 1024


def read_bytes(path: Path, limit: int = MAX_READ_BYTES) -> bytes | None:
    """The whole content of ``path``, or ``None`` if it does not exist (``read_regular_file``)."""
    read = read_regular_file(path, limit)
    return None if read is None else read[1]


def read_regular_file(
    path: Path, limit: int = MAX_READ_BYTES
) -> tuple[os.stat_result, bytes] | None:
    """``(its stat, its content)``, or ``None`` if ``path`` does not exist (a link to nothing
    included).

    Only a regular file is read (a FIFO would block, ``/dev/zero`` would never end), and at most
    ``limit`` bytes. Raises ``Internal`` (an OS error, not a regular file, too large)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise os_error("read", path, exc) from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Internal(f"could not read {path}: not a regular file")
        too_large = Internal(f"could not read {path}: larger than {limit} bytes")
        if info.st_size > limit:
            raise too_large
        chunks: list[bytes] = []
        size = 0
        while chunk := os.read(fd, min(1 << 20, limit + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise too_large
        return info, b"".join(chunks)
    except OSError as exc:
        raise os_error("read", path, exc) from exc
    finally:
        os.close(fd)


def read_text(path: Path) -> str | None:
    """The UTF-8 content of ``path``, or ``None`` if it does not exist.

    Raises ``Internal`` on an OS error and ``UnicodeDecodeError`` if the bytes are not UTF-8 (the
    caller decides whether that makes the file corrupt).
    """
    data = read_bytes(path)
    return None if data is None else data.decode("utf-8")


def quarantine(path: Path, reason: str, now_ms: int) -> Path:
    """Move ``path`` aside to ``<name>.corrupt-<now_ms>`` in its folder; return the new path.

    An existing quarantined file is never overwritten: ``-1``, ``-2``... is appended instead. The
    bytes are moved, not copied, so the quarantined file is the original byte for byte.
    Raises ``Internal`` if the file cannot be moved (including when it no longer exists).
    """
    base = f"{path.name}.corrupt-{now_ms}"
    for attempt in range(_MAX_QUARANTINE_ATTEMPTS):
        target = path.with_name(base if attempt == 0 else f"{base}-{attempt}")
        try:
            moved = _move_no_clobber(path, target)
        except OSError as exc:
            raise os_error("move aside", path, exc) from exc
        if moved:
            _fsync_dir(path.parent)
            log.warning("quarantined %s to %s: %s", path, target.name, reason)
            return target
    raise Internal(f"could not move aside {path}: {_MAX_QUARANTINE_ATTEMPTS} names already taken")


def _move_no_clobber(src: Path, dst: Path) -> bool:
    """Rename ``src`` to ``dst`` unless ``dst`` exists (then return False), without a race."""
    if os.name == "nt":
        try:
            os.rename(src, dst)  # Windows rename refuses an existing target
        except FileExistsError:
            return False
        return True
    # POSIX rename silently replaces; link() refuses an existing name atomically.
    try:
        os.link(src, dst)
    except FileExistsError:
        return False
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK):
            raise
        # A file system without hard links: check-then-rename is the best it allows.
        if os.path.lexists(dst):
            return False
        os.rename(src, dst)
        return True
    os.unlink(src)
    return True


def remove_stale_temps(folder: Path, *, max_age_s: float = STALE_TEMP_AGE_S) -> list[Path]:
    """Delete ``write_atomic`` temp files in ``folder`` older than ``max_age_s``; return them.

    A kill during a write leaves its temp file behind; a young one may belong to a write in progress
    in another process, so it is kept. A missing folder is not an error.
    """
    removed: list[Path] = []
    now = time.time()
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:
        return removed
    except OSError as exc:
        raise os_error("list", folder, exc) from exc
    for entry in entries:
        if not is_temp_name(entry.name):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
            if not stat.S_ISREG(st.st_mode) or now - st.st_mtime < max_age_s:
                continue
            os.unlink(entry.path)
        except FileNotFoundError:
            continue  # its writer finished (renamed it) or another cleaner got there first
        except OSError as exc:
            raise os_error("remove", entry.path, exc) from exc
        removed.append(Path(entry.path))
    return removed
