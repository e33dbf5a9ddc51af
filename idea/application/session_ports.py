"""Ports of live agent sessions: terminal (PTY) sessions and structured (JSON stream) sessions.

Adapters live in ``idea.infrastructure``; fakes in ``tests/fakes``; ``tests/contracts`` runs the
same behavioural suite against both so the fakes cannot drift. All methods are called from the
core asyncio loop; listeners are called on that loop too.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from idea.domain.agent import Agent
from idea.domain.profile import AdapterKind, Profile
from idea.domain.session_events import SessionEvent, TurnFinished

Unsubscribe = Callable[[], None]
DEFAULT_SCROLLBACK_BYTES = 2 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class TerminalSpec:
    argv: tuple[str, ...]
    cwd: str
    env: Mapping[str, str]
    rows: int = 24
    cols: int = 80
    scrollback_bytes: int = DEFAULT_SCROLLBACK_BYTES


class TerminalSession(Protocol):
    """A CLI's TUI running in a pseudo-terminal."""

    @property
    def pid(self) -> int: ...

    @property
    def exit_code(self) -> int | None:
        """None while the process runs."""
        ...

    def write(self, data: str) -> None:
        """Send keystrokes. Raises ``Unavailable`` once the process has exited."""
        ...

    def resize(self, rows: int, cols: int) -> None:
        """Raises ``Invalid`` for sizes below 1; a no-op once exited."""
        ...

    def subscribe(self, listener: Callable[[str], None]) -> Unsubscribe:
        """``listener`` gets decoded output chunks in order (never a split character)."""
        ...

    def on_exit(self, listener: Callable[[int], None]) -> Unsubscribe:
        """``listener`` gets the exit code once (at once if already exited)."""
        ...

    def scrollback(self) -> str:
        """The most recent output, bounded in bytes, to replay into a re-attached view."""
        ...

    async def wait(self) -> int:
        """The exit code, once the process has exited."""
        ...

    async def stop(self) -> None:
        """Kill the whole process tree (hang-up, terminate, kill); idempotent."""
        ...


class TerminalLauncher(Protocol):
    async def start(self, spec: TerminalSpec) -> TerminalSession:
        """Raises ``Unavailable`` if the program cannot be started (message names it)."""
        ...


@dataclass(frozen=True, slots=True)
class McpServerEntry:
    """How a CLI starts IdeA's MCP bridge: the ``idea`` server entry of its declaration."""

    command: str
    args: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class StructuredSpec:
    """Everything an adapter needs to start a CLI in structured mode.

    ``program`` is the command line that runs the CLI, before its own arguments: its absolute
    path (never a shim), or a ``node`` and the script it runs; ``cwd`` is the project root;
    ``run_dir`` is the agent's own folder, where the adapter writes what it injects (context, MCP
    declaration).
    """

    kind: AdapterKind
    program: tuple[str, ...]
    cwd: str
    run_dir: str
    env: Mapping[str, str]
    context: str = ""
    mcp: McpServerEntry | None = None
    resume_conversation_id: str | None = None
    model: str | None = None
    # The agent's ``permission_mode`` (one of its profile's); None: as the CLI is set up.
    permission_mode: str | None = None
    tool_timeout_s: float = 600.0
    # The profile's own arguments (its ``command`` after the program), given to the CLI too.
    args: tuple[str, ...] = ()
    # Where the whole text of a reply cut at the cap is kept (DESIGN.md §18); None: not kept.
    replies_dir: str | None = None


class AgentSession(Protocol):
    """A CLI driven turn by turn through its JSON protocol.

    One turn at a time: callers serialise (the orchestrator's per-agent FIFO). A timeout never
    kills the session: the turn is interrupted and the next ``send`` works.
    """

    @property
    def conversation_id(self) -> str | None:
        """The CLI's conversation id once known (used to resume after a restart)."""
        ...

    @property
    def busy(self) -> bool:
        """A turn is running."""
        ...

    @property
    def alive(self) -> bool:
        """False once shut down or once the CLI died for good."""
        ...

    def pids(self) -> list[int]:
        """Processes the session currently runs (empty between turns for per-turn CLIs)."""
        ...

    def send(self, prompt: str) -> AsyncIterator[SessionEvent]:
        """Run one turn; the last event is ``TurnFinished``.

        Raises ``Conflict`` if a turn is already running, ``Unavailable`` if the session is
        shut down, ``AgentFailed`` if the CLI process dies mid-turn.
        """
        ...

    async def send_blocking(self, prompt: str, timeout: float) -> TurnFinished:
        """Run one turn and return its end: the final text, and its usage when the CLI said.

        Raises ``IdeaTimeout`` (the turn is interrupted, the session lives on), ``RateLimited``
        (the CLI refused the turn for a rate limit or quota), ``AgentFailed`` (any other error
        the CLI reported), and what ``send`` raises.
        """
        ...

    async def interrupt(self) -> None:
        """Stop the running turn, if any; the session stays usable."""
        ...

    async def shutdown(self) -> None:
        """End the session and kill its process tree; idempotent."""
        ...

    def subscribe(self, listener: Callable[[SessionEvent], None]) -> Unsubscribe:
        """``listener`` sees every event of every turn (the chat view)."""
        ...


class StructuredLauncher(Protocol):
    async def start(self, spec: StructuredSpec) -> AgentSession:
        """Raises ``Unavailable`` if the CLI cannot be started."""
        ...


class SessionStarter(Protocol):
    """Prepares an agent's run dir (injected context, MCP declaration) and starts its CLI.

    Both methods raise ``Unavailable`` when the profile's CLI is not installed or cannot start.
    """

    async def start_terminal(
        self, agent: Agent, profile: Profile, rows: int, cols: int
    ) -> TerminalSession: ...

    async def start_structured(
        self, agent: Agent, profile: Profile, resume_conversation_id: str | None
    ) -> AgentSession: ...
