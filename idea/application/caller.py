"""Who sent a command and how they follow it: the requester's identity and an ask's progress."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from idea.domain.json_types import JsonObject


@dataclass(frozen=True, slots=True)
class AskProgress:
    target: str
    position: int  # 0 = the target is working on this ask; k = k-th in line
    target_working: bool


ProgressListener = Callable[[AskProgress], None]


@dataclass(frozen=True, slots=True)
class Caller:
    """``requester_id``: the agent the request comes from (None: the user); ``verified``: the door
    proved it (MCP: the bridge's per-agent key), rather than took a request file's word for it;
    ``proven``: nothing but that agent could have presented its key (agents confined so that none
    reads another's); ``source``: the door's name; ``log_fields``: what the handler adds to the
    command's delegation log row (an ask's chain, depth and usage), failed or not."""

    requester_id: str | None = None
    progress: ProgressListener | None = None
    verified: bool = False
    source: str | None = None
    proven: bool = False
    log_fields: JsonObject = field(default_factory=dict)
