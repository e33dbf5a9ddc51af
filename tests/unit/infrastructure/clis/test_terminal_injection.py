import json
import tomllib
from dataclasses import replace
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from idea.application.session_ports import McpServerEntry, StructuredSpec
from idea.domain.profile import AdapterKind
from idea.infrastructure.clis.claude.session import claude_argv
from idea.infrastructure.clis.claude.terminal import claude_terminal
from idea.infrastructure.clis.codex.terminal import codex_terminal
from idea.infrastructure.clis.codex.toml_values import toml_value
from idea.infrastructure.clis.gemini.terminal import gemini_terminal

WINDOWS_EXE = r"C:\tools\new\idea.exe"

toml_scalars = (
    st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(blacklist_categories=("Cs",)))
)
toml_values = st.recursive(
    toml_scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(min_size=1, max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)


@given(toml_values)
def test_toml_values_parse_back_identically(value):
    assert tomllib.loads(f"k = {toml_value(value)}")["k"] == value


def test_windows_path_survives_as_a_literal_string():
    assert toml_value(WINDOWS_EXE) == f"'{WINDOWS_EXE}'"
    assert tomllib.loads(f"k = {toml_value(WINDOWS_EXE)}")["k"] == WINDOWS_EXE


def spec(tmp_path: Path, kind: AdapterKind) -> StructuredSpec:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    run_dir = project / ".ideai" / "run" / "dev"
    run_dir.mkdir(parents=True, exist_ok=True)
    return StructuredSpec(
        kind=kind,
        program=("/bin/true",),
        cwd=str(project),
        run_dir=str(run_dir),
        env={"HOME": str(tmp_path / "home")},
        context="Tu es « dev ».\nLine 2 with 'quotes' and \\backslash",
        mcp=McpServerEntry(WINDOWS_EXE, ("mcp-server", "--endpoint", r"\\.\pipe\idea-x"), {}),
        tool_timeout_s=600,
    )


def test_claude_tui_gets_flags_and_declaration(tmp_path):
    s = spec(tmp_path, AdapterKind.CLAUDE)
    injection = claude_terminal(s)
    declaration = Path(s.run_dir) / "mcp.json"
    assert f"--mcp-config={declaration}" in injection.args
    assert "--strict-mcp-config" in injection.args
    assert "--allowedTools=mcp__idea" in injection.args
    assert f"--append-system-prompt={s.context}" in injection.args
    server = json.loads(declaration.read_text(encoding="utf-8"))["mcpServers"]["idea"]
    assert server["command"] == WINDOWS_EXE
    assert server["alwaysLoad"] is True
    assert injection.cwd is None


def test_codex_tui_gets_config_overrides_that_parse_as_toml(tmp_path):
    s = spec(tmp_path, AdapterKind.CODEX)
    args = codex_terminal(s).args
    assert args[::2] == tuple("-c" for _ in args[::2])
    config: dict = {}
    for override in args[1::2]:
        key, _, value = override.partition("=")
        node = config
        *parents, leaf = key.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = tomllib.loads(f"v = {value}")["v"]
    assert config["developer_instructions"] == s.context
    server = config["mcp_servers"]["idea"]
    assert server["command"] == WINDOWS_EXE
    assert server["args"] == list(s.mcp.args)
    assert server["default_tools_approval_mode"] == "approve"
    assert server["tool_timeout_sec"] > 300


def test_claude_gets_the_agents_permission_mode_headless_and_in_its_tui(tmp_path):
    s = replace(spec(tmp_path, AdapterKind.CLAUDE), permission_mode="acceptEdits", model="opus")
    assert "--permission-mode=acceptEdits" in claude_terminal(s).args
    argv = claude_argv(s, ["claude"], None, None)
    assert "--permission-mode=acceptEdits" in argv
    assert argv.index("--permission-mode=acceptEdits") > argv.index("-p")
    plain = claude_argv(spec(tmp_path, AdapterKind.CLAUDE), ["claude"], None, None)
    assert not any(a.startswith("--permission-mode") for a in plain)


def test_codex_tui_gets_the_agents_permission_mode_as_its_sandbox(tmp_path):
    s = replace(spec(tmp_path, AdapterKind.CODEX), permission_mode="read-only")
    args = codex_terminal(s).args
    override = f"sandbox_mode={toml_value('read-only')}"
    assert args[args.index(override) - 1] == "-c"
    plain = codex_terminal(spec(tmp_path, AdapterKind.CODEX)).args
    assert not any(a.startswith("sandbox_mode") for a in plain)


def test_gemini_tui_runs_from_the_run_dir_with_trust(tmp_path):
    s = spec(tmp_path, AdapterKind.GEMINI)
    before = {p.name for p in Path(s.cwd).iterdir()}
    injection = gemini_terminal(s)
    assert injection.cwd == s.run_dir
    assert injection.env["GEMINI_CLI_TRUST_WORKSPACE"] == "true"
    settings = json.loads(
        (Path(s.run_dir) / ".gemini" / "settings.json").read_text(encoding="utf-8")
    )
    assert settings["mcpServers"]["idea"]["trust"] is True
    assert "dev" in (Path(s.run_dir) / "GEMINI.md").read_text(encoding="utf-8")
    assert {p.name for p in Path(s.cwd).iterdir()} == before
