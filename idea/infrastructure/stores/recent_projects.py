"""The projects this user opened lately, newest first, kept in the user's config folder.

Invariant: one entry per project folder (resolved path), at most ``LIMIT`` of them; the file is a
``JsonDocument`` (atomic writes; a corrupt file is moved aside and the list starts empty). The
folder is ``$XDG_CONFIG_HOME/idea`` (default ``~/.config/idea``) on Linux and
``%APPDATA%\\IdeA`` on Windows; ``IDEA_CONFIG_DIR`` overrides both.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from idea.domain.errors import CorruptFile
from idea.domain.json_types import JsonObject, JsonValue
from idea.infrastructure.files.atomic import make_folder
from idea.infrastructure.files.json_document import JsonDocument, system_clock_ms

LIMIT = 12
FILE_NAME = "recent-projects.json"


def user_config_dir() -> Path:
    override = os.environ.get("IDEA_CONFIG_DIR")
    if override:
        return Path(override)
    if sys.platform == "win32":
        appdata = os.environ.get("APPDATA")
        return Path(appdata) / "IdeA" if appdata else Path.home() / "AppData" / "Roaming" / "IdeA"
    xdg = os.environ.get("XDG_CONFIG_HOME")
    return (Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".config") / "idea"


def scratch_project_dir() -> Path:
    """Where IdeA opens when started from a desktop menu with nothing else to open."""
    return user_config_dir() / "scratch"


@dataclass(frozen=True, slots=True)
class RecentProject:
    root: str
    name: str
    opened_at_ms: int

    def to_json(self) -> JsonObject:
        return {"root": self.root, "name": self.name, "opened_at_ms": self.opened_at_ms}


class RecentProjects:
    """Raises ``Internal`` when the file cannot be written; never raises on a corrupt file."""

    def __init__(self, path: Path | None = None) -> None:
        self._doc = JsonDocument(path or user_config_dir() / FILE_NAME, mode=0o600, shared=True)

    @property
    def path(self) -> Path:
        return self._doc.path

    def all(self) -> list[RecentProject]:
        try:
            return _entries(self._doc.load())
        except CorruptFile:
            return []

    def add(self, root: Path, name: str) -> list[RecentProject]:
        """Put ``root`` first (moving it up if it was there)."""
        key = str(root.resolve())
        entry = RecentProject(key, name, system_clock_ms())

        def put_first(stored: JsonObject | None) -> JsonObject:
            kept = [e for e in _entries(stored) if e.root != key][: LIMIT - 1]
            rows: list[JsonValue] = [e.to_json() for e in (entry, *kept)]
            return {"version": 1, "projects": rows}

        make_folder(self._doc.path.parent)
        try:
            return _entries(self._doc.update(put_first))
        except CorruptFile:
            return _entries(self._doc.update(put_first))


def _entries(stored: JsonObject | None) -> list[RecentProject]:
    rows = stored.get("projects") if stored else None
    found: list[RecentProject] = []
    for row in rows if isinstance(rows, list) else []:
        if not isinstance(row, dict):
            continue
        root, name, at = row.get("root"), row.get("name"), row.get("opened_at_ms")
        if isinstance(root, str) and root and isinstance(name, str):
            found.append(RecentProject(root, name, at if isinstance(at, int) else 0))
    return found[:LIMIT]
