"""The file door's file work: reading, listing and archiving request files, on the door's threads.

Nothing here runs on the core loop. ``read_request`` reads one request file (only a regular file
of at most ``MAX_REQUEST_BYTES``: a FIFO or a link to ``/dev/zero`` is a typed problem, not a
frozen thread) and parses it; ``unknown_requests`` lists, oldest first, the request files a scan
has not queued yet (one ``lstat`` per unknown name, none per known one); ``Archive`` writes a
response and moves its request into ``done/`` (``failed/`` when no response could be written),
never over an older file, at a constant cost per file (a counter per name, not a probe of
``name-1``, ``name-2``, ... for each file).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from idea.domain.errors import IdeaError, Internal, Invalid
from idea.domain.json_types import JsonObject, JsonValue
from idea.infrastructure.doors.request_queue import Pending
from idea.infrastructure.files.atomic import MAX_READ_BYTES, read_regular_file, write_atomic
from idea.infrastructure.files.json_document import encode_json

log = logging.getLogger(__name__)

REQUEST_SUFFIX = ".request.json"
RESPONSE_SUFFIX = ".response.json"
MAX_REQUEST_BYTES = MAX_READ_BYTES

# (file name, inode, mtime in ns): the same file, unchanged; (name, 0, 0) when it was not read.
Identity = tuple[str, int, int]


def request_id_of(name: str) -> str | None:
    """The id in ``<id>.request.json``; None for any other name (hidden files included)."""
    if not name.endswith(REQUEST_SUFFIX) or name.startswith("."):
        return None
    return name[: -len(REQUEST_SUFFIX)] or None


@dataclass(frozen=True, slots=True)
class Read:
    """A request file as read: its body, or why it cannot be one, or (``unparsed``, the digest of
    content that is not JSON yet) a writer that may not have finished."""

    identity: Identity
    body: JsonValue = None
    problem: Invalid | None = None
    unparsed: bytes | None = None
    why: str = ""


def read_request(path: Path) -> Read | None:
    """The request in ``path``; None when the file is gone."""
    unread = (path.name, 0, 0)
    try:
        read = read_regular_file(path, MAX_REQUEST_BYTES)
    except Internal as exc:  # not a regular file, too large, unreadable
        return Read(unread, problem=Invalid(f"the request file cannot be read: {exc.message}"))
    if read is None:
        if os.path.lexists(path):  # a link to nothing: say so rather than wait forever
            return Read(unread, problem=Invalid("the request file is a link to nothing"))
        return None
    info, data = read
    identity = (path.name, info.st_ino, info.st_mtime_ns)
    try:
        body: JsonValue = json.loads(data)  # UTF-8, or UTF-16/32 with or without a BOM
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        digest = hashlib.blake2b(data, digest_size=16).digest()
        return Read(identity, unparsed=digest, why=str(exc))
    return Read(identity, body=body)


def unknown_requests(folder: Path, known: frozenset[str]) -> list[Pending]:
    """The request files in ``folder`` whose names are not in ``known``, oldest first."""
    found: list[Pending] = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                name = entry.name
                if name in known or request_id_of(name) is None:
                    continue
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue  # gone meanwhile
                found.append(Pending(info.st_mtime_ns, name))
    except OSError as exc:
        log.warning("file door: could not list %s: %s", folder, exc)
    found.sort()
    return found


@dataclass(frozen=True, slots=True)
class Archived:
    written: bool  # the response is on disk
    moved: bool  # the request is no longer in the door


class Archive:
    """Answers requests on disk. Safe from several threads for different requests."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.done = folder / "done"
        self.failed = folder / "failed"
        self._lock = threading.Lock()
        # (folder, request file name) -> the next suffix to try: a name seen again does not
        # probe every suffix taken before.
        self._next: dict[tuple[Path, str], int] = {}

    def answer(self, path: Path, response: JsonObject) -> Archived:
        """Write the response for ``path``, then move the request into ``done/``; into
        ``failed/`` (the reason logged) when the response cannot be written."""
        request_id = path.name[: -len(REQUEST_SUFFIX)]
        try:
            write_atomic(self.folder / f"{request_id}{RESPONSE_SUFFIX}", encode_json(response))
        except IdeaError as exc:
            log.error("file door: no response for %s (%s): moved to failed/", path.name, exc)
            return Archived(written=False, moved=self.move(path, self.failed))
        return Archived(written=True, moved=self.move(path, self.done))

    def move(self, path: Path, folder: Path) -> bool:
        """Move a request into ``folder`` (never over an older one); True once it is no longer
        in the door."""
        target = folder / path.name
        try:
            folder.mkdir(exist_ok=True)
            if os.path.lexists(target):
                target = self._free_name(folder, path.name)
            os.replace(path, target)
        except FileNotFoundError:
            return not os.path.lexists(path)
        except OSError as exc:
            log.error("file door: could not move %s to %s/: %s", path.name, folder.name, exc)
            return False
        return True

    def _free_name(self, folder: Path, name: str) -> Path:
        stem = name[: -len(REQUEST_SUFFIX)]
        with self._lock:
            counter = self._next.get((folder, name), 1)
            while os.path.lexists(target := folder / f"{stem}-{counter}{REQUEST_SUFFIX}"):
                counter += 1
            self._next[(folder, name)] = counter + 1
        return target
