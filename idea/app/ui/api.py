"""The UI's method table: a thin facade over one ``ProjectRuntime`` (ui/API.md is its contract).

Invariant: every method takes a JSON object of params and returns JSON or raises an ``IdeaError``
(a validation error names the field); the work is done by the runtime's stores and use cases
(``create_agent``, ``LaunchAgent``, ``StopAgent``, ``OrchestratorService.dispatch``, the domain's
``Layouts`` operations). A change of agents or layouts publishes its event on the runtime's bus.
``HANDLERS`` is the one table of methods: ``agents_create`` serves ``agents.create``, and so on;
the handlers live in ``methods/`` by family; beside them ``params`` reads the params, ``rows``
builds the rows sent back, ``layout_ops`` maps ``layouts.apply``'s ops onto ``Layouts``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from idea.app.project_host import ProjectHost
from idea.app.terminals.streams import TerminalViews
from idea.app.ui.context import Doctor, UiContext
from idea.app.ui.methods import (
    agents,
    chat,
    layouts,
    logs,
    project,
    sessions,
    work_state,
    workspace,
)
from idea.app.ui.params import read_params, type_hints
from idea.domain.errors import CorruptFile, Invalid, MissingField
from idea.domain.json_types import JsonObject

__all__ = ["HANDLERS", "METHODS", "Doctor", "Method", "UiApi", "declared", "method_name"]

# What a method gives: its result (JSON: a TypedDict of ``rows``/``shapes``, a list of them...),
# or, for an async method, an awaitable of it.
Result = object
Method = Callable[[TerminalViews, JsonObject], Result]
# ``(context, views, params) -> result``: the params' type and the result's are the handler's
# annotations, from which the reader and ui/src's types are derived.
Handler = Callable[..., Any]

HANDLERS: tuple[Handler, ...] = (
    *(project.project_info, project.project_recent, project.project_open),
    *(project.profiles_list, agents.agents_list, agents.agents_get, agents.agents_create),
    *(agents.agents_update, agents.agents_delete, layouts.layouts_get, layouts.layouts_apply),
    *(sessions.session_launch, sessions.session_stop, sessions.session_move),
    *(sessions.terminal_attach, sessions.terminal_detach, sessions.terminal_write),
    *(sessions.terminal_resize, sessions.terminal_view, sessions.terminal_ack),
    *(sessions.terminal_history, chat.chat_send, chat.chat_history, chat.chat_interrupt),
    *(work_state.workstate_get, logs.delegations_recent, logs.problems_list, project.doctor_run),
    *(workspace.workspace_changes, workspace.workspace_merge, workspace.workspace_discard),
    *(workspace.workspace_summary, project.trust_get, project.trust_grant, project.policy_get),
    *(project.policy_set, project.hosts_list),
)


def method_name(handler: Callable[..., object]) -> str:
    """``agents_create`` -> ``agents.create``: a method's family never has an underscore."""
    return handler.__name__.replace("_", ".", 1)


METHODS = tuple(method_name(h) for h in HANDLERS)


def declared(handler: Handler) -> tuple[Any, Any]:
    """The params type (its third parameter's annotation) and the result type of a handler."""
    hints = type_hints(handler)
    params = list(inspect.signature(handler).parameters)[2]
    return hints[params], hints["return"]


def _bind(handler: Handler, context: UiContext) -> Method:
    params_type, _ = declared(handler)

    def method(views: TerminalViews, raw: JsonObject) -> Result:
        return handler(context, views, read_params(params_type, raw))

    return method


class UiApi:
    def __init__(
        self,
        host: ProjectHost,
        problems: Callable[[], list[CorruptFile]],
        history: Callable[[str], JsonObject],
        doctor: Doctor | None = None,
    ) -> None:
        context = UiContext(host, problems, history, doctor)
        self.methods: dict[str, Method] = {method_name(h): _bind(h, context) for h in HANDLERS}

    def method(self, name: object) -> Method:
        """Raises ``MissingField``/``Invalid`` (field ``method``) for a missing or unknown name."""
        if name is None or name == "":
            raise MissingField("method")
        found = self.methods.get(name) if isinstance(name, str) else None
        if found is None:
            raise Invalid(f"method: unknown method {name!r}")
        return found
