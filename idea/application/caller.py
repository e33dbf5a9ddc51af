"""Who sent a command and how they follow it: the requester's identity, an ask's progress in its
target's queue, and its trace (where it sits in the ask tree) as it grows."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from idea.domain.commands import Source
from idea.domain.outcome import AskTrace


@dataclass(frozen=True, slots=True)
class AskProgress:
    target: str
    position: int  # 0 = the target is working on this ask; k = k-th in line
    target_working: bool


ProgressListener = Callable[[AskProgress], None]
TraceListener = Callable[[AskTrace], None]


@dataclass(frozen=True, slots=True)
class Caller:
    """``requester_id``: the agent the request comes from (None: the user); ``verified``: the door
    proved it (MCP: the bridge's per-agent key), rather than took a request file's word for it;
    ``proven``: nothing but that agent could have presented its key (agents confined so that none
    reads another's); ``source``: the door's name; ``traced``: told an ask's trace each time it
    grows (the command's delegation log row carries the last one, whether the ask answered,
    failed or was cancelled)."""

    requester_id: str | None = None
    progress: ProgressListener | None = None
    verified: bool = False
    source: Source | None = None
    proven: bool = False
    traced: TraceListener | None = None
