"""``.ideai/log/delegations.jsonl``: an append-only journal of processed orchestrator commands.

Writing never raises; a torn last line after a crash is skipped by ``recent``. Past ``MAX_BYTES``
the journal is rotated: it becomes ``delegations.1.jsonl`` (replacing the previous one), so the
log holds between one and two generations and never grows without end. ``recent`` reads the tail
of the journal, and of the previous generation when the journal alone has too few records.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from idea.domain.json_types import JsonObject
from idea.infrastructure.files.jsonl import append_record, read_records

log = logging.getLogger(__name__)

MAX_BYTES = 8 * 1024 * 1024


class JsonlDelegationLog:
    def __init__(self, path: Path, max_bytes: int = MAX_BYTES) -> None:
        self._path = path
        self._previous = path.with_name(f"{path.name.removesuffix('.jsonl')}.1.jsonl")
        self._max_bytes = max_bytes

    def append(self, record: JsonObject) -> None:
        size = append_record(self._path, record)
        if size is not None and size > self._max_bytes:
            self._rotate()

    def recent(self, limit: int) -> list[JsonObject]:
        records = read_records(self._path, limit)
        if len(records) < limit:
            records = read_records(self._previous, limit - len(records)) + records
        return records

    def _rotate(self) -> None:
        try:
            os.replace(self._path, self._previous)  # a link in the way is replaced, not followed
        except OSError as exc:
            log.warning("could not rotate %s: %s", self._path, exc)
