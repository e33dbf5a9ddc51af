"""How long an ask may take (DESIGN.md §6, §15): its turn's timeout, its wait in line, and the
deadline they share.

- the turn timeout: the ask's own (``timeoutS``), else the app's override, else the policy's
  ``ask_timeout_s``; the queue cap: the app's override, else the policy's ``queue_wait_s``;
- every ask has a deadline that its time in the queue and its turn share: at most the queue cap
  plus the turn timeout; for a caller that is an agent's CLI, ``margin_s`` below the MCP tool
  timeout IdeA declared to it; for an ask made by an agent while it serves another ask,
  ``margin_s`` below what remains of that one. So a caller always gets IdeA's typed TIMEOUT
  before its own CLI gives up, and a chain never outlives its root.

Pure: the times are loop times the caller reads.
"""

from __future__ import annotations

from dataclasses import dataclass

from idea.domain.commands import DEFAULT_ASK_TIMEOUT_S
from idea.domain.errors import IdeaTimeout
from idea.domain.policy import Policy

DEFAULT_TURN_TIMEOUT_S = DEFAULT_ASK_TIMEOUT_S  # the command declares it; the asker applies it
DEFAULT_QUEUE_CAP_S = 900.0
# What a deadline leaves its caller: time to carry the TIMEOUT back before the caller gives up.
DEADLINE_MARGIN_S = 5.0


@dataclass(frozen=True, slots=True)
class AskTimes:
    """``turn_timeout_s`` and ``queue_cap_s`` override the policy's ``ask_timeout_s`` and
    ``queue_wait_s`` when given; ``caller_timeout_s``: the MCP tool timeout IdeA declares to the
    agents' CLIs; ``margin_s``: what a deadline leaves its caller."""

    turn_timeout_s: float | None = None
    queue_cap_s: float | None = None
    caller_timeout_s: float | None = None
    margin_s: float = DEADLINE_MARGIN_S

    def turn_timeout(self, asked_s: float | None, policy: Policy) -> float:
        if asked_s is not None:
            return asked_s
        if self.turn_timeout_s is not None:
            return self.turn_timeout_s
        return policy.ask_timeout_s

    def queue_cap(self, policy: Policy) -> float:
        return self.queue_cap_s if self.queue_cap_s is not None else policy.queue_wait_s

    def deadline(
        self,
        target: str,
        now: float,
        turn_timeout: float,
        queue_cap: float,
        parent_ends: float | None,
        from_cli: bool,
    ) -> float:
        """The time by which the answer must be back; ``parent_ends``: when the turn the ask is
        made from ends (None: a root ask). Raises ``IdeaTimeout`` when a chain has no time left
        for this ask."""
        deadline = now + queue_cap + turn_timeout
        if from_cli and self.caller_timeout_s is not None:
            deadline = min(deadline, now + self.caller_timeout_s - self.margin_s)
        if parent_ends is not None:
            deadline = min(deadline, parent_ends - self.margin_s)
        if deadline <= now:
            raise IdeaTimeout(
                f"no time is left to ask {target}: the ask this one serves ends in "
                f"{max(0.0, (parent_ends if parent_ends is not None else now) - now):.1f} s"
            )
        return deadline
