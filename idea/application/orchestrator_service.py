"""OrchestratorService.dispatch: the one behaviour behind the three doors (UI, file, MCP).

Every processed command, whatever its outcome, publishes ``OrchestratorRequestProcessed`` and
appends one line to the delegation log; an ask's event and row carry its trace (its id, its
parent's, its chain and depth: the ask tree, DESIGN.md §15), the last one the ask told.
Failures are ``IdeaError``s; anything else escaping a handler is reported as INTERNAL (and
logged), never swallowed.

A command whose half-done state would be worse than either end (``agent.stop``: the session is
already forgotten, its processes half killed) runs to its end when its caller goes away (a bridge
that left, a closed WebSocket): the caller is cancelled at once, the command finishes on its own
and is logged with the outcome it really had.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, NotRequired, TypedDict

from idea.application.caller import Caller, ProgressListener
from idea.application.event_bus import EventPublisher
from idea.application.ports import Clock, DelegationLog
from idea.application.tasks import TaskSet
from idea.domain import commands as c
from idea.domain.errors import IdeaError, Internal
from idea.domain.events import OrchestratorRequestProcessed
from idea.domain.json_types import json_object
from idea.domain.outcome import AskTrace, OrchestratorOutcome
from idea.domain.usage import UsageJson

log = logging.getLogger(__name__)

# Commands that are never left half done (see the module's docstring).
RUN_TO_END: frozenset[type[Any]] = frozenset({c.StopAgent})

BoundHandler = Callable[[Any, Caller], Awaitable[OrchestratorOutcome]]
"""A handler of ``application/handlers.py`` with its collaborators bound (``app/bootstrap/``)."""


class DelegationJson(TypedDict):
    """One processed command, as logged; prompt and reply clipped to 8000 characters."""

    at_ms: int
    source: c.Source
    requester: str | None  # an agent id
    requester_claimed: NotRequired[bool]  # a request file's word alone
    requester_proven: NotRequired[bool]
    action: str
    target: str | None
    prompt_chars: int | None
    prompt: str | None
    reply: str | None
    duration_ms: int
    ok: bool
    code: str | None
    # An ask's row (AskTrace.to_json, DESIGN.md §15); rows logged by an older IdeA may lack them.
    chain_id: NotRequired[str | None]
    depth: NotRequired[int | None]
    ask_id: NotRequired[str | None]
    parent_ask_id: NotRequired[str | None]
    usage: NotRequired[UsageJson | None]  # the answering turn's
    queued_ms: NotRequired[int | None]
    # LOST rows (reconcile_at_open.py): when the ask that never ended started.
    started_at_ms: NotRequired[int]


class OrchestratorService:
    def __init__(
        self,
        handlers: Mapping[type[Any], BoundHandler],
        events: EventPublisher,
        delegations: DelegationLog,
        clock: Clock,
        agent_keys_private: bool = False,
    ) -> None:
        """``agent_keys_private``: no agent can read another's MCP key, so the MCP door's
        requester is proven; false while every agent runs as the user (DESIGN.md §18)."""
        self._handlers = dict(handlers)
        self._agent_keys_private = agent_keys_private
        self._events = events
        self._delegations = delegations
        self._clock = clock
        self._finishing = TaskSet("orchestrator")

    async def close(self, timeout_s: float = 10.0) -> None:
        """Let commands whose caller left finish (bounded), then cancel what is left."""
        await self._finishing.wait(timeout_s)

    async def dispatch(
        self,
        command: c.Command,
        source: c.Source,
        requester_id: str | None = None,
        progress: ProgressListener | None = None,
    ) -> OrchestratorOutcome:
        work = self._logged(command, source, requester_id, progress)
        if type(command) not in RUN_TO_END:
            return await work
        # The caller may be cancelled; the command is not (``shield``) and logs its own end.
        task = self._finishing.spawn(_settled(work), name=f"orchestrator-{command.ACTION}")
        return _unsettled(await asyncio.shield(task))

    async def _logged(
        self,
        command: c.Command,
        source: c.Source,
        requester_id: str | None,
        progress: ProgressListener | None,
    ) -> OrchestratorOutcome:
        started = self._clock.monotonic()
        code: str | None = None
        outcome: OrchestratorOutcome | None = None
        verified = requester_id is not None and source is c.Source.MCP
        proven = verified and self._agent_keys_private
        traces: list[AskTrace] = []
        caller = Caller(requester_id, progress, verified, source, proven, traces.append)
        try:
            outcome = await self._handle(command, caller)
            return outcome
        except IdeaError as exc:
            code = exc.code
            raise
        except Exception as exc:
            log.exception("orchestrator: %s failed", command.ACTION)
            code = Internal.code
            raise Internal(f"{command.ACTION} failed unexpectedly: {exc}") from exc
        except BaseException:
            code = "CANCELLED"
            raise
        finally:
            trace = traces[-1] if traces else None
            self._processed(command, source, caller, started, code, outcome, trace)

    async def _handle(self, command: c.Command, caller: Caller) -> OrchestratorOutcome:
        handler = self._handlers.get(type(command))
        if handler is None:  # pragma: no cover - every command has a line in HANDLERS
            raise Internal(f"no handler for {type(command).__name__}")
        return await handler(command, caller)

    def _processed(
        self,
        command: c.Command,
        source: c.Source,
        caller: Caller,
        started: float,
        code: str | None,
        outcome: OrchestratorOutcome | None,
        trace: AskTrace | None,
    ) -> None:
        duration_ms = max(0, round((self._clock.monotonic() - started) * 1000))
        target = c.command_target(command)
        requester_id = caller.requester_id
        self._events.publish(
            OrchestratorRequestProcessed(
                source,
                requester_id,
                command.ACTION,
                target,
                code is None,
                duration_ms,
                code,
                None if trace is None else trace.chain_id,
                None if trace is None else trace.depth,
                None if trace is None else trace.ask_id,
                None if trace is None else trace.parent_ask_id,
            )
        )
        prompt = command.task if isinstance(command, c.AskAgent) else None
        row: DelegationJson = {
            "at_ms": self._clock.now_ms(),
            "source": source,
            "requester": requester_id,
            # A request file's "requester" is its word alone; an MCP requester presented
            # that agent's key, which proves it only if no other agent could read the key.
            "requester_claimed": requester_id is not None and source is not c.Source.MCP,
            "requester_proven": caller.proven,
            "action": command.ACTION,
            "target": target,
            "prompt_chars": len(prompt) if prompt is not None else None,
            "prompt": _clip(prompt),
            "reply": _clip(outcome.reply if outcome is not None else None),
            "duration_ms": duration_ms,
            "ok": code is None,
            "code": code,
        }
        if trace is not None:
            row = {**row, **trace.to_json()}
        self._delegations.append(json_object(row))


async def _settled(
    work: Awaitable[OrchestratorOutcome],
) -> OrchestratorOutcome | IdeaError:
    """A failure is a result here: the task set would log it as a crash."""
    try:
        return await work
    except IdeaError as exc:
        return exc


def _unsettled(result: OrchestratorOutcome | IdeaError) -> OrchestratorOutcome:
    if isinstance(result, IdeaError):
        raise result
    return result


LOGGED_TEXT_MAX = 8000


def _clip(text: str | None) -> str | None:
    """Prompts and replies are logged for the UI's delegation log, bounded in size."""
    if text is None or len(text) <= LOGGED_TEXT_MAX:
        return text
    return text[: LOGGED_TEXT_MAX - 1] + "…"
