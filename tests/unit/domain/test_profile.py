import pytest

from idea.domain.builtin_profiles import builtin_profiles
from idea.domain.errors import Invalid
from idea.domain.profile import (
    AdapterKind,
    McpConfigFile,
    McpEnv,
    McpFlag,
    Mode,
    profile_from_json,
)


def test_builtins_cover_the_four_clis():
    profiles = builtin_profiles("/bin/zsh")
    assert set(profiles) == {"claude", "codex", "gemini", "qwen", "opencode", "shell"}
    assert profiles["shell"].command == ("/bin/zsh",)
    assert profiles["shell"].default_mode is Mode.TERMINAL
    assert not profiles["shell"].supports(Mode.STRUCTURED)
    assert profiles["claude"].structured is AdapterKind.CLAUDE
    assert profiles["claude"].default_mode is Mode.STRUCTURED


def test_project_entry_overrides_fields_of_a_builtin():
    base = builtin_profiles("/bin/sh")["claude"]
    custom = profile_from_json("claude", {"command": ["/opt/claude"], "x-note": "mine"}, base)
    assert custom.command == ("/opt/claude",)
    assert custom.structured is AdapterKind.CLAUDE
    assert custom.mcp == base.mcp
    assert custom.to_json()["x-note"] == "mine"


@pytest.mark.parametrize(
    ("mcp", "expected"),
    [
        ({"kind": "config_file", "file": ".mcp.json"}, McpConfigFile(".mcp.json")),
        ({"kind": "flag", "flag": "--mcp-config"}, McpFlag("--mcp-config")),
        ({"kind": "env", "var": "MCP_CONFIG"}, McpEnv("MCP_CONFIG")),
        (None, None),
    ],
)
def test_mcp_capabilities_parse_and_render(mcp, expected):
    profile = profile_from_json("aider", {"command": ["aider"], "mcp": mcp})
    assert profile.mcp == expected
    assert profile.to_json()["mcp"] == mcp
    assert profile_from_json("aider", profile.to_json()) == profile


@pytest.mark.parametrize(
    ("entry", "field"),
    [
        ({}, "command"),
        ({"command": []}, "command"),
        ({"command": ["x"], "structured": "cursor"}, "structured"),
        ({"command": ["x"], "mcp": {"kind": "socket"}}, "mcp.kind"),
        ({"command": ["x"], "mcp": {"kind": "flag"}}, "mcp.flag"),
        ({"command": ["x"], "context_file": 3}, "context_file"),
    ],
)
def test_bad_entries_name_the_field(entry, field):
    with pytest.raises(Invalid) as err:
        profile_from_json("aider", entry)
    assert f"profiles.aider.{field}" in err.value.message


@pytest.mark.parametrize(
    "path",
    [
        "../../../.bashrc",
        "/etc/passwd",
        "a/../../b",
        "..\\..\\x",
        "C:\\Users\\x\\.mcp.json",
        "\\\\server\\share",
        "",
        "   ",
    ],
)
@pytest.mark.parametrize("field", ["context_file", "mcp"])
def test_a_profile_file_path_outside_the_run_dir_is_invalid_naming_the_field(path, field):
    entry = {"command": ["tool"]}
    if field == "mcp":
        entry["mcp"] = {"kind": "config_file", "file": path}
        where = "profiles.tool.mcp.file"
    else:
        entry["context_file"] = path
        where = "profiles.tool.context_file"
    with pytest.raises(Invalid, match=where.replace(".", r"\.")):
        profile_from_json("tool", entry)


def test_a_relative_path_inside_the_run_dir_is_kept():
    entry = {
        "command": ["tool"],
        "context_file": "sub/CONTEXT.md",
        "mcp": {"kind": "config_file", "file": ".tool/servers.json"},
    }
    profile = profile_from_json("tool", entry)
    assert profile.context_file == "sub/CONTEXT.md"
    assert profile.mcp == McpConfigFile(".tool/servers.json")
