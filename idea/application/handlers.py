"""The one table of orchestrator command handlers: command type → handler (DESIGN.md §6).

A handler is ``async def verb(command, caller, *, <collaborators>) -> OrchestratorOutcome``; its
keyword parameters name what it needs, and ``app/bootstrap/`` binds them by name (cosmicpython's
``inject_dependencies``). Adding a command = its dataclass in ``domain/commands.py`` (its fields
declared once: the parser, the wire form and the schemas follow from them) in the ``Command``
union, a use-case module here and one line below; an MCP tool for it is one line in
``infrastructure/doors/mcp/tools.py``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from types import MappingProxyType

from idea.application.ask_agent import ask_agent
from idea.application.create_skill import create_skill
from idea.application.project_work_state import get_project_work_state
from idea.application.review_workspace import agent_changes, discard_agent_changes, merge_agent
from idea.application.run_agent import run_agent
from idea.application.spawn_agent import spawn_agent
from idea.application.stop_agent import stop_agent
from idea.application.update_agent_context import update_agent_context
from idea.application.work_state import set_work_state
from idea.domain import commands as c
from idea.domain.outcome import OrchestratorOutcome

Handler = Callable[..., Awaitable[OrchestratorOutcome]]

HANDLERS: Mapping[type[c.Command], Handler] = MappingProxyType(
    {
        c.AskAgent: ask_agent,
        c.LaunchAgent: run_agent,
        c.SpawnAgent: spawn_agent,
        c.StopAgent: stop_agent,
        c.UpdateAgentContext: update_agent_context,
        c.CreateSkill: create_skill,
        c.SetWorkState: set_work_state,
        c.GetProjectWorkState: get_project_work_state,
        c.AgentChanges: agent_changes,
        c.MergeAgent: merge_agent,
        c.DiscardAgentChanges: discard_agent_changes,
    }
)
