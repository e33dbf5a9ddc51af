"""The whole text of each structured reply cut at the cap, one file per turn (DESIGN.md §18).

Invariant: files live in ``.ideai/run/replies.d/`` and nowhere else: the folder and each file are
opened without following a link, files are created new (never over an existing one) with mode
0600, and only the newest ``keep`` ``*.txt`` files stay (the oldest are deleted when one is made).
"""

from __future__ import annotations

import os
import re
import stat
import uuid
from pathlib import Path
from typing import BinaryIO

from idea.domain.errors import Invalid
from idea.infrastructure.files.os_errors import os_errors

KEEP_REPLIES = 50
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
# Windows has no ``dir_fd``: there the paths are used (no symlink is made there by accident).
_DIR_FD = {os.open, os.stat, os.unlink} <= os.supports_dir_fd and os.scandir in os.supports_fd


class ReplyFile:
    """One reply's file, written as the reply comes (``ReplySpill`` of ``answer_text``)."""

    def __init__(self, path: Path, handle: BinaryIO) -> None:
        self._path = path
        self._handle: BinaryIO | None = handle

    @property
    def where(self) -> str:
        return str(self._path)

    def write(self, text: str) -> None:
        """Raises ``Internal`` (disk full, say)."""
        if self._handle is None:
            return
        with os_errors("write", self._path):
            self._handle.write(text.encode("utf-8", "replace"))

    def close(self) -> None:
        handle, self._handle = self._handle, None
        if handle is not None:
            with os_errors("write", self._path):
                handle.close()


class ReplyFiles:
    def __init__(self, folder: Path, keep: int = KEEP_REPLIES) -> None:
        self.folder = folder
        self._keep = keep

    def open(self, name: str) -> ReplyFile:
        """A new file ``<name>-<id>.txt``. Raises ``Invalid`` for a name that is not a plain
        file name, ``Internal`` if it cannot be made (the folder is a link, say)."""
        if not _NAME.fullmatch(name):
            raise Invalid(f"not a reply file name: {name[:80]!r}")
        file_name = f"{name}-{uuid.uuid4().hex[:12]}.txt"
        path = self.folder / file_name
        with os_errors("keep the reply in", path):
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_BINARY", 0)
            if _DIR_FD:
                folder = os.open(self.folder, os.O_RDONLY | _DIRECTORY | _NOFOLLOW)
                try:
                    fd = os.open(file_name, flags, 0o600, dir_fd=folder)
                    self._prune(folder, file_name)
                finally:
                    os.close(folder)
            else:  # pragma: no cover - Windows
                if self.folder.is_symlink():
                    raise OSError(f"{self.folder} is a link")
                fd = os.open(path, flags, 0o600)
                self._prune(None, file_name)
        return ReplyFile(path, os.fdopen(fd, "wb"))

    def _prune(self, folder: int | None, new: str) -> None:
        """Delete all but the newest ``keep`` reply files, ``new`` one of them (regular
        ``*.txt`` files only)."""
        found: list[tuple[int, str]] = []
        with os.scandir(folder if folder is not None else self.folder) as entries:
            for entry in entries:
                if entry.name == new or not entry.name.endswith(".txt"):
                    continue
                if folder is not None:
                    info = os.stat(entry.name, dir_fd=folder, follow_symlinks=False)
                else:  # pragma: no cover - Windows
                    info = os.stat(self.folder / entry.name, follow_symlinks=False)
                if stat.S_ISREG(info.st_mode):
                    found.append((info.st_mtime_ns, entry.name))
        found.sort()
        for _mtime, name in found[: max(0, len(found) - (self._keep - 1))]:
            try:
                if folder is not None:
                    os.unlink(name, dir_fd=folder)
                else:  # pragma: no cover - Windows
                    os.unlink(self.folder / name)
            except FileNotFoundError:
                pass
