"""What every structured adapter shares: one turn at a time, listeners, timeouts that never kill.

A turn starts with ``send`` and ends when the adapter reports ``TurnFinished`` or fails it. A caller
that stops listening (timeout, cancellation) abandons the turn: the session interrupts it and waits,
bounded, for it to settle, so the next ``send`` finds the session free. The session is only ended
by ``shutdown`` or by its CLI dying for good.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable
from dataclasses import replace

from idea.domain.errors import (
    AgentFailed,
    Conflict,
    IdeaError,
    IdeaTimeout,
    RateLimited,
    Unavailable,
)
from idea.domain.session_events import SessionEvent, TurnFinished

log = logging.getLogger(__name__)

SETTLE_TIMEOUT_S = 10.0


class _Turn:
    def __init__(self) -> None:
        self.queue: asyncio.Queue[SessionEvent | IdeaError] = asyncio.Queue()
        self.done = asyncio.Event()
        self.abandoned = False
        self.interrupted = False  # ``interrupt()`` was asked for while it ran


class TurnSession(ABC):
    """Base of the structured adapters; subclasses implement the four abstract methods and call
    ``_emit`` / ``_fail_turn`` from their output handlers."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._conversation_id: str | None = None
        self._listeners: list[Callable[[SessionEvent], None]] = []
        self._turn: _Turn | None = None
        self._settling: asyncio.Task[None] | None = None
        self._closed = False

    # --- what adapters implement -------------------------------------------------------------

    @abstractmethod
    async def _start_turn(self, prompt: str) -> None:
        """Hand the prompt to the CLI. Raises ``Unavailable``/``AgentFailed``."""

    @abstractmethod
    async def _interrupt_turn(self) -> None:
        """Ask the CLI to stop the running turn; it must then report or fail the turn soon."""

    @abstractmethod
    async def _close(self) -> None:
        """Stop every process of the session (idempotent)."""

    @abstractmethod
    def pids(self) -> list[int]: ...

    # --- the AgentSession port ------------------------------------------------------------------

    @property
    def conversation_id(self) -> str | None:
        return self._conversation_id

    @property
    def busy(self) -> bool:
        return self._turn is not None

    @property
    def alive(self) -> bool:
        return not self._closed

    def subscribe(self, listener: Callable[[SessionEvent], None]) -> Callable[[], None]:
        self._listeners.append(listener)

        def unsubscribe() -> None:
            with contextlib.suppress(ValueError):
                self._listeners.remove(listener)

        return unsubscribe

    async def send(self, prompt: str) -> AsyncIterator[SessionEvent]:
        await self._wait_settled()
        if self._closed:
            raise Unavailable(f"the session of {self.name} has ended")
        if self._turn is not None:
            raise Conflict(f"{self.name} is already working on a turn")
        turn = self._turn = _Turn()
        # A caller that gives up (timeout, cancellation) while the CLI is being handed the prompt
        # does not cut the start short: a start cut between spawning a process and recording it
        # would leave that process running unseen. The start goes on; the turn is abandoned.
        starting = asyncio.ensure_future(self._start_turn(prompt))
        try:
            await asyncio.shield(starting)
        except asyncio.CancelledError:
            turn.abandoned = True
            self._settling = asyncio.create_task(
                self._settle_start(turn, starting), name=f"{self.name}-settle"
            )
            raise
        except BaseException:
            self._end_turn(turn)
            raise
        try:
            while True:
                item = await turn.queue.get()
                if isinstance(item, IdeaError):
                    raise item
                yield item
                if isinstance(item, TurnFinished):
                    return
        finally:
            if not turn.done.is_set():
                turn.abandoned = True
                self._settling = asyncio.create_task(self._settle(turn), name=f"{self.name}-settle")

    async def send_blocking(self, prompt: str, timeout: float) -> TurnFinished:
        final: TurnFinished | None = None
        try:
            async with asyncio.timeout(timeout):
                async for event in self.send(prompt):
                    if isinstance(event, TurnFinished):
                        final = event
        except TimeoutError:
            await self._wait_settled()
            raise IdeaTimeout(
                f"{self.name} did not finish its turn within {timeout:g} s; the turn was "
                "interrupted and the agent is still running"
            ) from None
        if final is None:  # pragma: no cover - send always ends with TurnFinished or raises
            raise AgentFailed(f"{self.name} ended its turn without an answer")
        if final.is_error:
            reason = final.error or final.text
            if final.rate_limit is not None:
                raise RateLimited(
                    f"{self.name} is rate-limited: {final.rate_limit.reason}",
                    final.rate_limit.resets_at_ms,
                )
            raise AgentFailed(f"{self.name} reported an error: {reason}")
        return final

    async def interrupt(self) -> None:
        if self._turn is not None:
            self._turn.interrupted = True
            await self._interrupt_turn()

    async def shutdown(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            await self._close()
        finally:
            self._fail_turn(Unavailable(f"the session of {self.name} was shut down"))

    # --- for adapters ---------------------------------------------------------------------------

    @property
    def _interrupt_asked(self) -> bool:
        """``interrupt()`` was called during the running turn, maybe before ``_start_turn`` ran
        (the session is busy from the moment ``send`` begins)."""
        turn = self._turn
        return turn is not None and turn.interrupted

    def _set_conversation_id(self, conversation_id: str | None) -> None:
        if conversation_id:
            self._conversation_id = conversation_id

    def _emit(self, event: SessionEvent) -> None:
        """Report an event of the running turn (events outside a turn only reach listeners)."""
        turn = self._turn
        if (
            turn is not None
            and turn.interrupted
            and isinstance(event, TurnFinished)
            and event.is_error
        ):
            event = replace(event, interrupted=True)
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:
                log.exception("%s: session listener failed", self.name)
        if turn is None:
            return
        turn.queue.put_nowait(event)
        if isinstance(event, TurnFinished):
            self._end_turn(turn)

    def _fail_turn(self, error: IdeaError) -> None:
        """End the running turn with ``error`` (the CLI died, or the session was shut down).
        A turn ``interrupt()`` ended (its CLI killed, say) ends like one the CLI reported
        interrupted: a final event that says so, which the chat keeps."""
        turn = self._turn
        if turn is not None and turn.interrupted and type(error) is AgentFailed:
            self._emit(TurnFinished(text="", is_error=True, error=error.message, interrupted=True))
            return
        if turn is not None:
            turn.queue.put_nowait(error)
            self._end_turn(turn)

    def _mark_dead(self) -> None:
        """The CLI is gone for good: the session cannot take another turn."""
        self._closed = True

    def _end_turn(self, turn: _Turn) -> None:
        turn.done.set()
        if self._turn is turn:
            self._turn = None

    # --- internals --------------------------------------------------------------------------------

    async def _settle(self, turn: _Turn) -> None:
        try:
            await self._interrupt_turn()
            async with asyncio.timeout(SETTLE_TIMEOUT_S):
                await turn.done.wait()
        except Exception:
            await self._recover()
            self._fail_turn(AgentFailed(f"{self.name}: the interrupted turn did not stop"))

    async def _settle_start(self, turn: _Turn, starting: asyncio.Future[None]) -> None:
        """Once a start nobody waits for any more has ended: settle the turn it began."""
        try:
            await starting
        except BaseException:  # it started nothing: the turn is over
            self._end_turn(turn)
            return
        if not turn.done.is_set():
            await self._settle(turn)

    async def _recover(self) -> None:
        """Last resort when a turn cannot be interrupted; adapters may restart their CLI."""
        log.warning("%s: an interrupted turn did not stop", self.name)

    async def _wait_settled(self) -> None:
        task = self._settling
        if task is not None and not task.done():
            with contextlib.suppress(Exception):
                await asyncio.shield(task)
