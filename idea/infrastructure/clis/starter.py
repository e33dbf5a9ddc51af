"""Starts an agent's CLI: real executable, run dir, injected context and MCP declaration, pids.

The CLI always runs with cwd = the project root; what IdeA injects lives in the agent's run dir
and reaches the CLI by flag, environment or config override (never a file in the user's project).
Structured sessions and the terminal flags of the known CLIs come from their adapters; any other
profile gets the generic declaration of its ``mcp`` capability (DESIGN.md §9.5).
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path

from idea.application.session_ports import (
    AgentSession,
    McpServerEntry,
    StructuredSpec,
    TerminalLauncher,
    TerminalSession,
    TerminalSpec,
)
from idea.domain.agent import Agent
from idea.domain.errors import Invalid, Unavailable
from idea.domain.profile import AdapterKind, McpConfigFile, McpEnv, McpFlag, Profile
from idea.domain.session_events import SessionEvent
from idea.infrastructure.clis.adapter import CliAdapter, TerminalInjection
from idea.infrastructure.clis.declaration import mcp_server_entry, server_json, write_declaration
from idea.infrastructure.files.atomic import write_atomic
from idea.infrastructure.processes.executables import resolve_executable
from idea.infrastructure.processes.leftovers import PROJECT_ROOT_VAR
from idea.infrastructure.processes.run_dir import (
    CONTEXT_FILE,
    DECLARATION_FILE,
    prepare_run_dir,
    record_pids,
)
from idea.infrastructure.processes.tree import SESSION_TAG_VAR
from idea.infrastructure.stores.mcp_secret import AGENT_KEY_FILE, write_agent_key
from idea.infrastructure.stores.paths import ProjectPaths


class CliSessionStarter:
    def __init__(
        self,
        paths: ProjectPaths,
        project_id: str,
        terminals: TerminalLauncher,
        clis: Mapping[AdapterKind, CliAdapter],
        base_env: Mapping[str, str] | None = None,
        tool_timeout_s: float = 600.0,
        with_mcp: bool = True,
        folder_of: Callable[[Agent], Path] | None = None,
        mcp_endpoint: str | None = None,
        agent_key_of: Callable[[str], bytes] | None = None,
        replies_dir: Path | None = None,
    ) -> None:
        """``mcp_endpoint``/``agent_key_of``: on a remote host (§16), the socket SSH forwards to
        the project's endpoint and the key IdeA sent for each agent (default: this project's);
        ``replies_dir``: where structured sessions keep the whole text of a reply they cut."""
        self._replies_dir = replies_dir
        # Where an agent's CLI works: the project, or its own worktree (made on first use).
        self._folder_of = folder_of or (lambda _agent: paths.root)
        self._paths = paths
        self._project_id = project_id
        self._terminals = terminals
        self._clis = dict(clis)
        self._base_env = dict(os.environ if base_env is None else base_env)
        self._tool_timeout_s = tool_timeout_s
        self._with_mcp = with_mcp
        self._mcp_endpoint = mcp_endpoint
        self._agent_key_of = agent_key_of

    async def start_terminal(
        self, agent: Agent, profile: Profile, rows: int, cols: int
    ) -> TerminalSession:
        spec = self._spec(agent, profile, None, await self._folder(agent))
        cli = self._clis.get(profile.structured) if profile.structured else None
        injection = cli.terminal_injection(spec) if cli else self._generic_injection(spec, profile)
        argv = (*spec.program, *profile.command[1:], *injection.args)
        env = {**spec.env, **injection.env}
        cwd = injection.cwd or spec.cwd
        session = await self._terminals.start(
            TerminalSpec(argv=argv, cwd=cwd, env=env, rows=rows, cols=cols)
        )
        record_pids(Path(spec.run_dir), [session.pid])
        return session

    async def start_structured(
        self, agent: Agent, profile: Profile, resume_conversation_id: str | None
    ) -> AgentSession:
        cli = self._clis.get(profile.structured) if profile.structured else None
        if cli is None:
            raise Invalid(f"profile {profile.name} cannot be driven in structured mode")
        spec = self._spec(agent, profile, resume_conversation_id, await self._folder(agent))
        session = await cli.start_session(spec)
        run_dir = Path(spec.run_dir)
        recorded: list[int] = []

        def record() -> None:
            # Per-turn CLIs change pid every turn: keep the record current for crash recovery.
            pids = session.pids()
            if pids and pids != recorded:
                recorded[:] = pids
                record_pids(run_dir, pids)

        def on_event(_event: SessionEvent) -> None:
            record()

        session.subscribe(on_event)
        record()
        return session

    async def _folder(self, agent: Agent) -> Path:
        """Raises what making its worktree raises (``Invalid``, ``Conflict``: it says why)."""
        return await asyncio.to_thread(self._folder_of, agent)

    def _spec(
        self, agent: Agent, profile: Profile, resume: str | None, cwd: Path
    ) -> StructuredSpec:
        detected = resolve_executable(
            profile.command[0], self._base_env.get("PATH"), self._base_env.get("HOME")
        )
        if not detected.argv:
            raise Unavailable(f"cannot start agent {agent.name}: {detected.reason}")
        # A hand-written agent file may name a mode its CLI would refuse: say so before it runs.
        try:
            profile.check_permission_mode(agent.permission_mode)
        except Invalid as exc:
            message = f"cannot start agent {agent.name}: {exc.message}"
            raise Invalid(message, "permission_mode") from None
        run_dir = prepare_run_dir(self._paths.run_dir(agent.name))
        env = {
            **self._base_env,
            PROJECT_ROOT_VAR: str(self._paths.root),
            "IDEA_AGENT": agent.name,
            # Finds what escapes the session's process tree, when it stops (processes/tree.py).
            SESSION_TAG_VAR: uuid.uuid4().hex,
        }
        return StructuredSpec(
            kind=profile.structured or AdapterKind.CLAUDE,
            program=detected.argv,
            cwd=str(cwd),
            run_dir=str(run_dir),
            env=env,
            context=agent.context,
            mcp=self._mcp_entry(agent, run_dir)
            if self._with_mcp and profile.mcp is not None
            else None,
            resume_conversation_id=resume,
            model=agent.model,
            permission_mode=agent.permission_mode,
            tool_timeout_s=self._tool_timeout_s,
            args=tuple(profile.command[1:]),
            replies_dir=None if self._replies_dir is None else str(self._replies_dir),
        )

    def _mcp_entry(self, agent: Agent, run_dir: Path) -> McpServerEntry:
        if self._agent_key_of is None:
            key_file = write_agent_key(self._paths.mcp_key, run_dir, agent.id)
        else:
            key_file = run_dir / AGENT_KEY_FILE
            write_atomic(key_file, self._agent_key_of(agent.id), mode=0o600)
        return mcp_server_entry(
            self._project_id, self._paths.root, agent.id, key_file, self._mcp_endpoint
        )

    @staticmethod
    def _generic_injection(spec: StructuredSpec, profile: Profile) -> TerminalInjection:
        """Profiles IdeA has no adapter for: context file + the declaration of ``profile.mcp``."""
        run_dir = Path(spec.run_dir)
        env: dict[str, str] = {}
        args: list[str] = []
        if spec.context:
            context_file = run_dir / (profile.context_file or CONTEXT_FILE)
            write_atomic(context_file, spec.context)
            env["IDEA_AGENT_CONTEXT_FILE"] = str(context_file)
        if spec.mcp is not None and profile.mcp is not None:
            name = (
                profile.mcp.file_name
                if isinstance(profile.mcp, McpConfigFile)
                else DECLARATION_FILE
            )
            declaration = run_dir / name
            write_declaration(declaration, server_json(spec.mcp))
            env["IDEA_MCP_CONFIG"] = str(declaration)
            if isinstance(profile.mcp, McpFlag):
                args.append(f"{profile.mcp.flag}={declaration}")
            elif isinstance(profile.mcp, McpEnv):
                env[profile.mcp.var] = str(declaration)
        return TerminalInjection(tuple(args), env)
