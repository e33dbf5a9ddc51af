"""The UI's method table: a thin facade over one ``ProjectRuntime`` (ui/API.md is its contract).

Invariant: every method takes a JSON object of params and returns JSON or raises an ``IdeaError``
(a validation error names the field); the work is done by the runtime's stores and use cases
(``create_agent``, ``LaunchAgent``, ``StopAgent``, ``OrchestratorService.dispatch``, the domain's
``Layouts`` operations). A change of agents or layouts publishes its event on the runtime's bus.
Beside it: ``params`` reads the params, ``rows`` builds the rows sent back,
``layout_ops`` maps ``layouts.apply``'s ops onto ``Layouts``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from idea.app.doctor import DoctorRow
from idea.app.project_host import ProjectHost
from idea.app.runtime import ProjectRuntime, ProjectServices
from idea.app.terminal_stream import TerminalViews
from idea.app.ui.rows import (
    MODES,
    agent_rows,
    is_dir,
    lost_ask_rows,
    policy_json,
    profile_row,
    project_json,
    trust_json,
)
from idea.app.ui.layout_ops import LAYOUT_OPS, apply_op
from idea.app.ui.params import (
    choice,
    opt_bool,
    opt_choice,
    opt_int,
    opt_text,
    opt_version,
    text,
)
from idea.application.board import project_work_state
from idea.application.caller import AskProgress
from idea.application.change_layout import change_layout
from idea.application.create_agent import NewAgent, create_agent
from idea.application.edit_agent import (
    AgentChanges,
    WorktreeChoice,
    delete_agent,
    update_agent,
)
from idea.application.launch_agent import LaunchRequest
from idea.application.move_agent import move_agent
from idea.application.session_ports import TerminalSession
from idea.domain.agent import Agent, Workspace
from idea.domain.commands import AgentChanges as AgentChangesCommand
from idea.domain.commands import AskAgent, Command, DiscardAgentChanges, MergeAgent, Source
from idea.domain.errors import (
    AgentFailed,
    Conflict,
    CorruptFile,
    Invalid,
    MissingField,
    NotFound,
    Unavailable,
)
from idea.domain.events import AgentsChanged
from idea.domain.json_types import JsonObject, JsonValue
from idea.domain.layout import Layouts
from idea.domain.names import validate_slug
from idea.domain.policy import parse_asks_from
from idea.domain.profile import Mode
from idea.domain.text import check_text
from idea.infrastructure.processes.executables import detect_all

WORKSPACES: tuple[Workspace, ...] = tuple(Workspace)
WORKTREE_CHOICES: tuple[WorktreeChoice, ...] = ("keep", "remove")
# The project's root -> ``idea doctor``'s rows (``app/doctor.py``), without a model turn.
Doctor = Callable[[Path], Awaitable[list[DoctorRow]]]

METHODS = (
    *("project.info", "project.recent", "project.open", "profiles.list", "agents.list"),
    *("agents.get", "agents.create", "agents.update"),
    *("agents.delete", "layouts.get", "layouts.apply", "session.launch", "session.stop"),
    "session.move",
    *("terminal.attach", "terminal.detach", "terminal.write", "terminal.resize", "chat.send"),
    *("chat.history", "chat.interrupt", "workstate.get", "delegations.recent", "problems.list"),
    "doctor.run",
    *("workspace.changes", "workspace.merge", "workspace.discard", "workspace.summary"),
    *("trust.get", "trust.grant", "policy.get", "policy.set"),
    "hosts.list",
)
DELEGATIONS_DEFAULT, DELEGATIONS_MAX = 100, 1000
TERMINAL_MAX = 10_000  # rows or columns


Result = JsonValue | Awaitable[JsonValue]
Method = Callable[[TerminalViews, JsonObject], Result]


@dataclass(eq=False, slots=True)
class _ChatTurn:
    """A ``chat.send`` in flight: whether its turn is the one running, and whether
    ``chat.interrupt`` stopped it (then its AGENT_FAILED is the interruption, not a failure)."""

    running: bool = False
    interrupted: bool = False


class UiApi:
    def __init__(
        self,
        host: ProjectHost,
        problems: Callable[[], list[CorruptFile]],
        history: Callable[[str], JsonObject],
        doctor: Doctor | None = None,
    ) -> None:
        self._host = host
        self._problems = problems
        self._history = history
        self._doctor = doctor
        self._chat_turns: dict[str, list[_ChatTurn]] = {}  # agent name -> its chat.sends
        # "agents.create" is served by ``agents_create``, and so on.
        self.methods: dict[str, Method] = {
            name: getattr(self, name.replace(".", "_")) for name in METHODS
        }

    @property
    def _rt(self) -> ProjectRuntime:
        return self._host.current

    @property
    def _s(self) -> ProjectServices:
        return self._host.current.services

    def method(self, name: object) -> Method:
        """Raises ``MissingField``/``Invalid`` (field ``method``) for a missing or unknown name."""
        if name is None or name == "":
            raise MissingField("method")
        found = self.methods.get(name) if isinstance(name, str) else None
        if found is None:
            raise Invalid(f"method: unknown method {name!r}")
        return found

    # --- project, profiles, agents ---------------------------------------------------------------

    def project_info(self, _: TerminalViews, __: JsonObject) -> JsonValue:
        return project_json(self._rt)

    def project_recent(self, _: TerminalViews, __: JsonObject) -> JsonValue:
        recent = self._host.recent
        current = str(self._s.paths.root)
        rows: list[JsonValue] = []
        for entry in recent.all() if recent is not None else []:
            row = entry.to_json()
            rows.append({**row, "current": entry.root == current, "exists": is_dir(entry.root)})
        return rows

    async def project_open(self, _: TerminalViews, p: JsonObject) -> JsonValue:
        """Closes the current project once the other one is open (``ProjectOpened`` is pushed)."""
        runtime = await self._host.switch(text(p, "path"))
        return project_json(runtime)

    async def trust_get(self, _: TerminalViews, __: JsonObject) -> JsonValue:
        # The repository's hooks are listed by git: not on the event loop.
        return await asyncio.to_thread(trust_json, self._rt)

    async def trust_grant(self, _: TerminalViews, __: JsonObject) -> JsonValue:
        """The user trusts the project as it is now; what it would run starts
        (``ProjectTrustChanged`` is pushed)."""
        await self._rt.trust()
        return await asyncio.to_thread(trust_json, self._rt)

    async def profiles_list(self, _: TerminalViews, __: JsonObject) -> JsonValue:
        profiles = self._s.profiles.all()
        # Looking a CLI up on PATH touches the disk (and walks npm folders on Windows).
        detected = await asyncio.to_thread(detect_all, profiles)
        rows: list[JsonValue] = [
            profile_row(name, profile, detected[name]) for name, profile in sorted(profiles.items())
        ]
        return rows

    def agents_list(self, _: TerminalViews, __: JsonObject) -> JsonValue:
        """Every agent without its context (up to 512 Ki characters each): ``agents.get`` has it."""
        return [*agent_rows(self._rt, self._s.agents.all(), with_context=False)]

    def agents_get(self, _: TerminalViews, p: JsonObject) -> JsonValue:
        """The row, its context, and ``version``: its file's, for ``agents.update``."""
        return self._versioned_row(text(p, "name"))

    def _versioned_row(self, name: str) -> JsonObject:
        agent, version = self._s.agents.get_versioned(name)
        return {**agent_rows(self._rt, [agent])[0], "version": version}

    def agents_create(self, _: TerminalViews, p: JsonObject) -> JsonValue:
        new = NewAgent(
            name=text(p, "name"),
            profile=text(p, "profile"),
            context=opt_text(p, "context") or "",
            description=opt_text(p, "description") or None,
            mode=opt_choice(p, "mode", MODES),
            model=opt_text(p, "model"),
            permission_mode=opt_text(p, "permission_mode") or None,
            workspace=opt_choice(p, "workspace", WORKSPACES) or Workspace.PROJECT,
            asks_from=parse_asks_from(p.get("asks_from")),
            host=opt_text(p, "host") or None,
        )
        agent = create_agent(self._s.agents, self._s.profiles, self._s.ids, new)
        self._rt.bus.publish(AgentsChanged())
        return agent_rows(self._rt, [agent])[0]

    def agents_update(self, _: TerminalViews, p: JsonObject) -> JsonValue:
        """Absent fields are kept; ``mode: null`` goes back to the profile's default mode,
        ``model: null`` and ``permission_mode: null`` to the CLI's own. With ``version`` (from
        ``agents.get``), a file changed on disk since is not replaced: ``Conflict``."""
        changes = AgentChanges(
            profile=opt_text(p, "profile"),
            context=(opt_text(p, "context") or "") if "context" in p else None,
            description=opt_text(p, "description") if "description" in p else None,
            clear_description="description" in p and not opt_text(p, "description"),
            mode=opt_choice(p, "mode", MODES),
            keep_mode="mode" not in p,
            new_name=opt_text(p, "new_name"),
            workspace=opt_choice(p, "workspace", WORKSPACES),
            asks_from=parse_asks_from(p["asks_from"]) if "asks_from" in p else None,
            model=opt_text(p, "model"),
            keep_model="model" not in p,
            permission_mode=opt_text(p, "permission_mode") or None,
            keep_permission_mode="permission_mode" not in p,
            host=opt_text(p, "host") or None,
            keep_host="host" not in p,
            version=opt_version(p),
        )
        changed = update_agent(
            self._s.agents, self._s.profiles, self._rt.sessions, text(p, "name"), changes
        )
        self._rt.bus.publish(AgentsChanged())
        return self._versioned_row(changed.name)

    async def agents_delete(self, _: TerminalViews, p: JsonObject) -> JsonValue:
        choice = opt_choice(p, "worktree", WORKTREE_CHOICES)
        # Removing a worktree deletes its files: off the loop.
        agent = await asyncio.to_thread(
            delete_agent,
            self._s.agents,
            self._rt.sessions,
            text(p, "name"),
            self._s.workspaces,
            choice,
        )
        self._rt.bus.publish(AgentsChanged())
        return {"deleted": agent.name, "agent_id": agent.id}

    # --- layouts ---------------------------------------------------------------------------------

    def layouts_get(self, _: TerminalViews, __: JsonObject) -> JsonValue:
        return self._layouts().to_json()

    def _layouts(self) -> Layouts:
        return self._rt.layouts()

    def layouts_apply(self, _: TerminalViews, p: JsonObject) -> JsonValue:
        op = choice(p, "op", LAYOUT_OPS)
        created: JsonObject = {}

        def operation(layouts: Layouts) -> Layouts:
            changed, ids = apply_op(op, layouts, p, self._s.ids.new_id, self._s.agents)
            created.update(ids)
            return changed

        layouts = change_layout(self._s.layouts, self._rt.sessions, self._rt.bus, operation)
        return {"layouts": layouts.to_json(), **created}

    # --- sessions and terminals ------------------------------------------------------------------

    async def session_launch(self, _: TerminalViews, p: JsonObject) -> JsonValue:
        node_id = opt_text(p, "node_id") or None
        if node_id is not None:
            self._layouts().find_leaf(node_id)
        name = text(p, "name")
        mode = opt_choice(p, "mode", MODES)
        # A hibernated agent started in chat picks its conversation up where it left it.
        asleep = self._rt.core.hibernation.asleep().get(self._s.agents.get(name).id)
        request = LaunchRequest(
            name=name,
            node_id=node_id,
            mode=mode,
            reattach=opt_bool(p, "reattach", default=False),
            rows=opt_int(p, "rows", 24, 1, TERMINAL_MAX),
            cols=opt_int(p, "cols", 80, 1, TERMINAL_MAX),
            resume_conversation_id=(
                asleep.conversation_id if asleep is not None and mode is not Mode.TERMINAL else None
            ),
        )
        result = await self._rt.launch(request)
        return {
            "agent_id": result.agent.id,
            "name": result.agent.name,
            "mode": result.mode.value,
            "node_id": result.entry.node_id,
            "started": result.started,
        }

    async def session_stop(self, _: TerminalViews, p: JsonObject) -> JsonValue:
        stopped = await self._rt.stop_agent(text(p, "name"), reason="stopped from the UI")
        return {"stopped": stopped}

    def session_move(self, _: TerminalViews, p: JsonObject) -> JsonValue:
        """A live agent shown elsewhere is shown in this cell instead; its old cell empties."""
        moved = move_agent(
            self._s.agents,
            self._s.layouts,
            self._rt.sessions,
            self._rt.bus,
            text(p, "name"),
            text(p, "node_id"),
        )
        return {
            "layouts": moved.layouts.to_json(),
            "agent_id": moved.agent_id,
            "node_id": moved.node_id,
            "from_node_id": moved.from_node_id,
        }

    def terminal_attach(self, views: TerminalViews, p: JsonObject) -> JsonValue:
        # Synchronous on purpose: the reply is queued before any output of the new attach.
        agent = self._s.agents.get(text(p, "name"))
        session = self._rt.sessions.terminal_session(agent.id)
        if session is None:
            # Ended by itself: its last output and exit code, so the cell can say why.
            epitaph = self._rt.epitaphs.of(agent.id)
            if epitaph is None:
                raise Conflict(f"agent {agent.name} is not running in a terminal")
            return {
                "attach_id": None,
                "agent_id": agent.id,
                "scrollback": epitaph.output,
                "exit_code": epitaph.exit_code,
            }
        attach_id, scrollback = views.attach(session)
        return {
            "attach_id": attach_id,
            "agent_id": agent.id,
            "scrollback": scrollback,
            "exit_code": None,
        }

    def terminal_detach(self, views: TerminalViews, p: JsonObject) -> JsonValue:
        attach_id = text(p, "attach_id")
        if not views.detach(attach_id):
            raise NotFound(f"attach_id: no terminal view {attach_id!r} on this connection")
        return {"detached": attach_id}

    def terminal_write(self, _: TerminalViews, p: JsonObject) -> JsonValue:
        data = p.get("data")
        if not isinstance(data, str):
            raise MissingField("data") if data is None else Invalid("data: expected a string")
        self._terminal(p)[1].write(check_text(data, "data"))
        return None

    def terminal_resize(self, _: TerminalViews, p: JsonObject) -> JsonValue:
        rows = opt_int(p, "rows", None, 1, TERMINAL_MAX)
        cols = opt_int(p, "cols", None, 1, TERMINAL_MAX)
        self._terminal(p)[1].resize(rows, cols)
        return None

    def _terminal(self, p: JsonObject) -> tuple[Agent, TerminalSession]:
        agent = self._s.agents.get(text(p, "name"))
        session = self._rt.sessions.terminal_session(agent.id)
        if session is None:
            raise Conflict(f"agent {agent.name} is not running in a terminal")
        return agent, session

    # --- chat, board, logs -----------------------------------------------------------------------

    async def chat_send(self, _: TerminalViews, p: JsonObject) -> JsonValue:
        name = validate_slug(text(p, "name"), "name")
        message = text(p, "text")
        if not message.strip():
            raise MissingField("text")
        command = AskAgent(target=name, task=message)
        turn = _ChatTurn()

        def progress(p: AskProgress) -> None:
            turn.running = p.position == 0

        turns = self._chat_turns.setdefault(name, [])
        turns.append(turn)
        try:
            # Through the orchestrator: it waits in the agent's FIFO like any other ask.
            outcome = await self._rt.orchestrator.dispatch(command, Source.UI, progress=progress)
        except AgentFailed:
            if turn.interrupted:
                return {"reply": None, "interrupted": True}
            raise
        finally:
            turns.remove(turn)
            if not turns:
                del self._chat_turns[name]
        return {"reply": outcome.reply}

    def chat_history(self, _: TerminalViews, p: JsonObject) -> JsonValue:
        agent_id = self._s.agents.get(text(p, "name")).id
        return {**self._history(agent_id), "queued": self._rt.ask.queue_length(agent_id)}

    async def chat_interrupt(self, _: TerminalViews, p: JsonObject) -> JsonValue:
        agent = self._s.agents.get(text(p, "name"))
        session = self._rt.sessions.structured_session(agent.id)
        if session is None or not session.busy:
            return {"interrupted": False}
        for turn in self._chat_turns.get(agent.name, []):
            turn.interrupted = turn.interrupted or turn.running
        await session.interrupt()
        return {"interrupted": True}

    async def workspace_changes(self, _: TerminalViews, p: JsonObject) -> JsonValue:
        return await self._review(AgentChangesCommand(name=text(p, "name")))

    async def workspace_merge(self, _: TerminalViews, p: JsonObject) -> JsonValue:
        return await self._review(MergeAgent(name=text(p, "name")))

    async def workspace_discard(self, _: TerminalViews, p: JsonObject) -> JsonValue:
        return await self._review(DiscardAgentChanges(name=text(p, "name")))

    async def workspace_summary(self, _: TerminalViews, p: JsonObject) -> JsonValue:
        """For the board: a read, not a command (not logged); counts only."""
        agent = self._s.agents.get(text(p, "name"))
        if agent.workspace is not Workspace.WORKTREE:
            raise Invalid(f"agent {agent.name} works in the project folder, not a worktree")
        files, ahead = await asyncio.to_thread(self._s.workspaces.summary, agent)
        return {"files": files, "ahead": ahead}

    async def _review(self, command: Command) -> JsonValue:
        # Through the orchestrator, as the file door and the MCP tools do: logged, one behaviour.
        outcome = await self._rt.orchestrator.dispatch(command, Source.UI)
        return outcome.data

    def workstate_get(self, _: TerminalViews, __: JsonObject) -> JsonValue:
        # A read, not a command: it is not logged as a delegation.
        return project_work_state(
            self._s.agents,
            self._s.work_state,
            self._rt.sessions,
            self._rt.ask,
            self._rt.core.hibernation,
        )

    async def delegations_recent(self, _: TerminalViews, p: JsonObject) -> JsonValue:
        limit = opt_int(p, "limit", DELEGATIONS_DEFAULT, 1, DELEGATIONS_MAX)
        records: list[JsonValue] = [*(await asyncio.to_thread(self._rt.delegations.recent, limit))]
        return records

    def problems_list(self, _: TerminalViews, __: JsonObject) -> JsonValue:
        rows: list[JsonValue] = [{**p.to_dict(), "reason": p.reason} for p in self._problems()]
        rows += [{**n.to_dict()} for n in self._s.reassigned]  # copied agent files
        rows += lost_ask_rows(self._rt)  # asks in flight when IdeA last ended
        return rows

    def hosts_list(self, _: TerminalViews, __: JsonObject) -> JsonValue:
        """The user's hosts (hosts.json), where an agent may run; raises ``Invalid`` naming the
        file and field when it cannot be read."""
        hosts = self._s.hosts.all()
        return [
            {"name": name, "ssh": host.ssh_target, "root": host.root}
            for name, host in sorted(hosts.items())
        ]

    def policy_get(self, _: TerminalViews, __: JsonObject) -> JsonValue:
        return policy_json(self._rt)

    def policy_set(self, _: TerminalViews, p: JsonObject) -> JsonValue:
        """Changes some fields of ``.ideai/policy.json``; raises ``Invalid`` naming a bad one,
        ``Conflict`` when ``version`` (from ``policy.get``) is not the file's any more."""
        changes = p.get("policy")
        if not isinstance(changes, dict):
            raise MissingField("policy") if changes is None else Invalid("policy must be an object")
        version = opt_version(p)
        self._s.policy.save(self._s.policy.current().changed(changes), version)
        return policy_json(self._rt)

    async def doctor_run(self, _: TerminalViews, __: JsonObject) -> JsonValue:
        """``idea doctor`` on the current project's profiles, no model turn (DESIGN.md §17)."""
        if self._doctor is None:
            raise Unavailable("idea doctor is not available here")
        rows = await self._doctor(self._s.paths.root)
        return [row.to_json() for row in rows]
