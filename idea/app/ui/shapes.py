"""The UI's shapes, collected for ``idea.app.ui.typegen`` (``ui/src/model/api.gen.ts``).

Invariant: a shape is a ``TypedDict`` declared beside the function that builds it, as that
function's return type, so mypy fails when builder and shape disagree:

- layouts: ``LeafJson``, ``SplitJson``, ``TabJson`` (domain/layout/tree.py), ``LayoutsJson``
  (domain/layout/layouts.py);
- what turns cost: ``UsageJson``, ``RateLimitJson`` (domain/usage.py);
- the work state (``workstate.get``): application/project_work_state.py, and a row's
  ``LastDelegationJson`` (application/work_state.py);
- the delegation log: ``DelegationJson`` (application/orchestrator_service.py), with an ask's
  ``AskTraceJson`` (domain/outcome.py);
- a chat's entries: domain/session_events.py;
- the UI's own rows and pushed events: app/ui/rows.py, app/ui/methods/, app/ui/server.py.

Here is only what no single builder owns: the unions the UI names (``LayoutNode``,
``SessionEntry``, ``ChatEntry``), the entry the server adds when a turn starts (``chat.history``
names it too, so it cannot live in server.py), and the ``Intersect`` marker. A name ending in
``Json`` loses it in TypeScript (``UsageJson`` is ``Usage``). Keys a newer IdeA may add to saved
files (``extra``) are in no shape.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypedDict

from idea.domain.layout import NodeJson
from idea.domain.session_events import FinalEntry, TextEntry, ToolResultEntry, ToolUseEntry

LayoutNode = NodeJson

# --- a chat (domain/session_events.py, app/ui/server.py, app/chat_transcripts.py) -------------


class TurnStartedEntry(TypedDict):
    """A turn began: the task it was given and who asked (None: the UI or a request file)."""

    type: Literal["turn_started"]
    requester_id: str | None
    prompt: str


SessionEntry = TextEntry | ToolUseEntry | ToolResultEntry | FinalEntry | TurnStartedEntry


class Seq(TypedDict):
    seq: int


class Intersect:
    """``Annotated[A, Intersect(B, C)]``: a shape that is ``A`` with ``B``'s and ``C``'s keys
    (``A & B & C`` in TypeScript), for a union of entries that each carry the same extra keys."""

    def __init__(self, *shapes: type) -> None:
        self.shapes = shapes


# A chat's entry as a client gets it: the entry and its number (``chat.history``, ``ChatEvent``).
ChatEntry = Annotated[SessionEntry, Intersect(Seq)]
