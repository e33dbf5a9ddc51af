"""What each structured agent's chat showed since the project opened, for a page that (re)loads.

Invariant: per agent, entries keep the order they happened in and each carries the ``seq`` it was
pushed with (one counter for the whole project, increasing), so a client can merge the history
with the live ``ChatEvent``s it receives meanwhile: it applies only events with a greater ``seq``.
Consecutive text pieces are folded into one entry. Per agent the entries are bounded in characters;
the oldest go first.
"""

from __future__ import annotations

import itertools
import json
from collections import deque
from dataclasses import dataclass, field

from idea.domain.json_types import JsonObject, JsonValue

LIMIT_CHARS = 1_000_000


@dataclass
class _Transcript:
    entries: deque[JsonObject] = field(default_factory=deque)
    sizes: deque[int] = field(default_factory=deque)
    chars: int = 0


class ChatTranscripts:
    def __init__(self, limit_chars: int = LIMIT_CHARS) -> None:
        self._limit = limit_chars
        self._seq = itertools.count(1)
        self._last = 0
        self._agents: dict[str, _Transcript] = {}

    def add(self, agent_id: str, entry: JsonObject) -> int:
        """Record ``entry`` (a ChatEvent's data without who); returns its ``seq``."""
        self._last = seq = next(self._seq)
        t = self._agents.setdefault(agent_id, _Transcript())
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
        while t.chars > self._limit and len(t.entries) > 1:
            t.entries.popleft()
            t.chars -= t.sizes.popleft()
        return seq

    def history(self, agent_id: str) -> JsonObject:
        """``{entries, seq}``; ``seq``: the last one given to any agent (apply events after it)."""
        t = self._agents.get(agent_id)
        entries: list[JsonValue] = [dict(e) for e in t.entries] if t else []
        return {"entries": entries, "seq": self._last}


def _size(entry: JsonObject) -> int:
    return len(json.dumps(entry, separators=(",", ":")))
