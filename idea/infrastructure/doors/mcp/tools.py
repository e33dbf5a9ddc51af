"""The MCP tools of IdeA (DESIGN.md §9.4): names, input schemas, arguments → commands → results.

Invariant: tool names are a contract; every ``inputSchema`` is a closed JSON Schema object
(``type: object``, ``additionalProperties: false``) and each declared argument maps to one field of
the tool's wire action, so commands are built by ``validate_request`` exactly as at the other doors.
The caller's identity is never an argument: it is the connection's requester. While an ask waits,
its ``notifications/progress`` carry a strictly increasing ``progress``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from idea.application.ask_agent import DEFAULT_TURN_TIMEOUT_S
from idea.application.caller import AskProgress
from idea.domain.builtin_profiles import DEFAULT_PROFILE, builtin_profile_names
from idea.domain.commands import (
    TIMEOUT_MAX_S,
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
from idea.domain.errors import Forbidden, IdeaError, Invalid, MissingField
from idea.domain.json_types import JsonObject, JsonValue
from idea.domain.orchestrator_request import validate_request
from idea.domain.outcome import OrchestratorOutcome
from idea.domain.work_state import Status

# reply: the asked agent's final text; detail: the short acknowledgement; data: JSON for the model.
ResultKind = Literal["reply", "detail", "data"]

# Arguments a model might use to act on someone else's behalf; refused with FORBIDDEN where the
# tool acts on the caller itself.
IDENTITY_ARGUMENTS = frozenset(
    {"agent", "agent_id", "agentId", "requester", "requester_id", "requesterId", "caller"}
)

_SLUG = "lowercase letters, digits, '-' or '_', starting with a letter or digit"


def _text(description: str, *, required: bool = True) -> JsonObject:
    schema: JsonObject = {"type": "string", "description": description}
    if required:
        schema["minLength"] = 1
    return schema


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    description: str
    properties: JsonObject
    required: tuple[str, ...] = ()
    action: str | None = None  # wire action; None = answered without a command (agent list)
    wire_names: tuple[tuple[str, str], ...] = ()  # (argument, wire field) where they differ
    result: ResultKind = "detail"
    self_only: bool = False  # acts on the caller: identity arguments are FORBIDDEN

    def input_schema(self) -> JsonObject:
        schema: JsonObject = {"type": "object", "properties": self.properties}
        if self.required:  # an empty "required" is refused by draft-04 validators
            schema["required"] = list(self.required)
        schema["additionalProperties"] = False
        return schema

    def definition(self) -> JsonObject:
        return {
            "name": self.name,
            "description": self.description,
            "inputSchema": self.input_schema(),
        }

    def check_arguments(self, arguments: JsonObject) -> None:
        """Refuse undeclared arguments: ``Forbidden`` for an identity on a self-only tool, else
        ``Invalid`` listing the expected ones."""
        for key in arguments:
            if key in self.properties:
                continue
            if self.self_only and key in IDENTITY_ARGUMENTS:
                raise Forbidden(
                    f"{self.name} only ever sets YOUR OWN row; your identity comes from the "
                    f"connection, so drop the {key!r} argument"
                )
            expected = ", ".join(self.properties) or "none"
            raise Invalid(f"unknown argument {key!r} for {self.name}; expected: {expected}")

    def command(self, arguments: JsonObject) -> Command:
        """The command these arguments ask for; raises ``Invalid``, ``MissingField``,
        ``Forbidden``."""
        if self.action is None:
            raise Invalid(f"{self.name} does not map to an orchestrator command")
        self.check_arguments(arguments)
        to_wire = dict(self.wire_names)
        wire: JsonObject = {"action": self.action}
        for key, value in arguments.items():
            wire[to_wire.get(key, key)] = value
        try:
            return validate_request(wire)
        except MissingField as exc:
            raise MissingField(self._argument(exc.field)) from None
        except Invalid as exc:
            raise Invalid(self._rename(exc.message)) from None

    def _argument(self, wire_field: str) -> str:
        for argument, wire in self.wire_names:
            if wire == wire_field:
                return argument
        return wire_field

    def _rename(self, message: str) -> str:
        """Validation messages name wire fields; the model knows the tool's argument names."""
        for argument, wire in self.wire_names:
            message = re.sub(rf"\b{re.escape(wire)}\b", argument, message)
        return message


TOOLS: tuple[Tool, ...] = (
    Tool(
        "idea_list_agents",
        "List the agents of this project (name, profile, mode, description, whether it is "
        "running, board status) to find whom to ask or spawn.",
        {},
        result="data",
    ),
    Tool(
        "idea_ask_agent",
        "Delegate a task to another agent and wait for its final reply (one ask at a time per "
        "agent). Errors: FORBIDDEN, DEPTH_EXCEEDED, BUDGET_EXCEEDED, RATE_LIMITED, TIMEOUT.",
        {
            "target": _text(f"name of the agent to ask ({_SLUG})"),
            "task": _text("the complete task or question, self-contained"),
            "timeout_s": {
                "type": "number",
                "minimum": 1,
                "description": "seconds the agent may take to answer, at most "
                f"{TIMEOUT_MAX_S:,.0f} (default: the project policy's ask_timeout_s, "
                f"{DEFAULT_TURN_TIMEOUT_S:g} unless set)",
            },
        },
        required=("target", "task"),
        action=AskAgent.ACTION,
        wire_names=(("target", "targetAgent"), ("timeout_s", "timeoutS")),
        result="reply",
    ),
    Tool(
        "idea_spawn_agent",
        "Start an agent in the background, creating it first with this profile and context "
        "if it does not exist yet.",
        {
            "name": _text(f"agent name ({_SLUG})"),
            "profile": _text(
                f"CLI profile of a NEW agent: {', '.join(builtin_profile_names())} or a project "
                f"profile (default {DEFAULT_PROFILE})",
                required=False,
            ),
            "context": _text("role and instructions of a NEW agent (Markdown)", required=False),
        },
        required=("name",),
        action=SpawnAgent.ACTION,
    ),
    Tool(
        "idea_stop_agent",
        "Stop an agent's running session; its definition and context are kept.",
        {"name": _text(f"agent name ({_SLUG})")},
        required=("name",),
        action=StopAgent.ACTION,
    ),
    Tool(
        "idea_update_agent_context",
        "Replace an agent's context (its role and instructions, Markdown); it applies from "
        "its next session start.",
        {
            "name": _text(f"agent name ({_SLUG})"),
            "context": _text("the new context, replacing the old one entirely"),
        },
        required=("name", "context"),
        action=UpdateAgentContext.ACTION,
    ),
    Tool(
        "idea_create_skill",
        "Create or replace a project skill every agent can use: a name, a one-line "
        "description of when to use it, and a Markdown body.",
        {
            "name": _text(f"skill name ({_SLUG})"),
            "description": _text("one line: what the skill does and when to use it"),
            "body": _text("the skill's instructions (Markdown)"),
        },
        required=("name", "description", "body"),
        action=CreateSkill.ACTION,
    ),
    Tool(
        "idea_workstate_set",
        "Publish YOUR OWN status on the project's work-state board, with an optional intent, "
        "ticket and progress note; keep it current as you work.",
        {
            "status": {
                "type": "string",
                "enum": [s.value for s in Status],
                "description": "working, waiting (on someone), blocked or idle",
            },
            "intent": _text("what you are trying to achieve, one line", required=False),
            "ticket": _text("the ticket or issue you work on", required=False),
            "progress": _text("where you are, one line", required=False),
        },
        required=("status",),
        action=SetWorkState.ACTION,
        self_only=True,
    ),
    Tool(
        "idea_workstate_get",
        "Read the project's work-state board: every agent's status, intent, ticket, progress, "
        "liveness and queued asks.",
        {},
        action=GetProjectWorkState.ACTION,
        result="data",
    ),
    Tool(
        "idea_agent_changes",
        "What an agent working in its own git worktree changed: each file with its status and "
        "line counts, and the unified diff (cut when long). To review its work before a merge.",
        {"name": _text(f"agent name ({_SLUG})")},
        required=("name",),
        action=AgentChanges.ACTION,
        result="data",
    ),
    Tool(
        "idea_agent_merge",
        "Merge the work of an agent in its own git worktree into the project's current branch "
        "(uncommitted work committed first). On a conflict nothing changes; files are listed.",
        {"name": _text(f"agent name ({_SLUG})")},
        required=("name",),
        action=MergeAgent.ACTION,
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
