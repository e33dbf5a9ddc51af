"""What every UI method is served with: the open project (through its host) and the UI server's
own state (the files set aside, the chat histories, the doctor, the chat turns in flight).

Invariant: a method reads the CURRENT project through ``rt``/``s`` at each call, never one kept
from before a ``project.open``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from idea.app.doctor import DoctorRow
from idea.app.project_host import ProjectHost
from idea.app.runtime import ProjectRuntime, ProjectServices
from idea.domain.errors import CorruptFile
from idea.domain.json_types import JsonObject

# The project's root -> ``idea doctor``'s rows (``app/doctor.py``), without a model turn.
Doctor = Callable[[Path], Awaitable[list[DoctorRow]]]


@dataclass(eq=False, slots=True)
class ChatTurn:
    """A ``chat.send`` in flight: whether its turn is the one running, and whether
    ``chat.interrupt`` stopped it (then its AGENT_FAILED is the interruption, not a failure)."""

    running: bool = False
    interrupted: bool = False


class UiContext:
    def __init__(
        self,
        host: ProjectHost,
        problems: Callable[[], list[CorruptFile]],
        history: Callable[[str], JsonObject],
        doctor: Doctor | None = None,
    ) -> None:
        self.host = host
        self.problems = problems
        self.history = history
        self.doctor = doctor
        self.chat_turns: dict[str, list[ChatTurn]] = {}  # agent name -> its chat.sends

    @property
    def rt(self) -> ProjectRuntime:
        return self.host.current

    @property
    def s(self) -> ProjectServices:
        return self.host.current.services
