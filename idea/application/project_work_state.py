"""The project's work state as read (``workstate.get``): every agent's row with what the
orchestrator knows of it now (queue, usage, hibernation, the chain hop it answers, a rate limit),
and the chains in flight. Each builder returns the ``...Json`` shape declared above it, the type
the UI is sent (``idea.app.ui.typegen``).
"""

from __future__ import annotations

from typing import TypedDict, cast

from idea.application.ask_agent import AgentAsker
from idea.application.ask_lines import Serving, Waiting
from idea.application.caller import Caller
from idea.application.chains import Chain, Hop
from idea.application.hibernation import Hibernation
from idea.application.live_sessions import LiveSessions
from idea.application.ports import AgentStore, WorkStateStore
from idea.application.work_state import RATE_LIMIT_KEY, LastDelegationJson
from idea.domain.commands import GetProjectWorkState, Source
from idea.domain.json_types import json_object
from idea.domain.outcome import OrchestratorOutcome
from idea.domain.profile import Mode
from idea.domain.usage import RateLimitJson, UsageJson
from idea.domain.work_state import Status


class HopJson(TypedDict):
    chain_id: str
    depth: int
    requester: str | None
    ask_id: str
    parent_ask_id: str | None  # the ask its requester serves; None: a root ask


class ServingJson(HopJson):
    """The ask an agent answers now; ``requester`` None: the user."""

    deadline_at_ms: int
    started_at_ms: int  # when its turn began
    queued_ms: int  # how long the ask waited for it
    source: Source | None


class WaitingJson(HopJson):
    """An ask accepted for the agent that waits for its turn."""

    since_ms: int
    source: Source | None
    prompt: str  # its first 500 characters


class WorkRowJson(TypedDict):
    agent_id: str
    name: str
    status: Status
    intent: str | None
    ticket: str | None
    progress: str | None
    last_delegation: LastDelegationJson | None
    updated_at_ms: int | None
    live: bool
    mode: Mode | None
    node_id: str | None
    queued: int
    usage: UsageJson | None  # totals since the project opened; None: no turn yet
    hibernated: bool
    serving: ServingJson | None
    waiting: list[WaitingJson]
    rate_limit: RateLimitJson | None


class ChainJson(TypedDict):
    """A chain in flight: one root ask and every ask made while serving it."""

    chain_id: str
    depth: int  # the deepest so far; root = 1
    root_requester: str | None
    root_target: str
    agents: list[str]
    started_at_ms: int
    usage: UsageJson


class WorkStateJson(TypedDict):
    agents: list[WorkRowJson]
    chains: list[ChainJson]


def project_work_state(
    agents: AgentStore,
    store: WorkStateStore,
    sessions: LiveSessions,
    asker: AgentAsker,
    hibernation: Hibernation,
) -> WorkStateJson:
    """Every agent with its row (idle if it has none), liveness, mode, queued asks (their count,
    and the asks waiting for their turn), usage since open, whether it hibernates, the chain hop
    it answers now; and the chains in flight."""
    state = store.load()
    live = {a.agent_id: a for a in sessions.live_agents()}
    everyone = agents.all()
    names = {a.id: a.name for a in everyone}
    rows: list[WorkRowJson] = []
    for agent in everyone:
        row = state.rows.get(agent.id)
        running = live.get(agent.id)
        serving = asker.serving(agent.id)
        # The last ask and the rate limit as the file holds them: what record_delegation and
        # RateLimitRows wrote, unless the file was edited by hand (the UI reads them leniently).
        last = cast(LastDelegationJson | None, row.last_delegation if row else None)
        limit = cast(RateLimitJson | None, row.extra.get(RATE_LIMIT_KEY) if row else None)
        entry: WorkRowJson = {
            "agent_id": agent.id,
            "name": agent.name,
            "status": row.status if row else Status.IDLE,
            "intent": row.intent if row else None,
            "ticket": row.ticket if row else None,
            "progress": row.progress if row else None,
            "last_delegation": last,
            "updated_at_ms": row.updated_at_ms if row else None,
            "live": running is not None,
            "mode": running.mode if running else None,
            "node_id": running.node_id if running else None,
            "queued": asker.queue_length(agent.id),
            "usage": asker.usage.of(agent.id),
            "hibernated": hibernation.is_asleep(agent.id),
            "serving": None if serving is None else serving_json(serving, names),
            "waiting": [waiting_json(w, names) for w in asker.waiting(agent.id)],
            "rate_limit": limit,
        }
        rows.append(entry)
    chains = [chain_json(c, names) for c in asker.chains.in_flight()]
    return {"agents": rows, "chains": chains}


def serving_json(serving: Serving, names: dict[str, str]) -> ServingJson:
    return {
        **hop_json(serving.hop, names),
        "deadline_at_ms": serving.ends_at_ms,
        "started_at_ms": serving.started_at_ms,
        "queued_ms": serving.queued_ms,
        "source": serving.source,
    }


def waiting_json(waiting: Waiting, names: dict[str, str]) -> WaitingJson:
    return {
        **hop_json(waiting.hop, names),
        "since_ms": waiting.since_ms,
        "source": waiting.source,
        "prompt": waiting.prompt,
    }


def hop_json(hop: Hop, names: dict[str, str]) -> HopJson:
    """Which ask the hop is and under which (its requester's, None: a root), which chain it is
    of, how deep, and who asked it (a name; None: the user)."""
    requester = hop.requester_id
    return {
        "ask_id": hop.ask_id,
        "parent_ask_id": hop.parent_ask_id,
        "chain_id": hop.chain.chain_id,
        "depth": hop.depth,
        "requester": None if requester is None else names.get(requester, requester),
    }


def chain_json(chain: Chain, names: dict[str, str]) -> ChainJson:
    root = chain.root_requester
    return {
        "chain_id": chain.chain_id,
        "depth": chain.depth,
        "root_requester": None if root is None else names.get(root, root),
        "root_target": names.get(chain.root_target, chain.root_target),
        "agents": [names.get(a, a) for a in chain.serving],
        "started_at_ms": chain.started_at_ms,
        "usage": chain.usage.to_json(),
    }


async def get_project_work_state(
    _command: GetProjectWorkState,
    _caller: Caller,
    *,
    agents: AgentStore,
    work_state: WorkStateStore,
    sessions: LiveSessions,
    asker: AgentAsker,
    hibernation: Hibernation,
) -> OrchestratorOutcome:
    """The handler of ``workstate.get``."""
    data = project_work_state(agents, work_state, sessions, asker, hibernation)
    return OrchestratorOutcome("project work state", data=json_object(data))
