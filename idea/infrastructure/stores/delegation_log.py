"""``.ideai/log/delegations.jsonl``: an append-only journal of processed orchestrator commands.

Appends are single ``write`` calls of one line each (O_APPEND), so concurrent writers never mix
lines; a torn last line after a crash is skipped by ``recent``. Writing never raises.
"""

from __future__ import annotations

import json
import logging
import os
from collections import deque
from pathlib import Path

from idea.domain.json_types import JsonObject

log = logging.getLogger(__name__)


class JsonlDelegationLog:
    def __init__(self, path: Path) -> None:
        self._path = path

    def append(self, record: JsonObject) -> None:
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
        try:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self._path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, line.encode("utf-8"))
            finally:
                os.close(fd)
        except OSError as exc:
            log.warning("could not append to %s: %s", self._path, exc)

    def recent(self, limit: int) -> list[JsonObject]:
        try:
            with self._path.open(encoding="utf-8", errors="replace") as f:
                lines = deque(f, maxlen=limit)
        except FileNotFoundError:
            return []
        except OSError as exc:
            log.warning("could not read %s: %s", self._path, exc)
            return []
        records: list[JsonObject] = []
        for line in lines:
            try:
                value = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict):
                records.append(value)
        return records
