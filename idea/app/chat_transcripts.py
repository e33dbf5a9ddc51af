"""What each structured agent's chat showed since the project opened, for a page that (re)loads.

Invariant: per agent, entries keep the order they happened in and each carries the ``seq`` it was
pushed with (one counter for the whole project, increasing), so a client can merge the history
with the live ``ChatEvent``s it receives meanwhile: it applies only events with a greater ``seq``.
Consecutive text pieces are folded into one entry. Per agent the entries are bounded in characters;
the oldest go first. With a ``ChatLog``, each turn's entries are written when the turn ends (or the
next begins) and an agent's past entries are loaded, with new seqs, the first time it is seen.
"""

from __future__ import annotations

import itertools
import json
from collections import deque
from dataclasses import dataclass, field
from typing import Protocol

from idea.domain.json_types import JsonObject, JsonValue

LIMIT_CHARS = 1_000_000
TURN_ENDS = ("final",)


class ChatLog(Protocol):
    def load(self, agent_id: str) -> list[JsonObject]: ...
    def append(self, agent_id: str, entries: list[JsonObject]) -> None: ...


@dataclass
class _Transcript:
    entries: deque[JsonObject] = field(default_factory=deque)
    sizes: deque[int] = field(default_factory=deque)
    chars: int = 0
    unsaved: int = 0  # the newest entries not in the log yet


class ChatTranscripts:
    def __init__(self, limit_chars: int = LIMIT_CHARS, chat_log: ChatLog | None = None) -> None:
        self._limit = limit_chars
        self._log = chat_log
        self._seq = itertools.count(1)
        self._last = 0
        self._agents: dict[str, _Transcript] = {}

    def add(self, agent_id: str, entry: JsonObject) -> int:
        """Record ``entry`` (a ChatEvent's data without who); returns its ``seq``."""
        t = self._transcript(agent_id)
        if entry.get("type") == "turn_started":
            self._save(agent_id, t)  # a turn that never said "final"
        seq = self._put(t, entry)
        if entry.get("type") in TURN_ENDS:
            self._save(agent_id, t)
        return seq

    def _transcript(self, agent_id: str) -> _Transcript:
        t = self._agents.get(agent_id)
        if t is None:
            t = self._agents[agent_id] = _Transcript()
            for past in self._log.load(agent_id) if self._log is not None else []:
                past.pop("seq", None)
                self._put(t, past)
            t.unsaved = 0
        return t

    def _save(self, agent_id: str, t: _Transcript) -> None:
        if self._log is None or not t.unsaved:
            return
        newest = list(t.entries)[-t.unsaved :]
        self._log.append(agent_id, [{k: v for k, v in e.items() if k != "seq"} for e in newest])
        t.unsaved = 0

    def _put(self, t: _Transcript, entry: JsonObject) -> int:
        self._last = seq = next(self._seq)
        last = t.entries[-1] if t.entries else None
        text = entry.get("text")
        if (
            entry.get("type") == "text"
            and last is not None
            and last.get("type") == "text"
            and isinstance(text, str)
        ):
            last["text"] = f"{last['text']}{text}"
            last["seq"] = seq
            t.sizes[-1] += len(text)
            t.chars += len(text)
        else:
            size = _size(entry)
            t.entries.append({**entry, "seq": seq})
            t.sizes.append(size)
            t.chars += size
            t.unsaved += 1
        while t.chars > self._limit and len(t.entries) > 1:
            t.entries.popleft()
            t.chars -= t.sizes.popleft()
        t.unsaved = min(t.unsaved, len(t.entries))
        return seq

    def history(self, agent_id: str) -> JsonObject:
        """``{entries, seq}``; ``seq``: the last one given to any agent (apply events after it)."""
        t = self._transcript(agent_id)
        entries: list[JsonValue] = [dict(e) for e in t.entries]
        return {"entries": entries, "seq": self._last}


def _size(entry: JsonObject) -> int:
    return len(json.dumps(entry, separators=(",", ":")))
