"""Profiles: how to run one kind of agent CLI.

A profile says how to start the CLI in a terminal, which structured adapter (if any) drives it as
a chat, how it receives an MCP server declaration, and where injected context goes. Built-ins can
be overridden field by field, or new profiles added, by ``.ideai/profiles.json``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum

from idea.domain.errors import Invalid
from idea.domain.json_types import JsonObject, JsonValue
from idea.domain.names import validate_slug


class Mode(StrEnum):
    TERMINAL = "terminal"
    STRUCTURED = "structured"


class AdapterKind(StrEnum):
    """Structured protocols IdeA can drive (protocols/AGENT_CLI_PROTOCOLS.md)."""

    CLAUDE = "claude"
    CODEX = "codex"
    GEMINI = "gemini"
    QWEN = "qwen"
    OPENCODE = "opencode"


# What an agent may set as its ``permission_mode`` for each CLI: Claude's ``--permission-mode``;
# Codex's sandbox (a headless Codex turn never waits for an approval, so the sandbox is the whole
# choice). No value: as the CLI is set up (IdeA's headless Codex: ``workspace-write``).
PERMISSION_MODES: dict[AdapterKind, tuple[str, ...]] = {
    AdapterKind.CLAUDE: ("default", "acceptEdits", "plan", "bypassPermissions"),
    AdapterKind.CODEX: ("read-only", "workspace-write", "danger-full-access"),
}
# Model names a CLI takes whatever its version (Claude's aliases); any other CLI: free text.
KNOWN_MODELS: dict[AdapterKind, tuple[str, ...]] = {
    AdapterKind.CLAUDE: ("sonnet", "opus", "haiku"),
}


@dataclass(frozen=True, slots=True)
class McpConfigFile:
    """The CLI reads a declaration file from its run dir (merged, never clobbered)."""

    file_name: str


@dataclass(frozen=True, slots=True)
class McpFlag:
    """The declaration file's path is passed by a flag (``--mcp-config=<file>``)."""

    flag: str


@dataclass(frozen=True, slots=True)
class McpEnv:
    """The declaration file's path is passed in an environment variable."""

    var: str


McpCapability = McpConfigFile | McpFlag | McpEnv


@dataclass(frozen=True, slots=True)
class Profile:
    name: str
    command: tuple[str, ...]
    structured: AdapterKind | None = None
    mcp: McpCapability | None = None
    context_file: str | None = None
    description: str = ""
    extra: JsonObject = field(default_factory=dict)

    @property
    def default_mode(self) -> Mode:
        return Mode.STRUCTURED if self.structured is not None else Mode.TERMINAL

    def supports(self, mode: Mode) -> bool:
        return mode is Mode.TERMINAL or self.structured is not None

    @property
    def permission_modes(self) -> tuple[str, ...]:
        return PERMISSION_MODES.get(self.structured, ()) if self.structured else ()

    @property
    def known_models(self) -> tuple[str, ...]:
        return KNOWN_MODELS.get(self.structured, ()) if self.structured else ()

    def check_permission_mode(self, value: str | None) -> None:
        """Raises ``Invalid`` (field ``permission_mode``) unless the profile's CLI has it."""
        if value is None or value in self.permission_modes:
            return
        if not self.permission_modes:
            raise Invalid(
                f"permission_mode: profile '{self.name}' has no permission modes", "permission_mode"
            )
        raise Invalid(
            f"permission_mode: profile '{self.name}' takes one of "
            f"{', '.join(self.permission_modes)}, not {value!r}",
            "permission_mode",
        )

    def to_json(self) -> JsonObject:
        out: JsonObject = dict(self.extra)
        out["command"] = list(self.command)
        out["structured"] = self.structured.value if self.structured else None
        out["mcp"] = _mcp_to_json(self.mcp)
        out["context_file"] = self.context_file
        out["description"] = self.description
        return out


_KNOWN_KEYS = {"command", "structured", "mcp", "context_file", "description"}


def profile_from_json(name: str, obj: JsonValue, base: Profile | None = None) -> Profile:
    """Build a profile from its ``profiles.json`` entry, each given field overriding ``base``.

    Raises ``Invalid`` naming the field (``profiles.<name>.<field>``).
    """
    validate_slug(name, "profile name")
    where = f"profiles.{name}"
    if not isinstance(obj, dict):
        raise Invalid(f"{where} must be an object")
    profile = base if base is not None else Profile(name=name, command=())
    profile = replace(profile, name=name)
    if "command" in obj:
        profile = replace(profile, command=_command(obj["command"], f"{where}.command"))
    if "structured" in obj:
        profile = replace(profile, structured=_adapter(obj["structured"], f"{where}.structured"))
    if "mcp" in obj:
        profile = replace(profile, mcp=_mcp_from_json(obj["mcp"], f"{where}.mcp"))
    if "context_file" in obj:
        context_file = _optional_str(obj["context_file"], f"{where}.context_file")
        if context_file is not None:
            _inside_run_dir(context_file, f"{where}.context_file")
        profile = replace(profile, context_file=context_file)
    if "description" in obj:
        profile = replace(
            profile, description=_optional_str(obj["description"], f"{where}.description") or ""
        )
    extra = {k: v for k, v in obj.items() if k not in _KNOWN_KEYS}
    profile = replace(profile, extra={**profile.extra, **extra})
    if not profile.command:
        raise Invalid(f"{where}.command is required for a new profile")
    return profile


def _command(value: JsonValue, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
        raise Invalid(f"{where} must be a non-empty list of strings")
    return tuple(str(v) for v in value)


def _adapter(value: JsonValue, where: str) -> AdapterKind | None:
    if value is None:
        return None
    try:
        return AdapterKind(str(value))
    except ValueError:
        known = ", ".join(k.value for k in AdapterKind)
        raise Invalid(f"{where} must be one of {known} or null, not {value!r}") from None


def _optional_str(value: JsonValue, where: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise Invalid(f"{where} must be a string or null")


def _mcp_from_json(value: JsonValue, where: str) -> McpCapability | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise Invalid(f"{where} must be an object or null")
    kind = value.get("kind")
    arg_name = {"config_file": "file", "flag": "flag", "env": "var"}.get(str(kind))
    if arg_name is None:
        raise Invalid(f"{where}.kind must be one of config_file, flag, env")
    arg = value.get(arg_name)
    if not isinstance(arg, str) or not arg:
        raise Invalid(f"{where}.{arg_name} must be a non-empty string")
    if kind == "config_file":
        _inside_run_dir(arg, f"{where}.file")
        return McpConfigFile(arg)
    if kind == "flag":
        return McpFlag(arg)
    return McpEnv(arg)


def _inside_run_dir(relative: str, where: str) -> None:
    """A file IdeA writes for the profile stays inside the agent's run dir: no absolute path, no
    drive, no ``..`` (a cloned project could otherwise write, or merge into, any file)."""
    parts = relative.replace("\\", "/").split("/")
    absolute = relative.startswith(("/", "\\")) or (len(relative) > 1 and relative[1] == ":")
    if absolute or ".." in parts or not relative.strip() or "\0" in relative:
        raise Invalid(f"{where} must be a relative path inside the agent's run dir: {relative!r}")


def _mcp_to_json(mcp: McpCapability | None) -> JsonValue:
    match mcp:
        case None:
            return None
        case McpConfigFile(file_name):
            return {"kind": "config_file", "file": file_name}
        case McpFlag(flag):
            return {"kind": "flag", "flag": flag}
        case McpEnv(var):
            return {"kind": "env", "var": var}
