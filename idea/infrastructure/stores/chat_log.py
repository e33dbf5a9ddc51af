"""Each structured agent's chat, one JSON line per entry, in ``.ideai/log/chats/<agent id>.jsonl``.

Invariants: entries are appended whole turn by turn (a crash mid-turn loses that turn's partial
entries, never an earlier one); a line that does not parse (a torn last line) is skipped on load;
past ``MAX_BYTES`` the file is rewritten atomically with its newest half. Files are named by agent
id, so a rename keeps the chat. I/O errors are logged, never raised: the chat is a convenience.
"""

from __future__ import annotations

import json
import logging
import os
from collections import deque
from pathlib import Path

from idea.domain.errors import IdeaError
from idea.domain.json_types import JsonObject
from idea.domain.names import validate_slug
from idea.infrastructure.files.atomic import write_atomic

log = logging.getLogger(__name__)

MAX_BYTES = 2 * 1024 * 1024
LOAD_LINES = 2000


class JsonlChatLog:
    def __init__(self, folder: Path, max_bytes: int = MAX_BYTES) -> None:
        self._folder = folder
        self._max_bytes = max_bytes

    def load(self, agent_id: str) -> list[JsonObject]:
        """The newest entries (at most ``LOAD_LINES``), oldest first."""
        path = self._path(agent_id)
        if path is None:
            return []
        try:
            with path.open(encoding="utf-8", errors="replace") as f:
                lines = deque(f, maxlen=LOAD_LINES)
        except FileNotFoundError:
            return []
        except OSError as exc:
            log.warning("could not read %s: %s", path, exc)
            return []
        entries: list[JsonObject] = []
        for line in lines:
            try:
                value = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict) and isinstance(value.get("type"), str):
                entries.append(value)
        return entries

    def append(self, agent_id: str, entries: list[JsonObject]) -> None:
        path = self._path(agent_id)
        if path is None or not entries:
            return
        text = "".join(
            json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n" for e in entries
        )
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, text.encode("utf-8"))
                size = os.fstat(fd).st_size
            finally:
                os.close(fd)
            if size > self._max_bytes:
                self._compact(path)
        except (OSError, IdeaError) as exc:
            log.warning("could not write the chat log %s: %s", path, exc)

    def _compact(self, path: Path) -> None:
        data = path.read_bytes()
        keep = data[len(data) - self._max_bytes // 2 :]
        # Start at a whole line.
        newline = keep.find(b"\n")
        write_atomic(path, keep[newline + 1 :] if newline >= 0 else b"")

    def _path(self, agent_id: str) -> Path | None:
        try:
            validate_slug(agent_id, "agent_id")
        except IdeaError:
            return None  # never a path outside the folder
        return self._folder / f"{agent_id}.jsonl"
