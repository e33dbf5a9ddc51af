"""The MCP tools of IdeA (DESIGN.md §9.4): names, input schemas, arguments → commands → results.

Invariant: tool names are a contract; a tool is one registry line naming its command, whose
declared fields (``idea.domain.wire_fields``) give its arguments (their attribute names), its
closed ``inputSchema`` (``type: object``, ``additionalProperties: false``) and the parser that
builds the command, so an argument is refused as the same field is at the other doors, under the
argument's own name. The caller's identity is never an argument: it is the connection's
requester. While an ask waits, its ``notifications/progress`` carry a strictly increasing
``progress``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from idea.application.caller import AskProgress
from idea.domain.commands import (
    AgentChanges,
    AskAgent,
    Command,
    CreateSkill,
    GetProjectWorkState,
    MergeAgent,
    SetWorkState,
    SpawnAgent,
    StopAgent,
    UpdateAgentContext,
)
from idea.domain.errors import Forbidden, IdeaError, Invalid
from idea.domain.json_types import JsonObject, JsonValue
from idea.domain.outcome import OrchestratorOutcome
from idea.domain.wire_fields import fields_of, object_schema, parse

# reply: the asked agent's final text; detail: the short acknowledgement; data: JSON for the model.
ResultKind = Literal["reply", "detail", "data"]

# Arguments a model might use to act on someone else's behalf; refused with FORBIDDEN where the
# tool acts on the caller itself.
IDENTITY_ARGUMENTS = frozenset(
    {"agent", "agent_id", "agentId", "requester", "requester_id", "requesterId", "caller"}
)


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    description: str
    command_type: type[Command] | None = None  # None = answered without a command (agent list)
    omit: tuple[str, ...] = ()  # command fields no model sets (an agent has no cell to name)
    result: ResultKind = "detail"
    self_only: bool = False  # acts on the caller: identity arguments are FORBIDDEN

    def __post_init__(self) -> None:
        self.input_schema()  # a field omitted that the command does not have fails at import

    @property
    def action(self) -> str | None:
        """The wire action of the tool's command; None = answered without a command."""
        return None if self.command_type is None else self.command_type.ACTION

    @property
    def arguments(self) -> tuple[str, ...]:
        if self.command_type is None:
            return ()
        return tuple(f.attr for f in fields_of(self.command_type) if f.attr not in self.omit)

    def input_schema(self) -> JsonObject:
        if self.command_type is None:
            return {"type": "object", "properties": {}, "additionalProperties": False}
        return object_schema(self.command_type, "argument", self.omit)

    def definition(self) -> JsonObject:
        return {
            "name": self.name,
            "description": self.description,
            "inputSchema": self.input_schema(),
        }

    def check_arguments(self, arguments: JsonObject) -> None:
        """Refuse undeclared arguments: ``Forbidden`` for an identity on a self-only tool, else
        ``Invalid`` listing the expected ones."""
        expected = self.arguments
        for key in arguments:
            if key in expected:
                continue
            if self.self_only and key in IDENTITY_ARGUMENTS:
                raise Forbidden(
                    f"{self.name} only ever sets YOUR OWN row; your identity comes from the "
                    f"connection, so drop the {key!r} argument"
                )
            raise Invalid(
                f"unknown argument {key!r} for {self.name}; expected: "
                f"{', '.join(expected) or 'none'}"
            )

    def command(self, arguments: JsonObject) -> Command:
        """The command these arguments ask for; raises ``Invalid``, ``MissingField``,
        ``Forbidden``, each naming the argument as the caller spelt it."""
        if self.command_type is None:
            raise Invalid(f"{self.name} does not map to an orchestrator command")
        self.check_arguments(arguments)
        return parse(self.command_type, arguments, "argument")


# One line per tool: its name, what the model reads, its command; the arguments come from it.
TOOLS: tuple[Tool, ...] = (
    Tool(
        "idea_list_agents",
        "List the agents of this project (name, profile, mode, description, whether it is "
        "running, board status) to find whom to ask or spawn.",
        result="data",
    ),
    Tool(
        "idea_ask_agent",
        "Delegate a task to another agent and wait for its final reply (one ask at a time per "
        "agent). Errors: FORBIDDEN, DEPTH_EXCEEDED, BUDGET_EXCEEDED, RATE_LIMITED, TIMEOUT.",
        AskAgent,
        result="reply",
    ),
    Tool(
        "idea_spawn_agent",
        "Start an agent in the background, creating it first with this profile and context "
        "if it does not exist yet.",
        SpawnAgent,
        omit=("node_id", "visible"),
    ),
    Tool(
        "idea_stop_agent",
        "Stop an agent's running session; its definition and context are kept.",
        StopAgent,
    ),
    Tool(
        "idea_update_agent_context",
        "Replace an agent's context (its role and instructions, Markdown); it applies from "
        "its next session start.",
        UpdateAgentContext,
    ),
    Tool(
        "idea_create_skill",
        "Create or replace a project skill every agent can use: a name, a one-line "
        "description of when to use it, and a Markdown body.",
        CreateSkill,
    ),
    Tool(
        "idea_workstate_set",
        "Publish YOUR OWN status on the project's work-state board, with an optional intent, "
        "ticket and progress note; keep it current as you work.",
        SetWorkState,
        self_only=True,
    ),
    Tool(
        "idea_workstate_get",
        "Read the project's work-state board: every agent's status, intent, ticket, progress, "
        "liveness and queued asks.",
        GetProjectWorkState,
        result="data",
    ),
    Tool(
        "idea_agent_changes",
        "What an agent working in its own git worktree changed: each file with its status and "
        "line counts, and the unified diff (cut when long). To review its work before a merge.",
        AgentChanges,
        result="data",
    ),
    Tool(
        "idea_agent_merge",
        "Merge the work of an agent in its own git worktree into the project's current branch "
        "(uncommitted work committed first). On a conflict nothing changes; files are listed.",
        MergeAgent,
        result="data",
    ),
)

TOOLS_BY_NAME: dict[str, Tool] = {tool.name: tool for tool in TOOLS}


def to_json_text(value: JsonValue) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def text_result(text: str, structured: JsonObject | None = None) -> JsonObject:
    result: JsonObject = {"content": [{"type": "text", "text": text}], "isError": False}
    if structured is not None:
        result["structuredContent"] = structured
    return result


def data_result(data: JsonValue, structured: bool) -> JsonObject:
    """JSON for the model as text; the same as ``structuredContent`` (always an object)."""
    content: JsonObject = data if isinstance(data, dict) else {"result": data}
    return text_result(to_json_text(data), content if structured else None)


def error_result(exc: IdeaError) -> JsonObject:
    """A tool failure the model reads and may recover from: ``"<CODE>: <message>"``."""
    return {"content": [{"type": "text", "text": f"{exc.code}: {exc.message}"}], "isError": True}


def outcome_result(tool: Tool, outcome: OrchestratorOutcome, structured: bool) -> JsonObject:
    if tool.result == "reply":
        return text_result(outcome.reply if outcome.reply is not None else outcome.detail)
    if tool.result == "data":
        return data_result(outcome.data, structured)
    return text_result(outcome.detail)


class ProgressReporter:
    """``notifications/progress`` while one ``idea_ask_agent`` waits: at each change of its place
    in the target's queue and at least every ``interval_s``, so that clients do not time out.
    ``progress`` counts the notifications: it strictly increases, as the spec requires."""

    def __init__(
        self,
        emit: Callable[[dict[str, Any]], None],
        token: str | int | float,
        target: str,
        interval_s: float,
    ) -> None:
        self._emit = emit
        self._token = token
        self._target = target
        self._interval_s = interval_s
        self._last: AskProgress | None = None
        self._sent: AskProgress | None = None
        self._count = 0
        self._changed = asyncio.Event()
        self._stopped = False
        self._task = asyncio.create_task(self._run(), name=f"mcp progress {target}")

    def update(self, progress: AskProgress) -> None:
        if not self._stopped:
            self._last = progress
            self._changed.set()

    async def stop(self) -> None:
        """Wake the loop and wait for it: no notification is sent after this returns."""
        self._stopped = True
        self._changed.set()
        await self._task

    async def _run(self) -> None:
        while True:
            woken = False
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._interval_s):
                    await self._changed.wait()
                    woken = True
            if self._stopped:
                return
            self._changed.clear()
            if woken and self._count > 0 and self._last == self._sent:
                continue  # the inbox changed, but not this ask's place in it
            self._sent = self._last
            self._count += 1  # strictly increasing, as the spec requires
            params: JsonObject = {
                "progressToken": self._token,
                "progress": self._count,
                "message": self._message(),
            }
            self._emit({"jsonrpc": "2.0", "method": "notifications/progress", "params": params})

    def _message(self) -> str:
        last, target = self._last, self._target
        if last is None:
            return f"asking {target}"
        if last.position == 0:
            return f"{target} is working on your task"
        state = "working on an earlier task" if last.target_working else "starting"
        return f"waiting in {target}'s queue: position {last.position} ({target} is {state})"
