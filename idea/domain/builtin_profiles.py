"""The profiles IdeA knows without any configuration: claude, codex, gemini, qwen, opencode and
shell."""

from __future__ import annotations

from idea.domain.profile import AdapterKind, McpConfigFile, McpEnv, McpFlag, Profile

# The profile of an agent created without one (by a spawn, a first run, an ask to a new name).
DEFAULT_PROFILE = "claude"


def builtin_profiles(user_shell: str) -> dict[str, Profile]:
    """Built-ins; ``user_shell`` is the user's shell (``powershell`` on Windows)."""
    return {
        "claude": Profile(
            name="claude",
            command=("claude",),
            structured=AdapterKind.CLAUDE,
            mcp=McpFlag("--mcp-config"),
            description="Claude Code",
        ),
        "codex": Profile(
            name="codex",
            command=("codex",),
            structured=AdapterKind.CODEX,
            # Codex takes its MCP servers as config overrides (`-c mcp_servers.idea.*`).
            mcp=McpFlag("-c"),
            description="OpenAI Codex CLI",
        ),
        "gemini": Profile(
            name="gemini",
            command=("gemini",),
            structured=AdapterKind.GEMINI,
            mcp=McpConfigFile(".gemini/settings.json"),
            context_file="GEMINI.md",
            description="Gemini CLI",
        ),
        "qwen": Profile(
            name="qwen",
            command=("qwen",),
            structured=AdapterKind.QWEN,
            mcp=McpFlag("--mcp-config"),
            description="Qwen Code",
        ),
        "opencode": Profile(
            name="opencode",
            command=("opencode",),
            structured=AdapterKind.OPENCODE,
            # OpenCode merges the config file named by $OPENCODE_CONFIG into the user's own.
            mcp=McpEnv("OPENCODE_CONFIG"),
            description="OpenCode",
        ),
        "shell": Profile(
            name="shell",
            command=(user_shell,),
            description="A plain shell",
        ),
    }


def builtin_profile_names() -> tuple[str, ...]:
    """The built-ins' names, in the order users are told them (CLI help, MCP tool descriptions)."""
    return tuple(builtin_profiles(user_shell="sh"))
