"""One JSON object stored in one file, written atomically, never silently overwritten when corrupt.

Invariants:
- the file holds a JSON object written whole by ``save`` (see ``atomic_file``), or it is absent;
- a file that does not parse, is not UTF-8 or whose top level is not an object is moved aside to
  ``<name>.corrupt-<ms>`` byte for byte and reported as ``CorruptFile``; it is never overwritten;
- within one process, ``update`` calls on the same path (through any number of ``JsonDocument``
  instances) are serialised, so no update is lost. Other processes are locked out only for a
  ``shared`` document (the user's files every IdeA process writes: ``file_lock.py``); a project's
  state files have a single owning process.

``save`` writes exactly the object it is given: keeping fields this version does not know about is
the caller's job (domain objects carry them in ``extra``).
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
import weakref
from collections.abc import Callable, Mapping
from pathlib import Path

from idea.domain.errors import CorruptFile
from idea.domain.json_types import JsonObject
from idea.infrastructure.files.atomic import quarantine, read_bytes, write_atomic
from idea.infrastructure.files.file_lock import locked

__all__ = ["JsonDocument", "decode_object", "encode_json", "system_clock_ms"]

# One lock per absolute path, shared by every JsonDocument on that path, alive while one uses it.
_locks: weakref.WeakValueDictionary[str, threading.RLock] = weakref.WeakValueDictionary()
_locks_guard = threading.Lock()


def system_clock_ms() -> int:
    """Wall-clock milliseconds since the epoch (names quarantined files)."""
    return time.time_ns() // 1_000_000


def _lock_for(path: Path) -> threading.RLock:
    key = str(path.absolute())
    with _locks_guard:
        lock = _locks.get(key)
        if lock is None:
            lock = threading.RLock()
            _locks[key] = lock
        return lock


def encode_json(obj: Mapping[str, object]) -> bytes:
    """The file form of ``obj`` (a JSON object, or a ``TypedDict`` of JSON): UTF-8, indented,
    key order kept, a final newline."""
    try:
        return _dumps(obj, ascii_only=False).encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate (a legal JSON escape, e.g. "\ud800") has no UTF-8 form: keep it escaped.
        return _dumps(obj, ascii_only=True).encode("ascii")


def _dumps(obj: Mapping[str, object], *, ascii_only: bool) -> str:
    return json.dumps(obj, ensure_ascii=ascii_only, indent=2, sort_keys=False) + "\n"


def decode_object(data: bytes) -> JsonObject | str:
    """The object in ``data``, or a short reason why it is not one."""
    try:
        value = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        return f"not UTF-8 at byte {exc.start}"
    except json.JSONDecodeError as exc:
        return f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
    except RecursionError:
        return "invalid JSON: nested too deeply"
    if not isinstance(value, dict):
        return f"top level is a JSON {type(value).__name__}, not an object"
    return value


class JsonDocument:
    """Adapter for one JSON-object file; every method raises ``Internal`` on an OS error."""

    def __init__(
        self,
        path: Path,
        *,
        clock: Callable[[], int] = system_clock_ms,
        mode: int | None = None,
        shared: bool = False,
    ) -> None:
        """``clock`` returns milliseconds (quarantine names); ``mode`` is passed to every write;
        ``shared``: other processes update this file too (``update`` locks them out)."""
        self.path = path
        self._clock = clock
        self._mode = mode
        self._lock = _lock_for(path)
        self._shared = shared

    def now_ms(self) -> int:
        return self._clock()

    def __repr__(self) -> str:
        return f"JsonDocument({str(self.path)!r})"

    def load(self) -> JsonObject | None:
        """The stored object, or ``None`` if the file does not exist.

        Raises ``CorruptFile`` after moving an unreadable file aside (its bytes preserved exactly).
        """
        with self._lock:
            data = read_bytes(self.path)
            if data is None:
                return None
            decoded = decode_object(data)
            if isinstance(decoded, str):
                moved = quarantine(self.path, decoded, self._clock())
                raise CorruptFile(str(self.path), str(moved), decoded)
            return decoded

    def save(self, obj: Mapping[str, object]) -> None:
        """Replace the file with exactly ``obj`` (nothing merged in), atomically."""
        data = encode_json(obj)
        with self._lock:
            write_atomic(self.path, data, mode=self._mode)

    def update(self, fn: Callable[[JsonObject | None], JsonObject]) -> JsonObject:
        """Load, apply ``fn`` (given ``None`` if absent), save and return its result.

        Serialised per path within the process. If ``fn`` raises, nothing is written; a corrupt file
        raises ``CorruptFile`` (after quarantine) before ``fn`` runs.
        """
        with self._lock, locked(self.path) if self._shared else contextlib.nullcontext():
            new = fn(self.load())
            self.save(new)
            return new
