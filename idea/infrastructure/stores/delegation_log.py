"""``.ideai/log/delegations.jsonl``: an append-only journal of processed orchestrator commands.

Writing never raises; a torn last line after a crash is skipped by ``recent``.
"""

from __future__ import annotations

from pathlib import Path

from idea.domain.json_types import JsonObject
from idea.infrastructure.files.jsonl import append_record, read_records


class JsonlDelegationLog:
    def __init__(self, path: Path) -> None:
        self._path = path

    def append(self, record: JsonObject) -> None:
        append_record(self._path, record)

    def recent(self, limit: int) -> list[JsonObject]:
        return read_records(self._path, limit)
