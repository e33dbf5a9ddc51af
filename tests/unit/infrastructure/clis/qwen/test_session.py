"""Qwen Code's command line and declaration: the flags of the stream-json session, an MCP file in
the run dir that needs no approval prompt, and the same injection for the TUI."""

import json
from pathlib import Path

import pytest

from idea.application.session_ports import McpServerEntry, StructuredSpec
from idea.domain.errors import Invalid
from idea.domain.profile import AdapterKind
from idea.infrastructure.clis.qwen.session import QwenSession, start_qwen_session
from idea.infrastructure.clis.qwen.terminal import qwen_terminal


def spec(tmp_path: Path, **changes) -> StructuredSpec:
    project = tmp_path / "project"
    run_dir = project / ".ideai" / "run" / "dev"
    run_dir.mkdir(parents=True, exist_ok=True)
    values = {
        "kind": AdapterKind.QWEN,
        "program": ("/usr/bin/node", "/opt/qwen/cli-entry.js"),
        "cwd": str(project),
        "run_dir": str(run_dir),
        "env": {"HOME": str(tmp_path / "home")},
        "context": "You are « dev ».\nLine 2",
        "mcp": McpServerEntry("/opt/idea", ("mcp-server", "--endpoint", "e"), {"K": "v"}),
        "tool_timeout_s": 600,
        "model": "qwen3-coder",
    }
    values.update(changes)
    return StructuredSpec(**values)


def test_a_session_speaks_stream_json_with_the_run_dirs_declaration(tmp_path):
    s = spec(tmp_path)
    session = QwenSession(s)
    session._mcp_file = session._write_declaration()
    declaration = Path(s.run_dir) / "mcp.json"
    assert session._argv(None) == [
        "/usr/bin/node",
        "/opt/qwen/cli-entry.js",
        "--input-format=stream-json",
        "--output-format=stream-json",
        f"--mcp-config={declaration}",
        f"--append-system-prompt={s.context}",
        "--model=qwen3-coder",
    ]
    assert session._argv("0b9a3f7e-1c2d-4e5f-8a9b-0c1d2e3f4a5b")[-1] == (
        "--resume=0b9a3f7e-1c2d-4e5f-8a9b-0c1d2e3f4a5b"
    )
    server = json.loads(declaration.read_text("utf-8"))["mcpServers"]["idea"]
    assert (server["command"], server["args"], server["env"]) == (
        "/opt/idea",
        list(s.mcp.args),
        {"K": "v"},
    )
    # Tools run without a prompt, are offered at once, and a long ask is not cut short.
    assert (server["trust"], server["alwaysLoadTools"]) == (True, True)
    assert server["timeout"] > s.tool_timeout_s * 1000


def test_without_a_declaration_no_mcp_flag_is_passed(tmp_path):
    s = spec(tmp_path, mcp=None, context="", model=None)
    session = QwenSession(s)
    session._mcp_file = session._write_declaration()
    assert session._argv(None)[2:] == ["--input-format=stream-json", "--output-format=stream-json"]
    assert not (Path(s.run_dir) / "mcp.json").exists()


def test_the_tui_gets_the_same_injection_and_nothing_lands_in_the_project(tmp_path):
    s = spec(tmp_path)
    injection = qwen_terminal(s)
    assert injection.args == (
        f"--mcp-config={Path(s.run_dir) / 'mcp.json'}",
        f"--append-system-prompt={s.context}",
        "--model=qwen3-coder",
    )
    assert (injection.env, injection.cwd) == ({}, None)
    project = Path(s.cwd)
    assert [p for p in project.rglob("*") if not p.is_relative_to(project / ".ideai")] == []


async def test_a_spec_of_another_kind_is_refused(tmp_path):
    with pytest.raises(Invalid):
        await start_qwen_session(spec(tmp_path, kind=AdapterKind.GEMINI))
