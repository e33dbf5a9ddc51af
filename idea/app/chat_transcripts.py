"""What each structured agent's chat showed since the project opened, for a page that (re)loads.

Invariant: per agent, entries keep the order they happened in and each carries the ``seq`` it was
pushed with (one counter for the whole project, increasing), so a client can merge the history
with the live ``ChatEvent``s it receives meanwhile: it applies only events with a greater ``seq``.
Consecutive text pieces are folded into one entry at a cost per piece of the piece alone (they are
joined when the history is read or logged, not at each piece). An entry keeps at most
``ENTRY_LIMIT_CHARS`` of a text (a reply, a prompt, a tool's output), then a line saying how much
was not kept; per agent the entries are bounded in characters, the oldest go first. With a
``ChatLog``, each turn's entries are written when the turn ends (or the next begins) and an
agent's past entries are loaded, with new seqs, the first time it is seen.
"""

from __future__ import annotations

import itertools
import json
from collections import deque
from dataclasses import dataclass, field
from typing import Protocol

from idea.domain.json_types import JsonObject, JsonValue

# What one entry keeps of a text: the cap on what a structured turn keeps of its reply (DESIGN §18).
ENTRY_LIMIT_CHARS = 1024 * 1024
# Per agent: a capped reply (its text and its final) and what came before it.
LIMIT_CHARS = 4 * ENTRY_LIMIT_CHARS
TURN_ENDS = ("final",)
TEXT_FIELDS = ("text", "prompt", "output")


class ChatLog(Protocol):
    def load(self, agent_id: str) -> list[JsonObject]: ...
    def append(self, agent_id: str, entries: list[JsonObject]) -> None: ...


def cut_note(cut: int) -> str:
    """The line that ends a text cut at ``ENTRY_LIMIT_CHARS``."""
    return f"\n\n[… {cut:,} more characters of this entry are not kept in the chat history]"


@dataclass
class _OpenText:
    """The pieces of the newest text entry, joined only when read: O(piece) per piece."""

    limit: int
    parts: list[str] = field(default_factory=list)
    chars: int = 0
    cut: int = 0  # characters past ``limit``, dropped

    def add(self, piece: str) -> int:
        """Keep what fits of ``piece``; returns how many characters were kept."""
        kept = piece[: max(0, self.limit - self.chars)]
        self.cut += len(piece) - len(kept)
        if kept:
            self.parts.append(kept)
            self.chars += len(kept)
        return len(kept)

    def text(self) -> str:
        if len(self.parts) > 1:
            self.parts = ["".join(self.parts)]
        whole = self.parts[0] if self.parts else ""
        return f"{whole}{cut_note(self.cut)}" if self.cut else whole


@dataclass
class _Transcript:
    entries: deque[JsonObject] = field(default_factory=deque)
    sizes: deque[int] = field(default_factory=deque)
    chars: int = 0
    unsaved: int = 0  # the newest entries not in the log yet
    open: _OpenText | None = None  # the newest entry is text, still taking pieces

    def materialize(self) -> None:
        """Write the open text entry's pieces into it (before it is read or logged)."""
        if self.open is not None:
            self.entries[-1]["text"] = self.open.text()


class ChatTranscripts:
    def __init__(
        self,
        limit_chars: int = LIMIT_CHARS,
        chat_log: ChatLog | None = None,
        entry_limit_chars: int = ENTRY_LIMIT_CHARS,
    ) -> None:
        self._limit = limit_chars
        self._entry_limit = entry_limit_chars
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
        t.materialize()
        newest = list(t.entries)[-t.unsaved :]
        self._log.append(agent_id, [{k: v for k, v in e.items() if k != "seq"} for e in newest])
        t.unsaved = 0

    def _put(self, t: _Transcript, entry: JsonObject) -> int:
        self._last = seq = next(self._seq)
        text = entry.get("text")
        is_text = entry.get("type") == "text" and isinstance(text, str)
        if is_text and t.open is not None and isinstance(text, str):
            kept = t.open.add(text)
            t.entries[-1]["seq"] = seq
            t.sizes[-1] += kept
            t.chars += kept
        else:
            t.materialize()
            t.open = None
            entry = self._capped(entry)
            size = _size(entry)
            t.entries.append({**entry, "seq": seq})
            t.sizes.append(size)
            t.chars += size
            t.unsaved += 1
            if is_text and isinstance(text, str):
                t.open = _OpenText(self._entry_limit)
                t.open.add(text)
        while t.chars > self._limit and len(t.entries) > 1:
            t.entries.popleft()
            t.chars -= t.sizes.popleft()
        t.unsaved = min(t.unsaved, len(t.entries))
        return seq

    def history(self, agent_id: str) -> JsonObject:
        """``{entries, seq}``; ``seq``: the last one given to any agent (apply events after it)."""
        t = self._transcript(agent_id)
        t.materialize()
        entries: list[JsonValue] = [dict(e) for e in t.entries]
        return {"entries": entries, "seq": self._last}

    def _capped(self, entry: JsonObject) -> JsonObject:
        """``entry`` with each text field cut at the entry limit, saying how much was cut."""
        over = [
            k
            for k in TEXT_FIELDS
            if isinstance(v := entry.get(k), str) and len(v) > self._entry_limit
        ]
        if not over:
            return entry
        capped = dict(entry)
        for k in over:
            value = str(entry[k])
            capped[k] = value[: self._entry_limit] + cut_note(len(value) - self._entry_limit)
        return capped


def _size(entry: JsonObject) -> int:
    return len(json.dumps(entry, separators=(",", ":")))
