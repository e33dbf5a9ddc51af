"""Append-only JSON Lines files: one record per line, written by one ``write`` call (O_APPEND),
so concurrent writers never mix lines; a torn last line after a crash is skipped on reading.

Reading takes the tail only: blocks are read backwards from the end until enough records are
found, so the cost grows with what is asked for, not with the file. Only a regular file is read
(never a FIFO a cloned project planted, never through a link), and a line longer than
``MAX_LINE_BYTES`` is skipped without being held.
"""

from __future__ import annotations

import json
import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from idea.domain.json_types import JsonObject

log = logging.getLogger(__name__)

# A journal that is a link (a cloned project can carry one) is not followed to another file.
NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)
READ_FLAGS = os.O_RDONLY | NO_FOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
BLOCK_BYTES = 64 * 1024
MAX_LINE_BYTES = 1024 * 1024


def append_record(path: Path, record: JsonObject, mode: int = 0o644) -> int | None:
    """The file's size once the record is written, None if it could not be. Never raises: a
    journal that cannot be written must not fail what it records."""
    line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | NO_FOLLOW
    try:
        try:
            fd = os.open(path, flags, mode)
        except FileNotFoundError:  # the first record: its folder is made then, not at each one
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, flags, mode)
        try:
            os.write(fd, line.encode("utf-8"))
            return os.fstat(fd).st_size
        finally:
            os.close(fd)
    except OSError as exc:
        log.warning("could not append to %s: %s", path, exc)
        return None


def read_records(path: Path, limit: int) -> list[JsonObject]:
    """The last ``limit`` lines that are JSON objects, oldest first; [] if unreadable."""
    if limit <= 0:
        return []
    try:
        fd = os.open(path, READ_FLAGS)
    except FileNotFoundError:
        return []
    except OSError as exc:
        log.warning("could not read %s: %s", path, exc)
        return []
    records: list[JsonObject] = []
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            log.warning("not reading %s: not a regular file", path)
            return []
        for line in _lines_backwards(fd):
            try:
                value = json.loads(line.decode("utf-8", errors="replace"))
            except (json.JSONDecodeError, RecursionError):
                continue
            if isinstance(value, dict):
                records.append(value)
                if len(records) == limit:
                    break
    except OSError as exc:
        log.warning("could not read %s: %s", path, exc)
    finally:
        os.close(fd)
    records.reverse()
    return records


def _lines_backwards(fd: int) -> Iterator[bytes]:
    """The file's lines, last first, each at most ``MAX_LINE_BYTES`` (longer ones skipped)."""
    position = os.lseek(fd, 0, os.SEEK_END)
    head = b""  # the end of a line whose start is not read yet
    overlong = False  # that line is longer than MAX_LINE_BYTES: dropped, not held
    while position > 0:
        step = min(BLOCK_BYTES, position)
        position -= step
        os.lseek(fd, position, os.SEEK_SET)  # no pread on Windows
        block = _read_exactly(fd, step)
        parts = block.split(b"\n")
        if len(parts) == 1:
            if not overlong:
                head = block + head
                if len(head) > MAX_LINE_BYTES:
                    head, overlong = b"", True
            continue
        last = parts[-1] + head
        if not overlong and last.strip():
            yield last
        for line in reversed(parts[1:-1]):
            if line.strip():
                yield line
        head, overlong = parts[0], False
        if len(head) > MAX_LINE_BYTES:
            head, overlong = b"", True
    if not overlong and head.strip():
        yield head


def _read_exactly(fd: int, size: int) -> bytes:
    chunks: list[bytes] = []
    while size > 0 and (chunk := os.read(fd, size)):
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def empty(path: Path) -> None:
    """Truncate ``path`` if it exists (never through a link). Never raises."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_TRUNC | NO_FOLLOW)
    except FileNotFoundError:
        return
    except OSError as exc:
        log.warning("could not empty %s: %s", path, exc)
        return
    os.close(fd)
