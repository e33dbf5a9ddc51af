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
    """``requester_id``: the agent id the door vouches for (None: the user or a file)."""

    requester_id: str | None = None
    progress: ProgressListener | None = None
