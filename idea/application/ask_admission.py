"""Whether an ask may be made (DESIGN.md §15): who may ask whom, how deep, how much.

- an agent not in the target's ``asks_from`` → FORBIDDEN (the user always may);
- an ask deeper in its chain than the policy's ``max_depth`` → DEPTH_EXCEEDED;
- a nested ask of a chain that spent its ``chain_token_budget`` → BUDGET_EXCEEDED, checked when
  it is made and again when its turn would start (the chain may have spent it meanwhile).
"""

from __future__ import annotations

from idea.application.chains import Hop
from idea.domain.agent import Agent
from idea.domain.errors import BudgetExceeded, DepthExceeded, Forbidden
from idea.domain.policy import Policy, may_ask


def admit(agent: Agent, hop: Hop, policy: Policy, requester: str | None) -> None:
    """``requester``: the asking agent's name (None: the user). Raises ``Forbidden``,
    ``DepthExceeded``, ``BudgetExceeded``."""
    if not may_ask(agent.asks_from, requester):
        raise Forbidden(
            f"{requester} may not ask {agent.name}: only "
            f"{', '.join(agent.asks_from)} may (its asks_from)"
        )
    if hop.depth > policy.max_depth:
        raise DepthExceeded(
            f"asking {agent.name} would make delegation chain {hop.chain.chain_id[:8]} "
            f"{hop.depth} asks deep; the project's max_depth is {policy.max_depth}"
        )
    check_budget(agent, hop, policy)


def check_budget(agent: Agent, hop: Hop, policy: Policy) -> None:
    """Raises ``BudgetExceeded`` for a nested ask of a chain that spent its budget."""
    budget = policy.chain_token_budget
    spent = hop.chain.usage.total_tokens
    if hop.depth > 1 and budget is not None and spent >= budget:
        raise BudgetExceeded(
            f"delegation chain {hop.chain.chain_id[:8]} spent {spent:,} tokens of its "
            f"budget of {budget:,}; {agent.name} is not asked"
        )
