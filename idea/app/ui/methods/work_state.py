"""The UI's read of the work state (``workstate.get``): every agent's row and the chains in
flight, as ``project_work_state`` builds them."""

from __future__ import annotations

from typing import cast

from idea.app.terminal_stream import TerminalViews
from idea.app.ui.context import UiContext
from idea.app.ui.params import NoParams
from idea.app.ui.shapes import WorkState
from idea.application.project_work_state import project_work_state


def workstate_get(ctx: UiContext, _: TerminalViews, __: NoParams) -> WorkState:
    # A read, not a command: it is not logged as a delegation.
    state = project_work_state(
        ctx.s.agents,
        ctx.s.work_state,
        ctx.rt.sessions,
        ctx.rt.ask,
        ctx.rt.core.hibernation,
    )
    return cast(WorkState, state)
