"""Fakes of the ``PolicyStore`` and ``AskJournal`` ports."""

from __future__ import annotations

from idea.domain.json_types import JsonObject
from idea.domain.policy import Policy


class InMemoryPolicyStore:
    def __init__(self, policy: Policy | None = None) -> None:
        self.policy = policy or Policy()

    def current(self) -> Policy:
        return self.policy

    def save(self, policy: Policy) -> None:
        self.policy = policy


class MemoryAskJournal:
    def __init__(self) -> None:
        self.records: list[JsonObject] = []

    def started(self, ask_id: str, record: JsonObject) -> None:
        self.records.append({"event": "start", "ask_id": ask_id, **record})

    def ended(self, ask_id: str, record: JsonObject) -> None:
        self.records.append({"event": "end", "ask_id": ask_id, **record})

    def unfinished(self) -> list[JsonObject]:
        ended = {r["ask_id"] for r in self.records if r["event"] == "end"}
        return [r for r in self.records if r["event"] == "start" and r["ask_id"] not in ended]

    def reset(self) -> None:
        self.records.clear()
