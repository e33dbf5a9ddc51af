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

import functools
from collections.abc import Awaitable, Callable

from idea.app.project_host import ProjectHost
from idea.app.terminal_stream import TerminalViews
from idea.app.ui.context import Doctor, UiContext
from idea.app.ui.methods import agents, board, chat, layouts, project, sessions, workspace
from idea.domain.errors import CorruptFile, Invalid, MissingField
from idea.domain.json_types import JsonObject, JsonValue

__all__ = ["HANDLERS", "METHODS", "Doctor", "Method", "UiApi", "method_name"]

Result = JsonValue | Awaitable[JsonValue]
Method = Callable[[TerminalViews, JsonObject], Result]
Handler = Callable[[UiContext, TerminalViews, JsonObject], Result]

HANDLERS: tuple[Handler, ...] = (
    *(project.project_info, project.project_recent, project.project_open),
    *(project.profiles_list, agents.agents_list, agents.agents_get, agents.agents_create),
    *(agents.agents_update, agents.agents_delete, layouts.layouts_get, layouts.layouts_apply),
    *(sessions.session_launch, sessions.session_stop, sessions.session_move),
    *(sessions.terminal_attach, sessions.terminal_detach, sessions.terminal_write),
    *(sessions.terminal_resize, chat.chat_send, chat.chat_history, chat.chat_interrupt),
    *(board.workstate_get, board.delegations_recent, board.problems_list, project.doctor_run),
    *(workspace.workspace_changes, workspace.workspace_merge, workspace.workspace_discard),
    *(workspace.workspace_summary, project.trust_get, project.trust_grant, project.policy_get),
    *(project.policy_set, project.hosts_list),
)


def method_name(handler: Callable[..., object]) -> str:
    """``agents_create`` -> ``agents.create``: a method's family never has an underscore."""
    return handler.__name__.replace("_", ".", 1)


METHODS = tuple(method_name(h) for h in HANDLERS)


class UiApi:
    def __init__(
        self,
        host: ProjectHost,
        problems: Callable[[], list[CorruptFile]],
        history: Callable[[str], JsonObject],
        doctor: Doctor | None = None,
    ) -> None:
        context = UiContext(host, problems, history, doctor)
        self.methods: dict[str, Method] = {
            method_name(h): functools.partial(h, context) for h in HANDLERS
        }

    def method(self, name: object) -> Method:
        """Raises ``MissingField``/``Invalid`` (field ``method``) for a missing or unknown name."""
        if name is None or name == "":
            raise MissingField("method")
        found = self.methods.get(name) if isinstance(name, str) else None
        if found is None:
            raise Invalid(f"method: unknown method {name!r}")
        return found
