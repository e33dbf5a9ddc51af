"""The checkouts this user trusts (DESIGN.md §13), in ``trusted-projects.json`` beside
``recent-projects.json`` in the user's config folder (never in a project: a clone cannot trust
itself).

Invariant: one entry per canonical root, at most ``LIMIT`` (the oldest trust is dropped first);
the file is a ``JsonDocument`` (0600, atomic writes); a corrupt file is moved aside and then
nothing is trusted, which is the safe side.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from idea.domain.errors import CorruptFile, Invalid
from idea.domain.json_types import JsonObject, JsonValue
from idea.domain.trust import TrustEntry
from idea.infrastructure.files.atomic import make_folder, read_bytes
from idea.infrastructure.files.json_document import JsonDocument
from idea.infrastructure.files.model_file import ChangeCache
from idea.infrastructure.stores.recent_projects import user_config_dir

LIMIT = 1000
FILE_NAME = "trusted-projects.json"


def canonical_root(root: Path) -> str:
    """The key of a checkout: its resolved path (case-folded where the file system is)."""
    return os.path.normcase(str(root.resolve()))


class TrustedProjects:
    def __init__(self, path: Path | None = None, limit: int = LIMIT) -> None:
        self._doc = JsonDocument(path or user_config_dir() / FILE_NAME, mode=0o600, shared=True)
        self._limit = limit
        # Read again only once the file changed: trust is asked on every profile look-up.
        self._cache: ChangeCache[dict[str, TrustEntry]] = ChangeCache(self._doc.path)

    @property
    def path(self) -> Path:
        return self._doc.path

    def get(self, root: str) -> TrustEntry | None:
        entries = self._cache.get(self._by_root)
        return entries.get(root) if entries is not None else None

    def put(self, entry: TrustEntry) -> None:
        def replaced(stored: JsonObject | None) -> JsonObject:
            kept = [e for e in _entries(stored) if e.root != entry.root]
            kept.sort(key=lambda e: e.trusted_at_ms)
            del kept[: max(0, len(kept) - self._limit + 1)]  # the oldest trust goes first
            rows: list[JsonValue] = [e.to_json() for e in (*kept, entry)]
            return {"version": 1, "projects": rows}

        make_folder(self._doc.path.parent)
        try:
            self._doc.update(replaced)
        except CorruptFile:
            self._doc.update(replaced)  # moved aside: start again from nothing

    def _by_root(self) -> dict[str, TrustEntry]:
        try:
            return {entry.root: entry for entry in _entries(self._doc.load())}
        except CorruptFile:
            return {}


def _entries(stored: JsonObject | None) -> list[TrustEntry]:
    rows = stored.get("projects") if stored else None
    found: list[TrustEntry] = []
    for row in rows if isinstance(rows, list) else []:
        try:
            found.append(TrustEntry.from_json(row))
        except Invalid:
            continue  # an entry that does not parse trusts nothing
    return found


class FileFingerprint:
    """The sha256 of one file as it is now (None when absent), hashed again only after the file
    changed. With ``also`` (files that run things too: ``worktree-setup``), each present one is
    hashed in: the fingerprint of a project without them is its first file's alone, so trust
    given before they existed holds until one appears."""

    def __init__(self, path: Path, *also: Path) -> None:
        self._cache: ChangeCache[str] = ChangeCache(path)
        self._path = path
        self._also = [FileFingerprint(extra) for extra in also]

    def __call__(self) -> str | None:
        first = self._cache.get(self._hash)
        extra = [fingerprint() for fingerprint in self._also]
        if not any(extra):
            return first
        return hashlib.sha256(":".join(h or "" for h in (first, *extra)).encode()).hexdigest()

    def _hash(self) -> str | None:
        data = read_bytes(self._path)
        return hashlib.sha256(data).hexdigest() if data is not None else None
