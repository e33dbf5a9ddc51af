"""Smoke test of a frozen build before it is packed: ``python packaging/windows/smoke_mcp.py EXE``.

The official MCP SDK client drives ``EXE mcp-server`` exactly as an agent's CLI would (the
arguments and environment of IdeA's own declaration, DESIGN.md §9.5) against a headless project
runtime with fake agents: initialize, list the tools, ask an agent. On Windows the endpoint is a
named pipe, on Linux a Unix socket; the script is the same. ``EXE --version`` must print the
package version. Run from the repository with the project installed with its ``dev`` extras
(the MCP SDK, and the test fakes of ``tests/``). Exit 0 when every check passed.
"""

# ruff: noqa: E402, T201 - the source tree goes on sys.path before its imports; a script prints.
from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # the test fakes live in the source tree, not in the package

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

import idea
from idea.app.bootstrap import open_project
from idea.domain.agent import Agent
from tests.fakes.ports.session_starter import FakeSessionStarter
from tests.mcp_clients import declared_bridge

TIMEOUT_S = 120


def check_version(exe: Path, version: str) -> None:
    out = subprocess.run(
        [str(exe), "--version"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=TIMEOUT_S,
        check=False,
    )
    if out.returncode != 0 or out.stdout.strip() != f"idea {version}":
        raise SystemExit(f"{exe} --version: exit {out.returncode}, {out.stdout!r} {out.stderr!r}")


async def check_bridge(exe: Path, project: Path) -> None:
    runtime = await open_project(project, starter=FakeSessionStarter())
    try:
        for agent in (
            Agent(id="id-caller", name="caller", profile="claude"),
            Agent(id="id-helper", name="helper", profile="claude"),
        ):
            runtime.services.agents.save(agent)
        entry = declared_bridge(runtime, "id-caller")
        # Run from source, the declaration says `python -m idea mcp-server ...`: the frozen
        # executable takes the place of `python -m idea`, and must not need the source tree.
        if list(entry.args[:3]) != ["-m", "idea", "mcp-server"]:
            raise SystemExit(f"unexpected declaration: {entry.command} {entry.args}")
        env = {k: v for k, v in entry.env.items() if k != "PYTHONPATH"}
        params = StdioServerParameters(command=str(exe), args=list(entry.args[2:]), env=env)
        async with (
            asyncio.timeout(TIMEOUT_S),
            stdio_client(params) as (read, write),
            ClientSession(read, write) as session,
        ):
            init = await session.initialize()
            tools = {tool.name for tool in (await session.list_tools()).tools}
            answer = await session.call_tool("idea_ask_agent", {"target": "helper", "task": "hi"})
        text = "".join(block.text for block in answer.content if block.type == "text")
        if init.server_info.name != "idea":
            raise SystemExit(f"server name {init.server_info.name!r}, expected 'idea'")
        if not {"idea_list_agents", "idea_ask_agent"} <= tools:
            raise SystemExit(f"tools {sorted(tools)} lack idea_list_agents/idea_ask_agent")
        if answer.is_error or text != "echo: hi":
            raise SystemExit(f"idea_ask_agent answered {text!r} (error: {answer.is_error})")
    finally:
        await runtime.close()


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        raise SystemExit("usage: smoke_mcp.py PATH/TO/idea[.exe]")
    exe = Path(argv[0]).resolve()
    if not exe.is_file():
        raise SystemExit(f"{exe} does not exist")
    # A file a closing process still holds on Windows must not fail a passed smoke test.
    with tempfile.TemporaryDirectory(prefix="idea-smoke-", ignore_cleanup_errors=True) as scratch:
        # Nothing here writes to the user's own IdeA config.
        os.environ["IDEA_CONFIG_DIR"] = str(Path(scratch) / "config")
        project = Path(scratch) / "project"
        project.mkdir()
        check_version(exe, idea.__version__)
        asyncio.run(check_bridge(exe, project))
    print(f"smoke: {exe} {idea.__version__}: --version and the MCP bridge answer")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
