"""What OpenCode gets from IdeA: a run-dir config named by ``OPENCODE_CONFIG`` (IdeA's server, the
context file), the same for the TUI, nothing in the project; and how ``mcp list`` is read."""

import json
from pathlib import Path

import pytest

from idea.application.session_ports import McpServerEntry, StructuredSpec
from idea.domain.errors import Invalid, Unavailable
from idea.domain.profile import AdapterKind
from idea.infrastructure.clis.opencode.session import connected_line, start_opencode_session
from idea.infrastructure.clis.opencode.terminal import opencode_terminal


def spec(tmp_path: Path, **changes) -> StructuredSpec:
    project = tmp_path / "project"
    run_dir = project / ".ideai" / "run" / "dev"
    run_dir.mkdir(parents=True, exist_ok=True)
    values = {
        "kind": AdapterKind.OPENCODE,
        "program": ("/bin/true",),
        "cwd": str(project),
        "run_dir": str(run_dir),
        "env": {"HOME": str(tmp_path / "home")},
        "context": "You are « dev ».",
        "mcp": McpServerEntry("/opt/idea", ("mcp-server", "--endpoint", "e"), {"K": "v"}),
        "tool_timeout_s": 600,
        "model": "mock/m1",
    }
    values.update(changes)
    return StructuredSpec(**values)


def test_the_tui_reads_the_run_dirs_config_and_nothing_lands_in_the_project(tmp_path):
    s = spec(tmp_path)
    injection = opencode_terminal(s)
    config_file = Path(s.run_dir) / "opencode.json"
    assert injection.env == {"OPENCODE_CONFIG": str(config_file)}
    assert (injection.args, injection.cwd) == (("--model=mock/m1",), None)
    config = json.loads(config_file.read_text("utf-8"))
    server = config["mcp"]["idea"]
    assert server["type"] == "local"
    assert server["command"] == ["/opt/idea", "mcp-server", "--endpoint", "e"]
    assert (server["environment"], server["enabled"]) == ({"K": "v"}, True)
    assert server["timeout"] > s.tool_timeout_s * 1000  # an ask may wait that long
    context = Path(s.run_dir) / "CONTEXT.md"
    assert config["instructions"] == [str(context)]
    assert context.read_text("utf-8") == "You are « dev ».\n"
    project = Path(s.cwd)
    assert [p for p in project.rglob("*") if not p.is_relative_to(project / ".ideai")] == []


def test_without_declaration_or_context_the_config_is_empty(tmp_path):
    s = spec(tmp_path, mcp=None, context="", model=None)
    assert opencode_terminal(s).args == ()
    config = json.loads((Path(s.run_dir) / "opencode.json").read_text("utf-8"))
    assert set(config) == {"$schema"}


async def test_a_spec_of_another_kind_or_a_missing_program_is_refused(tmp_path):
    with pytest.raises(Invalid):
        await start_opencode_session(spec(tmp_path, kind=AdapterKind.QWEN))
    with pytest.raises(Unavailable):
        await start_opencode_session(spec(tmp_path, program=(str(tmp_path / "none"),)))


LISTING = (
    "┌  MCP Servers\n│\n●  ✓ other \x1b[90mconnected\n│      \x1b[90m/bin/x\n"
    "●  ✓ idea \x1b[90mconnected\n│      \x1b[90m/opt/idea mcp-server\n│\n└  2 server(s)\n"
)


def test_mcp_list_passes_on_ideas_connected_line():
    assert connected_line(LISTING) == "✓ idea connected"


@pytest.mark.parametrize(
    ("output", "said"),
    [
        ("●  ✗ idea \x1b[90mfailed\n│      \x1b[90mConnection closed\n", "✗ idea failed"),
        ("┌  MCP Servers\n│\n└  0 server(s)\n", "'idea' is not listed"),
    ],
)
def test_mcp_list_otherwise_says_what_it_printed(output, said):
    with pytest.raises(Unavailable) as err:
        connected_line(output)
    assert said in err.value.message
