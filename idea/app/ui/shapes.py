"""The shapes the UI is sent that are built outside ``idea.app.ui`` (the layouts, the board, the
delegation log, a chat's entries): declared here once, as ``TypedDict``s, for ui/src.

Invariant: each shape says what its builder's ``to_json`` writes (the builder is named on each);
``idea.app.ui.typegen`` writes them into ``ui/src/model/api.gen.ts`` under the same names (a
name ending in ``Json`` loses it there: ``UsageJson`` is ``Usage``). Keys a newer IdeA may add to
saved files (``extra``) are not listed.
"""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired, TypedDict

from idea.domain.commands import Source
from idea.domain.layout import NodeJson
from idea.domain.session_events import FinalEntry, TextEntry, ToolResultEntry, ToolUseEntry
from idea.domain.usage import RateLimitJson, UsageJson
from idea.domain.work_state import Status

LayoutNode = NodeJson  # layouts: domain/layout (each ``to_json``)

# --- a chat (domain/session_events.py ``to_json``, app/chat_transcripts.py) --------------------


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


class ChatHistory(TypedDict):
    entries: list[ChatEntry]
    seq: int
    queued: int


# --- events the UI server pushes itself (app/ui/server.py) ------------------------------------


class ChatEventWho(TypedDict):
    """``ChatEvent`` is this, the entry and its ``seq``."""

    agent_id: str
    agent_name: str


class ProjectOpened(TypedDict):
    id: str
    name: str
    root: str


class TerminalExit(TypedDict):
    agent_id: str
    agent_name: str
    exit_code: int
