"""Read a state file into a domain model; a file that cannot be used is moved aside, never lost.

"Cannot be used" covers bad bytes, bad JSON/front matter and a shape the domain rejects: in every
case the original bytes are kept in ``<name>.corrupt-<ts>`` and ``CorruptFile`` is raised.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

from idea.domain.errors import CorruptFile, Invalid
from idea.domain.json_types import JsonObject
from idea.infrastructure.files.atomic import quarantine, read_bytes
from idea.infrastructure.files.json_document import JsonDocument

T = TypeVar("T")


def corrupt(path: Path, reason: str, now_ms: int) -> CorruptFile:
    moved = quarantine(path, reason, now_ms)
    return CorruptFile(str(path), str(moved), reason)


def load_text_model(path: Path, parse: Callable[[str], T], now_ms: Callable[[], int]) -> T | None:
    """``parse`` the UTF-8 text of ``path``; None if absent. Raises ``CorruptFile``."""
    data = read_bytes(path)
    if data is None:
        return None
    try:
        return parse(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise corrupt(path, "not valid UTF-8", now_ms()) from None
    except Invalid as exc:
        raise corrupt(path, exc.message, now_ms()) from exc


def load_json_model(doc: JsonDocument, parse: Callable[[JsonObject], T]) -> T | None:
    """``parse`` the object stored in ``doc``; None if absent. Raises ``CorruptFile``."""
    raw = doc.load()
    if raw is None:
        return None
    try:
        return parse(raw)
    except Invalid as exc:
        raise corrupt(doc.path, exc.message, doc.now_ms()) from exc


# The key of a file that does not exist (an inode number is never negative).
_ABSENT = (-1, -1, -1)


class ChangeCache(Generic[T]):
    """Keeps what was read from one file until the file changes (inode, mtime or size), or
    appears or disappears: an absent file is one stat per look-up too, not a failed open.

    Atomic writes replace the file (a new inode), so a write through IdeA is always seen; the
    cached values are immutable domain objects, safe to hand out again.
    """

    def __init__(self, path: Path) -> None:
        self._path = path
        self._key: tuple[int, int, int] | None = None
        self._value: T | None = None

    def get(self, load: Callable[[], T | None]) -> T | None:
        try:
            stat = os.stat(self._path)
        except FileNotFoundError:
            key = _ABSENT
        except OSError:  # unreadable: nothing to cache, load() says why
            self._key = None
            return load()
        else:
            key = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
        if key != self._key:
            self._value = load()
            self._key = key
        return self._value
