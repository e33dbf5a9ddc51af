"""The UI's read of the work state (``workstate.get``): every agent's row and the chains in
flight, as ``project_work_state`` builds them."""

from __future__ import annotations

from idea.app.terminals.streams import TerminalViews
from idea.app.ui.context import UiContext
from idea.app.ui.params import NoParams
from idea.application.project_work_state import WorkStateJson, project_work_state


def workstate_get(ctx: UiContext, _: TerminalViews, __: NoParams) -> WorkStateJson:
    # A read, not a command: it is not logged as a delegation.
    return project_work_state(
        ctx.s.agents,
        ctx.s.work_state,
        ctx.rt.sessions,
        ctx.rt.ask,
        ctx.rt.core.hibernation,
    )
