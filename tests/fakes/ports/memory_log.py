"""The fake of the ``DelegationLog`` port."""

from __future__ import annotations

from idea.domain.json_types import JsonObject


class MemoryDelegationLog:
    def __init__(self) -> None:
        self.records: list[JsonObject] = []

    def append(self, record: JsonObject) -> None:
        self.records.append(record)

    def recent(self, limit: int) -> list[JsonObject]:
        return self.records[-limit:]
