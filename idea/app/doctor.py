"""``idea doctor``: does each profile's CLI, as installed here, work with IdeA? (DESIGN.md §17)

Per profile: where its CLI was found and what runs, its version, whether it starts in structured
mode, whether IdeA's MCP tools are visible to it, and with ``live`` one minimal model turn that
must call ``idea_list_agents``. The checks run in a scratch project of their own (a temp folder,
trusted there only), so they neither touch the user's project nor collide with an IdeA that has it
open; the CLIs run with the user's environment, as IdeA would start them. Without ``live`` no
model turn is spent: the MCP check uses each CLI's own protocol (Claude's ``mcp_call`` control
request, Codex's ``mcpServer/tool/call``, ``gemini mcp list``).

Invariant: every session started here is stopped and the scratch folder removed, whatever fails.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from idea.app.runtime import ProjectRuntime
from idea.application.launch_agent import LaunchRequest
from idea.application.session_ports import AgentSession
from idea.domain.agent import Agent
from idea.domain.errors import IdeaError
from idea.domain.json_types import JsonObject
from idea.domain.profile import AdapterKind, Mode, Profile
from idea.domain.session_events import SessionEvent, ToolUse
from idea.infrastructure.clis.adapter import PROBE_TOOL, McpProbe
from idea.infrastructure.processes.executables import DetectedCli
from idea.infrastructure.stores.cli_versions import CliVersions, current_version

log = logging.getLogger(__name__)

Check = Literal["ok", "error", "skipped"]
LIVE_PROMPT = (
    f"This is a check by IdeA: call the tool {PROBE_TOOL} once, then answer with one word: done."
)
LIVE_TIMEOUT_S = 180.0

# (folder, profiles) -> the scratch project open with those profiles and the real CLIs.
ScratchOpener = Callable[[Path, Mapping[str, Profile]], Awaitable[ProjectRuntime]]
Detector = Callable[[Profile], DetectedCli]


@dataclass(frozen=True, slots=True)
class DoctorRow:
    profile: str
    path: str | None
    runs: tuple[str, ...]
    version: str | None
    structured: Check
    mcp: Check
    live: Check
    detail: str

    @property
    def failed(self) -> bool:
        return "error" in (self.structured, self.mcp, self.live)

    def to_json(self) -> JsonObject:
        return {
            "profile": self.profile,
            "path": self.path,
            "runs": list(self.runs),
            "version": self.version,
            "structured": self.structured,
            "mcp": self.mcp,
            "live": self.live,
            "detail": self.detail,
        }

    def fix(self) -> str:
        """What to do about a failure, in one line."""
        runs = " ".join(self.runs) or self.profile
        if self.structured == "error":
            return (
                f"{self.profile}: does not start in structured mode: {self.detail}. Check that "
                f"`{runs} --version` works in a terminal and that you are signed in."
            )
        if self.mcp == "error":
            return (
                f"{self.profile}: IdeA's MCP tools are not visible to it: {self.detail}. A wrapper "
                "script or a config of yours may drop or override the MCP server IdeA declares "
                f"(named 'idea'); run the CLI itself (`{runs}`)."
            )
        return (
            f"{self.profile}: the model turn did not call {PROBE_TOOL}: {self.detail}. "
            "The CLI saw the tools but its model did not use them; check its model settings."
        )


async def run_doctor(
    profiles: Mapping[str, Profile],
    *,
    detect: Detector,
    open_scratch: ScratchOpener,
    probes: Mapping[AdapterKind, McpProbe],
    versions: CliVersions | None,
    env: dict[str, str],
    live: bool = False,
) -> list[DoctorRow]:
    """One row per profile, by name; passing versions are remembered in ``versions``."""
    found = {name: detect(profile) for name, profile in sorted(profiles.items())}
    rows: dict[str, DoctorRow] = {}
    for name, cli in found.items():
        version = await current_version(cli.argv, env) if cli.argv else None
        row = DoctorRow(name, cli.path, cli.argv, version, "skipped", "skipped", "skipped", "")
        if cli.unusable:
            rows[name] = replace(row, structured="error", detail=f"cannot run: {cli.reason}")
        elif not cli.argv:
            rows[name] = replace(row, detail=f"not installed: {cli.reason}")
        elif profiles[name].structured is None:
            rows[name] = replace(row, detail=f"terminal only ({cli.via})")
        else:
            rows[name] = replace(row, detail=cli.via)
    checked = [n for n, p in profiles.items() if p.structured is not None and found[n].argv]
    if checked:
        scratch = Path(tempfile.mkdtemp(prefix="idea-doctor-"))
        try:
            runtime = await open_scratch(scratch / "project", profiles)
            try:
                for name in sorted(checked):
                    rows[name] = await _check(runtime, rows[name], profiles[name], probes, live)
            finally:
                await runtime.close()
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    if versions is not None:
        for row in rows.values():
            if row.structured == "ok" and not row.failed and row.version and row.path:
                try:
                    versions.remember(row.profile, row.version, row.path)
                except IdeaError as exc:
                    log.warning("could not remember %s %s: %s", row.profile, row.version, exc)
    return [rows[name] for name in sorted(rows)]


async def _check(
    runtime: ProjectRuntime,
    row: DoctorRow,
    profile: Profile,
    probes: Mapping[AdapterKind, McpProbe],
    live: bool,
) -> DoctorRow:
    agent = Agent(id=f"doctor-{profile.name}", name=f"doctor-{profile.name}", profile=profile.name)
    runtime.services.agents.save(replace(agent, mode=Mode.STRUCTURED))
    try:
        await runtime.launch(LaunchRequest(agent.name, mode=Mode.STRUCTURED))
    except IdeaError as exc:
        return replace(row, structured="error", detail=exc.message)
    row = replace(row, structured="ok")
    session = runtime.sessions.structured_session(agent.id)
    probe = probes.get(profile.structured) if profile.structured else None
    try:
        if session is None or probe is None:
            row = replace(row, detail=f"{row.detail}; no MCP check for this CLI")
        else:
            try:
                evidence = await probe(session)
                row = replace(row, mcp="ok", detail=f"{row.detail}; {_short(evidence)}")
            except IdeaError as exc:
                return replace(row, mcp="error", detail=exc.message)
        if live and session is not None:
            row = await _live_turn(runtime, row, agent, session)
    finally:
        await runtime.stop_agent(agent.name, reason="doctor done")
    return row


async def _live_turn(
    runtime: ProjectRuntime, row: DoctorRow, agent: Agent, session: AgentSession
) -> DoctorRow:
    used: list[str] = []

    def seen(event: SessionEvent) -> None:
        if isinstance(event, ToolUse):
            used.append(event.name)

    unsubscribe = session.subscribe(seen)
    try:
        await runtime.ask(agent.name, LIVE_PROMPT, timeout_s=LIVE_TIMEOUT_S)
    except IdeaError as exc:
        return replace(row, live="error", detail=f"the model turn failed: {exc.message}")
    finally:
        unsubscribe()
    if any(name.endswith(PROBE_TOOL) for name in used):
        return replace(row, live="ok")
    tools = ", ".join(used) or "none"
    return replace(row, live="error", detail=f"tools called in the turn: {tools}")


def _short(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
