"""Who sent a command and how they follow it: the requester's identity and an ask's progress."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class AskProgress:
    target: str
    position: int  # 0 = the target is working on this ask; k = k-th in line
    target_working: bool


ProgressListener = Callable[[AskProgress], None]


@dataclass(frozen=True, slots=True)
class Caller:
    """``requester_id``: the agent the request comes from (None: the user); ``verified``: the door
    proved it (MCP: the bridge's per-agent key), rather than took a request file's word for it."""

    requester_id: str | None = None
    progress: ProgressListener | None = None
    verified: bool = False
