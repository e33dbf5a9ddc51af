"""What the MCP client tests share: the tools IdeA must offer, and a headless project runtime with
fake agents for a client (the SDK, the Inspector, a frozen bridge) to reach."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from idea.app.bootstrap import open_project
from idea.app.runtime import ProjectRuntime
from idea.application.session_ports import McpServerEntry
from idea.domain.agent import Agent
from idea.infrastructure.clis.declaration import mcp_server_entry
from idea.infrastructure.doors.mcp.tools import TOOLS
from idea.infrastructure.stores.mcp_secret import write_agent_key
from tests.fakes.ports.session_starter import FakeSessionStarter

IDEA_TOOLS = frozenset(tool.name for tool in TOOLS)  # the catalogue, not a copy of it

CALLER = Agent(id="id-caller", name="caller", profile="claude")
HELPER = Agent(id="id-helper", name="helper", profile="claude")


@asynccontextmanager
async def fake_agents_runtime(root: Path, *extra: Agent) -> AsyncIterator[ProjectRuntime]:
    """The project in ``root`` open with fake sessions and agents caller, helper, ``extra``."""
    runtime = await open_project(root, starter=FakeSessionStarter())
    try:
        for agent in (CALLER, HELPER, *extra):
            runtime.services.agents.save(agent)
        yield runtime
    finally:
        await runtime.close()


def declared_bridge(runtime: ProjectRuntime, agent_id: str) -> McpServerEntry:
    """What IdeA declares to agent ``agent_id``'s CLI (its own key file written, as at launch)."""
    s = runtime.services
    key_file = write_agent_key(s.paths.mcp_key, s.paths.run_dir(agent_id), agent_id)
    return mcp_server_entry(s.info.id, s.paths.root, agent_id, key_file)
