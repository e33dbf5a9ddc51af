"""The session starter: run dir, declaration, pid records, and nothing in the user's project."""

import json
import os
import stat
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from idea.application.session_ports import StructuredSpec
from idea.domain.agent import Agent
from idea.domain.errors import Invalid, Unavailable
from idea.domain.profile import AdapterKind, McpConfigFile, McpEnv, McpFlag, Profile
from idea.endpoint import loopback
from idea.endpoint.naming import mcp_endpoint
from idea.infrastructure.clis.adapter import CliAdapter
from idea.infrastructure.clis.claude.session import probe_claude_mcp
from idea.infrastructure.clis.claude.terminal import claude_terminal
from idea.infrastructure.clis.declaration import write_declaration
from idea.infrastructure.clis.starter import CliSessionStarter
from idea.infrastructure.processes.run_dir import read_pid_records
from idea.infrastructure.stores.mcp_secret import ensure_project_key
from idea.infrastructure.stores.paths import ProjectPaths
from tests.fakes.ports.agent_session import FakeAgentSession
from tests.fakes.ports.terminal import FakeProgram, FakeTerminalLauncher

AGENT = Agent(id="agent-1", name="dev", profile="tool", context="Be brief ✓\n")


def tool_dir(tmp_path: Path) -> Path:
    """A PATH folder holding an executable named `tool`."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "tool"
    tool.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    tool.chmod(0o755)
    return bin_dir


def snapshot(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "project"
    (root / ".ideai").mkdir(parents=True)
    return ProjectPaths(root)


def starter(project, tmp_path, launched=None, clis=None):
    launcher = FakeTerminalLauncher({str(tool_dir(tmp_path) / "tool"): FakeProgram()})
    if launched is not None:
        launched.append(launcher)
    env = {"PATH": str(tmp_path / "bin"), "HOME": str(tmp_path)}
    return CliSessionStarter(
        project, "project-id", launcher, clis or {}, base_env=env, tool_timeout_s=42
    )


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX executables")
@pytest.mark.parametrize(
    ("mcp", "expect_arg", "expect_env", "file_name"),
    [
        (McpFlag("--mcp-config"), "--mcp-config=", None, "mcp.json"),
        (McpEnv("TOOL_MCP"), None, "TOOL_MCP", "mcp.json"),
        (McpConfigFile("servers.json"), None, None, "servers.json"),
    ],
)
async def test_terminal_gets_declaration_context_and_pid_record(
    project, tmp_path, mcp, expect_arg, expect_env, file_name
):
    launchers = []
    start = starter(project, tmp_path, launchers)
    before = snapshot(project.root)
    profile = Profile(name="tool", command=("tool", "--fancy"), mcp=mcp)
    session = await start.start_terminal(AGENT, profile, rows=30, cols=100)
    spec = launchers[0].sessions[0].spec

    run_dir = project.run_dir("dev")
    declaration = run_dir / file_name
    server = json.loads(declaration.read_text(encoding="utf-8"))["mcpServers"]["idea"]
    assert server["command"] == sys.executable
    args = server["args"]
    assert args[:3] == ["-m", "idea", "mcp-server"]
    assert args[args.index("--endpoint") + 1] == mcp_endpoint("project-id", str(project.root))
    assert args[args.index("--requester") + 1] == "agent-1"
    # The agent's own key, derived from the project secret, not the secret itself.
    key_file = Path(args[args.index("--key-file") + 1])
    assert key_file == (run_dir / "mcp.key").resolve()
    secret = ensure_project_key(project.mcp_key)
    assert key_file.read_bytes() == loopback.agent_key(secret, "agent-1") != secret
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600

    assert spec.argv[0] == str(tmp_path / "bin" / "tool")
    assert spec.argv[1] == "--fancy"
    if expect_arg:
        assert f"{expect_arg}{declaration}" in spec.argv
    if expect_env:
        assert spec.env[expect_env] == str(declaration)
    assert spec.cwd == str(project.root)
    assert (spec.rows, spec.cols) == (30, 100)
    context = Path(spec.env["IDEA_AGENT_CONTEXT_FILE"])
    assert context.read_text(encoding="utf-8") == "Be brief ✓\n"
    assert context.parent == run_dir
    created = snapshot(project.root) - before
    assert all(p.startswith(".ideai") for p in created), created
    await session.stop()


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX executables")
async def test_structured_spec_and_pid_records(project, tmp_path):
    seen: list[StructuredSpec] = []

    async def start_fake(spec):
        seen.append(spec)
        session = FakeAgentSession(conversation_id="c-9")
        session.pids = lambda: [os.getpid()]
        return session

    start = starter(
        project,
        tmp_path,
        clis={AdapterKind.CLAUDE: CliAdapter(start_fake, claude_terminal, probe_claude_mcp)},
    )
    profile = Profile(
        name="tool",
        command=("tool", "--permission-mode", "acceptEdits"),
        structured=AdapterKind.CLAUDE,
        mcp=McpFlag("x"),
    )
    session = await start.start_structured(AGENT, profile, resume_conversation_id="c-9")
    spec = seen[0]
    assert spec.program == (str(tmp_path / "bin" / "tool"),)
    assert spec.args == ("--permission-mode", "acceptEdits")
    assert spec.cwd == str(project.root)
    assert spec.run_dir == str(project.run_dir("dev"))
    assert spec.context == AGENT.context
    assert spec.resume_conversation_id == "c-9"
    assert spec.tool_timeout_s == 42
    assert spec.mcp is not None
    assert spec.mcp.args[spec.mcp.args.index("--endpoint") + 1] == mcp_endpoint(
        "project-id", str(project.root)
    )
    assert [r.pid for r in read_pid_records(project.run_dir("dev"))] == [os.getpid()]
    await session.shutdown()


async def test_the_agents_permission_mode_reaches_its_spec_and_a_foreign_one_is_refused(
    project, tmp_path
):
    seen: list[StructuredSpec] = []

    async def start_fake(spec):
        seen.append(spec)
        return FakeAgentSession()

    start = starter(
        project,
        tmp_path,
        clis={AdapterKind.CLAUDE: CliAdapter(start_fake, claude_terminal, probe_claude_mcp)},
    )
    profile = Profile(name="tool", command=("tool",), structured=AdapterKind.CLAUDE)
    agent = replace(AGENT, permission_mode="plan", model="haiku")
    session = await start.start_structured(agent, profile, resume_conversation_id=None)
    assert (seen[0].permission_mode, seen[0].model) == ("plan", "haiku")
    await session.shutdown()
    # A hand-written agent file naming a mode this CLI lacks: refused before anything runs.
    with pytest.raises(Invalid, match="permission_mode") as err:
        await start.start_structured(replace(AGENT, permission_mode="yolo"), profile, None)
    assert err.value.field == "permission_mode"
    assert len(seen) == 1


async def test_missing_cli_is_unavailable_naming_it(project, tmp_path):
    start = starter(project, tmp_path)
    with pytest.raises(Unavailable) as err:
        await start.start_terminal(AGENT, Profile(name="tool", command=("nope",)), 24, 80)
    assert "nope" in err.value.message


async def test_no_mcp_capability_writes_no_declaration(project, tmp_path):
    launchers = []
    start = starter(project, tmp_path, launchers)
    session = await start.start_terminal(AGENT, Profile(name="tool", command=("tool",)), 24, 80)
    assert not (project.run_dir("dev") / "mcp.json").exists()
    assert "IDEA_MCP_CONFIG" not in launchers[0].sessions[0].spec.env
    await session.stop()


def test_declaration_merge_keeps_the_users_servers(tmp_path):
    path = tmp_path / ".mcp.json"
    path.write_text(
        json.dumps({"mcpServers": {"mine": {"command": "x"}}, "other": 1}), encoding="utf-8"
    )
    write_declaration(path, {"command": "idea", "args": ["mcp-server"]})
    write_declaration(path, {"command": "idea2", "args": []})
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["mcpServers"]["mine"] == {"command": "x"}
    assert data["mcpServers"]["idea"] == {"command": "idea2", "args": []}
    assert data["other"] == 1
