"""`idea doctor` against the REAL pinned CLIs, offline against the scripted model: every CLI
passes (version, structured start, IdeA's MCP tools visible without a model turn, and with
`--live` one turn that calls idea_list_agents); a `claude` wrapper that drops IdeA's MCP server
is named as the cause, with what to do, and the exit status says it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.test_real_delegation import offline_environment
from tests.real_cli import clis
from tests.real_cli.mock_model import MockModel, Request, ToolCall, last_tool_result, tools_offered

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not clis.real_cli_available("gemini"), reason=str(clis.missing_reason("gemini"))
    ),
]

LIST_TOOL = {
    "claude": "mcp__idea__idea_list_agents",
    "codex": "mcp__idea__idea_list_agents",
    "gemini": "mcp_idea_idea_list_agents",
    "qwen": "mcp__idea__idea_list_agents",
    "opencode": "idea_idea_list_agents",
}
PINNED = json.loads((clis.HERE / "package.json").read_text(encoding="utf-8"))["dependencies"]
VERSIONS = {
    "claude": PINNED["@anthropic-ai/claude-code"],
    "codex": PINNED["@openai/codex"],
    "gemini": PINNED["@google/gemini-cli"],
    "qwen": PINNED["@qwen-code/qwen-code"],
    "opencode": PINNED["opencode-ai"],
}


def which_cli(request: Request) -> str:
    """Whose turn: by the API of the mock it uses, then (Chat Completions) by the name the CLI
    gives IdeA's tools."""
    if "generateContent" in request.path or "streamGenerateContent" in request.path:
        return "gemini"
    if "/v1/messages" in request.path:
        return "claude"
    if request.api == "chat":
        return "qwen" if LIST_TOOL["qwen"] in tools_offered(request) else "opencode"
    return "codex"


def respond(request: Request):
    cli = which_cli(request)
    if last_tool_result(request) is None:
        return ToolCall(LIST_TOOL[cli], {})
    return "done"


@pytest.fixture
def mock():
    model = MockModel(respond=respond).start()
    yield model
    model.stop()


def doctor(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "idea", "doctor", "--json", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=420,
        check=False,
    )


def environment(mock: MockModel, tmp_path: Path) -> dict[str, str]:
    env = offline_environment(mock, tmp_path)
    env["IDEA_CONFIG_DIR"] = str(tmp_path / "config")
    return env


@pytest.mark.timeout(480)
def test_every_installed_cli_passes_and_live_turns_call_idea_list_agents(mock, tmp_path):
    env = environment(mock, tmp_path)
    folder = tmp_path / "somewhere"
    folder.mkdir()
    quiet = doctor(env, folder)
    assert quiet.returncode == 0, quiet.stderr
    assert mock.turns == [], "without --live no model turn is spent"
    rows = {row["profile"]: row for row in json.loads(quiet.stdout)}
    for cli, version in VERSIONS.items():
        assert (rows[cli]["version"], rows[cli]["structured"], rows[cli]["mcp"]) == (
            version,
            "ok",
            "ok",
        ), rows[cli]
    assert rows["shell"]["structured"] == "skipped"
    assert not (folder / ".ideai").exists()  # the checks ran in a scratch project

    live = doctor(env, folder, "--live")
    assert live.returncode == 0, live.stderr
    rows = {row["profile"]: row for row in json.loads(live.stdout)}
    assert {cli: rows[cli]["live"] for cli in VERSIONS} == dict.fromkeys(VERSIONS, "ok")
    assert {which_cli(r) for r in mock.turns} == set(VERSIONS)
    remembered = json.loads((tmp_path / "config" / "cli-versions.json").read_text("utf-8"))
    assert {cli: remembered[cli]["version"] for cli in VERSIONS} == VERSIONS


@pytest.mark.timeout(300)
def test_a_claude_wrapper_that_drops_ideas_mcp_server_is_named_with_the_fix(mock, tmp_path):
    env = environment(mock, tmp_path)
    shim_dir = tmp_path / "shim"
    shim_dir.mkdir()
    real = clis.claude_executable()
    shim = shim_dir / "claude"
    shim.write_text(
        "#!/bin/sh\n"
        "# A wrapper of the user's: it drops every MCP flag before running the real CLI.\n"
        'for a do shift; case "$a" in --mcp-config=*|--strict-mcp-config) ;; '
        '*) set -- "$@" "$a";; esac; done\n'
        f'exec "{real}" "$@"\n',
        encoding="utf-8",
    )
    shim.chmod(0o755)
    env["PATH"] = os.pathsep.join([str(shim_dir), env["PATH"]])
    out = doctor(env, tmp_path)
    assert out.returncode == 1, out.stdout
    rows = {row["profile"]: row for row in json.loads(out.stdout)}
    assert (rows["claude"]["structured"], rows["claude"]["mcp"]) == ("ok", "error")
    assert rows["claude"]["runs"] == [str(shim)]
    assert {cli: rows[cli]["mcp"] for cli in VERSIONS if cli != "claude"} == dict.fromkeys(
        set(VERSIONS) - {"claude"}, "ok"
    )
    (failure,) = [line for line in out.stderr.splitlines() if line.startswith("FAIL ")]
    assert failure.startswith("FAIL claude: IdeA's MCP tools are not visible to it")
    assert "wrapper" in failure
