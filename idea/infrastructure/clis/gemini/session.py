"""Gemini CLI driven turn by turn: one ``gemini --prompt=… --output-format=stream-json`` per turn.

Invariant: everything IdeA injects lives in the agent's run dir, nothing is written into the
user's project. Gemini 0.61 reads MCP servers only from settings files and has no flag for them:
the user settings (``~/.gemini``, shared by every project and holding the auth), the system
settings (``GEMINI_CLI_SYSTEM_SETTINGS_PATH`` can point elsewhere, but the CLI skips the file
unless root owns it and every folder above it, none writable by group or others) and the
workspace settings ``<cwd>/.gemini/settings.json``, read because ``GEMINI_CLI_TRUST_WORKSPACE``
is set (``--skip-trust`` does not load them). So the CLI runs with **cwd = the run dir**, whose
``.gemini/settings.json`` declares the ``idea`` server (``trust: true``: its tools are offered and
run without a prompt) and adds the project root to the workspace (``context.includeDirectories``).

What the agent sees: two workspace folders, the run dir (its current directory, listed first) and
the project root. Context files are found in both: the run dir's ``GEMINI.md`` holds IdeA's context
and tells the agent that the project root is where it works; the project's own ``GEMINI.md`` files
still load. The project's ``.gemini/settings.json`` is shadowed by ours, so it is copied in first
(read, never written): its servers and settings still apply, the CLI still merges in the user's
servers, and only a server named ``idea`` is replaced by IdeA's. Project-level ``.gemini/`` extras
(commands, policies, skills) are not seen from the run dir. The CLI expands ``$VAR`` in settings
values, so the declared command and args must not contain ``$``. ``HOME`` is left alone.

Sessions: the first turn passes ``--session-id=<uuid we chose>``, later turns ``--resume=<uuid>``.
An interrupt kills the turn's process tree (SIGHUP first: the CLI runs its exit cleanup and exits,
not finishing what it was doing); the next turn resumes the session. A resumed run wipes the history
from the session's file for a moment (``chats.py``), so before each resumed run a copy of the file
that resumes it is kept in the run dir's ``.gemini/session-backup/`` and put back if a stopped run
left none. If a resume is still refused before the run starts (exit 42: a killed first turn left
nothing to resume, or the CLI lost the session), the turn is run again once under a fresh id. The
CLI files sessions under its cwd, so they belong to the run dir: ``gemini --list-sessions`` at the
project root does not list them.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import logging
import os
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from idea.application.session_ports import AgentSession, StructuredSpec
from idea.domain.errors import AgentFailed, IdeaError, Invalid, Unavailable
from idea.domain.json_types import JsonObject, JsonValue
from idea.infrastructure.clis.console_text import strip_ansi
from idea.infrastructure.clis.declaration import MCP_SERVER_NAME, mcp_request_timeout_ms
from idea.infrastructure.clis.gemini.chats import SessionKeeper
from idea.infrastructure.clis.gemini.stream import (
    GeminiInit,
    GeminiItem,
    GeminiNotice,
    GeminiStreamParser,
)
from idea.infrastructure.clis.mcp_list import connected_line, run_mcp_list
from idea.infrastructure.clis.ndjson import OverlongLine
from idea.infrastructure.clis.turn_session import TurnSession
from idea.infrastructure.files.atomic import make_folder, write_atomic
from idea.infrastructure.files.json_document import encode_json
from idea.infrastructure.processes.cli_process import CliProcess

__all__ = ["GeminiSession", "build_settings", "context_text", "start_gemini_session"]

log = logging.getLogger(__name__)

CONTEXT_FILE = "GEMINI.md"
SETTINGS_DIR = ".gemini"
SETTINGS_FILE = "settings.json"
BACKUP_DIR = "session-backup"  # in the run dir's SETTINGS_DIR
TRUST_ENV = "GEMINI_CLI_TRUST_WORKSPACE"
# A finished turn's process still saves its session before it exits; the next one waits for it.
PREVIOUS_EXIT_WAIT_S = 10.0
EXIT_INPUT_ERROR = 42

_EXIT_MEANINGS = {
    0: "exited without reporting a result",
    1: "failed",
    41: "could not authenticate (set security.auth.selectedType in ~/.gemini/settings.json "
    "or provide an API key)",
    42: "rejected its input",
    44: "could not start its sandbox",
    52: "found its configuration invalid",
    53: "reached its session turn limit",
    54: "failed running a tool",
    55: "refused to run in an untrusted folder",
    130: "was cancelled",
}
# Strings are matched first so that "//" inside a value is kept.
_JSON_COMMENT = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.DOTALL)
_TAIL_LINES = 12
_TAIL_CHARS = 2000


async def start_gemini_session(
    spec: StructuredSpec, *, program: Sequence[str] | None = None
) -> GeminiSession:
    """Write the run dir's settings and context, and return the session (no process runs yet).

    ``program`` replaces ``spec.program`` as the start of the command line (e.g.
    ``[node, gemini.js]`` on Windows, or a fake CLI in tests). Raises ``Unavailable`` if the
    program is not an executable file, ``Internal`` if the run dir cannot be written.
    """
    argv0 = tuple(program) if program else spec.program
    if not (os.path.isfile(argv0[0]) and os.access(argv0[0], os.X_OK)):
        raise Unavailable(f"the Gemini CLI is not installed at {argv0[0]}")
    prepare_run_dir(spec)
    return GeminiSession(spec, argv0)


def prepare_run_dir(spec: StructuredSpec) -> None:
    """Write ``GEMINI.md`` and ``.gemini/settings.json`` into the run dir, atomically."""
    run_dir = Path(spec.run_dir)
    make_folder(run_dir / SETTINGS_DIR)
    write_atomic(run_dir / CONTEXT_FILE, context_text(spec))
    project = _read_settings(Path(spec.cwd) / SETTINGS_DIR / SETTINGS_FILE)
    user = _read_settings(_gemini_home(spec) / SETTINGS_DIR / SETTINGS_FILE)
    write_atomic(
        run_dir / SETTINGS_DIR / SETTINGS_FILE, encode_json(build_settings(spec, project, user))
    )


def context_text(spec: StructuredSpec) -> str:
    where = (
        f"You are working on the project in {spec.cwd}: read, edit and run commands there. "
        f"Your current directory, {spec.run_dir}, only holds what IdeA set up for you."
    )
    extra = spec.context.strip()
    return f"{where}\n\n{extra}\n" if extra else f"{where}\n"


def build_settings(spec: StructuredSpec, project: JsonObject, user: JsonObject) -> JsonObject:
    """The run dir's workspace settings: the project's own settings plus what IdeA injects."""
    settings = copy.deepcopy(project)
    if spec.mcp is not None:
        servers = settings.get("mcpServers")
        servers = dict(servers) if isinstance(servers, dict) else {}
        servers[MCP_SERVER_NAME] = {
            "command": spec.mcp.command,
            "args": list(spec.mcp.args),
            "env": dict(spec.mcp.env),
            "trust": True,
            "timeout": mcp_request_timeout_ms(spec.tool_timeout_s),
        }
        settings["mcpServers"] = servers
    # A setting rather than --include-directories: that flag splits its value on commas.
    context = _object(settings.get("context"))
    # Relative entries were meant from the project root, not from the run dir.
    dirs: list[JsonValue] = [
        _from_root(entry, spec.cwd)
        for entry in _list(context.get("includeDirectories"))
        if isinstance(entry, str)
    ]
    if spec.cwd not in dirs:
        dirs.append(spec.cwd)
    context["includeDirectories"] = dirs
    # A custom context file name replaces GEMINI.md: keep the user's names and add ours.
    names = context.get("fileName") or _object(user.get("context")).get("fileName")
    if names:
        listed = _list(names)
        if CONTEXT_FILE not in listed:
            context["fileName"] = [*listed, CONTEXT_FILE]
    settings["context"] = context
    return settings


@dataclass(eq=False)
class _Run:
    """One process of a turn (a turn has two when a refused resume is retried)."""

    prompt: str
    resumed: bool
    parser: GeminiStreamParser
    proc: CliProcess | None = None
    saw_init: bool = False


class GeminiSession(TurnSession):
    def __init__(self, spec: StructuredSpec, program: Sequence[str]) -> None:
        super().__init__(
            os.path.basename(os.path.normpath(spec.run_dir)) or "gemini", spec.replies_dir
        )
        self._spec = spec
        self._program = tuple(program)
        self._env = {**spec.env, TRUST_ENV: "true"}
        self._session_id = spec.resume_conversation_id or str(uuid.uuid4())
        # Once a run has used an id, the CLI may hold a session under it: --session-id with
        # that id would be refused, so every later run resumes it.
        self._used = spec.resume_conversation_id is not None
        self._set_conversation_id(spec.resume_conversation_id)
        self._keeper = SessionKeeper(
            _gemini_home(spec) / SETTINGS_DIR, Path(spec.run_dir) / SETTINGS_DIR / BACKUP_DIR
        )
        self._run: _Run | None = None
        self._previous: _Run | None = None
        self._retry: asyncio.Task[None] | None = None
        self._interrupted = False
        self._closing = False

    async def check_mcp_server(self, timeout: float = 60.0) -> str:
        """``gemini mcp list`` where the turns run: the line that says IdeA's server is
        ``Connected`` (the CLI connects and pings it; no model turn). Raises ``Unavailable``."""
        argv = (*self._program, "mcp", "list")
        output = await run_mcp_list("gemini", argv, self._spec.run_dir, self._env, timeout)
        return connected_line("gemini", output)

    def pids(self) -> list[int]:
        runs = (self._previous, self._run)
        return [r.proc.pid for r in runs if r and r.proc and r.proc.exit_code is None]

    async def _start_turn(self, prompt: str) -> None:
        if not prompt.strip():
            raise Invalid("an empty prompt cannot be sent to the Gemini CLI")
        # The session is busy before this runs: an interrupt may already have been asked for.
        self._interrupted = self._interrupt_asked
        # The last turn's process may still be saving its session after its result: the next
        # run must not race it. An interrupt meanwhile must not kill it either.
        if self._run is not None:  # a turn that spawned nothing leaves the last run as it is
            self._previous, self._run = self._run, None
        await self._wait_previous_exit()
        if self._closing:
            raise Unavailable(f"the session of {self.name} was shut down")
        if self._interrupted:
            raise AgentFailed(f"{self.name}: the turn was interrupted")
        if self._used:  # no run is writing the session now
            await asyncio.to_thread(self._keeper.prepare, self._session_id)
        await self._spawn(prompt)

    async def _interrupt_turn(self) -> None:
        self._interrupted = True
        await self._stop_processes()

    async def _close(self) -> None:
        self._closing = True
        await self._stop_processes()
        previous = self._previous
        if previous is not None and previous.proc is not None:
            await previous.proc.kill()

    # --- processes ----------------------------------------------------------------------------

    async def _spawn(self, prompt: str) -> None:
        run = _Run(prompt, self._used, GeminiStreamParser(answer=self._answer_text()))
        argv = [
            *self._program,
            *self._spec.args,
            f"--prompt={prompt}",
            "--output-format=stream-json",
        ]
        if self._spec.model:
            argv.append(f"--model={self._spec.model}")
        flag = "--resume" if run.resumed else "--session-id"
        argv.append(f"{flag}={self._session_id}")
        run.proc = await CliProcess.start(
            argv,
            cwd=self._spec.run_dir,
            env=self._env,
            on_stdout=partial(self._on_stdout, run),
            on_exit=partial(self._on_exit, run),
            stdin=False,
        )
        self._run = run
        self._used = True
        if self._interrupted or self._closing:
            # Stopped while the process was starting: nobody else will kill it.
            await run.proc.kill()

    async def _stop_processes(self) -> None:
        retry = self._retry
        if retry is not None:
            with contextlib.suppress(Exception):
                await retry
        run = self._run
        if run is not None and run.proc is not None:
            await run.proc.kill()

    async def _wait_previous_exit(self) -> None:
        run = self._previous
        if run is None or run.proc is None:
            return
        try:
            async with asyncio.timeout(PREVIOUS_EXIT_WAIT_S):
                await run.proc.wait()
        except TimeoutError:
            log.warning("%s: the previous Gemini run did not exit; killing it", self.name)
            await run.proc.kill()

    async def _retry_fresh(self, prompt: str) -> None:
        try:
            if self._interrupted or self._closing:
                self._fail_turn(AgentFailed(f"{self.name}: the turn was interrupted"))
                return
            await self._spawn(prompt)
        except IdeaError as exc:
            self._fail_turn(exc)
        finally:
            self._retry = None

    # --- output -------------------------------------------------------------------------------

    def _on_stdout(self, run: _Run, data: bytes) -> None:
        if run is self._run:
            self._handle(run, run.parser.feed(data))

    def _handle(self, run: _Run, items: list[GeminiItem]) -> None:
        for item in items:
            if isinstance(item, GeminiInit):
                run.saw_init = True
                self._set_conversation_id(item.session_id)
            elif isinstance(item, GeminiNotice):
                log.info("%s: gemini %s: %s", self.name, item.severity, item.message)
            elif isinstance(item, OverlongLine):
                self._line_too_long(item, "gemini")  # one run per turn: this turn's line
            else:
                self._emit(item)

    def _on_exit(self, run: _Run, code: int) -> None:
        if run is not self._run:
            return
        self._handle(run, run.parser.flush())
        if run.parser.finished or self._closing:
            return  # the turn ended with its result, or shutdown reports it
        if self._interrupted:
            self._fail_turn(AgentFailed(f"{self.name}: the turn was interrupted"))
        elif run.resumed and code == EXIT_INPUT_ERROR and not run.saw_init:
            log.warning(
                "%s: the Gemini CLI cannot resume session %s (%s); starting a new one",
                self.name,
                self._session_id,
                _tail(run.proc.stderr_tail() if run.proc else ""),
            )
            self._session_id = str(uuid.uuid4())
            self._used = False
            self._retry = asyncio.create_task(
                self._retry_fresh(run.prompt), name=f"{self.name}-retry"
            )
        else:
            stderr = run.proc.stderr_tail() if run.proc is not None else ""
            self._fail_turn(AgentFailed(exit_message(self.name, code, stderr)))


def exit_message(name: str, code: int, stderr: str) -> str:
    """Why a Gemini run ended without a result, for a user: the exit code's meaning and stderr."""
    if code < 0:
        what = f"was killed by signal {-code}"
    else:
        what = f"{_EXIT_MEANINGS.get(code, 'failed')} (exit code {code})"
    tail = _tail(stderr)
    return f"{name}: the Gemini CLI {what}" + (f": {tail}" if tail else "")


def _tail(stderr: str) -> str:
    lines = [line.rstrip() for line in strip_ansi(stderr).splitlines() if line.strip()]
    return "\n".join(lines[-_TAIL_LINES:])[-_TAIL_CHARS:]


def _gemini_home(spec: StructuredSpec) -> Path:
    home = spec.env.get("GEMINI_CLI_HOME") or spec.env.get("HOME") or spec.env.get("USERPROFILE")
    return Path(home) if home else Path.home()


def _read_settings(path: Path) -> JsonObject:
    """A Gemini settings file (JSON with comments), or ``{}`` if absent or unreadable."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        log.warning("cannot read %s: %s", path, exc)
        return {}
    stripped = _JSON_COMMENT.sub(lambda m: m[0] if m[0].startswith('"') else " ", text)
    try:
        value = json.loads(stripped)
    except (json.JSONDecodeError, RecursionError) as exc:
        log.warning("ignoring %s: not valid JSON (%s)", path, exc)
        return {}
    return value if isinstance(value, dict) else {}


def _object(value: JsonValue) -> JsonObject:
    return dict(value) if isinstance(value, dict) else {}


def _list(value: JsonValue) -> list[JsonValue]:
    if isinstance(value, list):
        return list(value)
    return [] if value is None else [value]


def _from_root(entry: str, root: str) -> str:
    if os.path.isabs(entry) or entry.startswith("~") or entry.lower().startswith("%userprofile%"):
        return entry
    return os.path.join(root, entry)


async def probe_gemini_mcp(session: AgentSession) -> str:
    """``CliAdapter.probe_mcp`` for gemini."""
    if not isinstance(session, GeminiSession):
        raise Invalid("not a gemini session")
    return await session.check_mcp_server()
