"""Append-only JSON Lines files: one record per line, written by one ``write`` call (O_APPEND),
so concurrent writers never mix lines; a torn last line after a crash is skipped on reading."""

from __future__ import annotations

import json
import logging
import os
from collections import deque
from pathlib import Path

from idea.domain.json_types import JsonObject

log = logging.getLogger(__name__)

# A journal that is a link (a cloned project can carry one) is not followed to another file.
NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)


def append_record(path: Path, record: JsonObject, mode: int = 0o644) -> None:
    """Never raises: a journal that cannot be written must not fail what it records."""
    line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | NO_FOLLOW, mode)
        try:
            os.write(fd, line.encode("utf-8"))
        finally:
            os.close(fd)
    except OSError as exc:
        log.warning("could not append to %s: %s", path, exc)


def read_records(path: Path, limit: int) -> list[JsonObject]:
    """The last ``limit`` lines that are JSON objects, oldest first; [] if unreadable."""
    try:
        with path.open(encoding="utf-8", errors="replace") as f:
            lines = deque(f, maxlen=limit)
    except FileNotFoundError:
        return []
    except OSError as exc:
        log.warning("could not read %s: %s", path, exc)
        return []
    records: list[JsonObject] = []
    for line in lines:
        try:
            value = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            continue
        if isinstance(value, dict):
            records.append(value)
    return records


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
