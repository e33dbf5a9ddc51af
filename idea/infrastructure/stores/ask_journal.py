"""``.ideai/run/asks.jsonl``: every accepted ask, when it starts and when it ends (DESIGN.md §15).

At open, a start without its end is an ask that was in flight when the app died. The file is
emptied whenever no ask is in flight, so it holds the asks of the moment, not a history.
"""

from __future__ import annotations

from pathlib import Path

from idea.domain.json_types import JsonObject
from idea.infrastructure.files.jsonl import append_record, empty, read_records

READ_MAX_RECORDS = 20_000  # a journal longer than this is not one the app wrote


class JsonlAskJournal:
    def __init__(self, path: Path) -> None:
        self._path = path
        self._in_flight: set[str] = set()

    def started(self, ask_id: str, record: JsonObject) -> None:
        self._in_flight.add(ask_id)
        append_record(self._path, {"event": "start", "ask_id": ask_id, **record}, 0o600)

    def ended(self, ask_id: str, record: JsonObject) -> None:
        self._in_flight.discard(ask_id)
        if not self._in_flight:
            self._truncate()  # nothing in flight: the journal has nothing left to say
            return
        append_record(self._path, {"event": "end", "ask_id": ask_id, **record}, 0o600)

    def unfinished(self) -> list[JsonObject]:
        """The start records of asks that never ended, oldest first."""
        starts: dict[str, JsonObject] = {}
        for record in read_records(self._path, READ_MAX_RECORDS):
            ask_id = record.get("ask_id")
            if not isinstance(ask_id, str):
                continue
            if record.get("event") == "start":
                starts[ask_id] = record
            elif record.get("event") == "end":
                starts.pop(ask_id, None)
        return list(starts.values())

    def reset(self) -> None:
        self._in_flight.clear()
        self._truncate()

    def _truncate(self) -> None:
        empty(self._path)
