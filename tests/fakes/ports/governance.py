"""Fakes of the ``PolicyStore`` and ``AskJournal`` ports."""

from __future__ import annotations

import hashlib
import json

from idea.domain.errors import ChangedOnDisk, Conflict
from idea.domain.json_types import JsonObject
from idea.domain.policy import Policy


class InMemoryPolicyStore:
    def __init__(self, policy: Policy | None = None) -> None:
        self.policy = policy or Policy()

    def current(self) -> Policy:
        return self.policy

    def current_versioned(self) -> tuple[Policy, str]:
        return self.policy, _version(self.policy)

    def save(self, policy: Policy, expected_version: str | None = None) -> None:
        version = _version(self.policy)
        if expected_version is not None and expected_version != version:
            on_disk, yours = json.dumps(self.policy.to_json()), json.dumps(policy.to_json())
            raise Conflict.changed_on_disk(ChangedOnDisk("policy.json", version, on_disk, yours))
        self.policy = policy


def _version(policy: Policy) -> str:
    return hashlib.sha256(json.dumps(policy.to_json()).encode()).hexdigest()


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
