"""What every structured adapter shares: one turn at a time, listeners, timeouts that never kill.

A turn starts with ``send`` and ends when the adapter reports ``TurnFinished`` or fails it. A caller
that stops listening (timeout, cancellation) abandons the turn: the session interrupts it and waits,
bounded, for it to settle, so the next ``send`` finds the session free. The session is only ended
by ``shutdown`` or by its CLI dying for good.

What a turn passes on is bounded (DESIGN.md §18): its text events carry at most
``REPLY_CAP_BYTES`` (then one line saying how much more there was), adapters build its answer
with ``_answer_text``/``_bounded`` (the whole text of a cut answer kept in the replies folder),
and a stream line too long to read fails the turn it belongs to with ``LineTooLong`` while the
turn itself settles like an abandoned one, so the next ``send`` works.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from pathlib import Path

from idea.domain.errors import (
    AgentFailed,
    Conflict,
    IdeaError,
    IdeaTimeout,
    LineTooLong,
    RateLimited,
    Unavailable,
)
from idea.domain.session_events import SessionEvent, TextDelta, TurnFinished
from idea.infrastructure.clis.answer_text import (
    REPLY_CAP_BYTES,
    AnswerText,
    ReplySpill,
    cut_line,
    size_text,
    utf8_head,
)
from idea.infrastructure.clis.ndjson import OverlongLine
from idea.infrastructure.stores.replies import ReplyFiles

log = logging.getLogger(__name__)

SETTLE_TIMEOUT_S = 10.0


class _Turn:
    def __init__(self) -> None:
        self.queue: asyncio.Queue[SessionEvent | IdeaError] = asyncio.Queue()
        self.done = asyncio.Event()
        self.abandoned = False
        self.interrupted = False  # ``interrupt()`` was asked for while it ran
        self.failed = False  # its caller was told it failed; the CLI may still be ending it
        self.shown_bytes = 0  # text passed on in its ``TextDelta``s
        self.hidden_bytes = 0  # text past the cap, not passed on


class TurnSession(ABC):
    """Base of the structured adapters; subclasses implement the four abstract methods and call
    ``_emit`` / ``_fail_turn`` from their output handlers."""

    def __init__(self, name: str, replies_dir: str | None = None) -> None:
        """``replies_dir``: where the whole text of an answer cut at the cap is kept."""
        self.name = name
        self._replies = ReplyFiles(Path(replies_dir)) if replies_dir else None
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
        except AgentFailed as exc:
            if not (turn.interrupted and type(exc) is AgentFailed):
                self._end_turn(turn)
                raise
            # Interrupted before its CLI had it: it ends like any interrupted turn, saying so.
            self._fail_turn(exc)
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
        if turn is not None and isinstance(event, TextDelta):
            shown = _shown(turn, event)
            if shown is None:
                return
            event = shown
        if turn is not None and isinstance(event, TurnFinished) and turn.hidden_bytes:
            self._pass_on(turn, TextDelta("\n" + _chat_cut_line(turn, event.text)))
        if (
            turn is not None
            and turn.interrupted
            and isinstance(event, TurnFinished)
            and event.is_error
        ):
            event = replace(event, interrupted=True)
        self._pass_on(turn, event)

    def _pass_on(self, turn: _Turn | None, event: SessionEvent) -> None:
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:
                log.exception("%s: session listener failed", self.name)
        if turn is None:
            return
        if not turn.failed:  # nobody reads a failed turn's events any more
            turn.queue.put_nowait(event)
        if isinstance(event, TurnFinished):
            self._end_turn(turn)

    def _answer_text(self) -> AnswerText:
        """A new bounded answer whose whole text, once cut, is kept in the replies folder."""
        replies = self._replies
        if replies is None:
            return AnswerText()

        def spill() -> ReplySpill:
            return replies.open(self.name)

        return AnswerText(spill=spill)

    def _bounded(self, text: str) -> str:
        """``text`` (a whole answer) cut at the cap, its whole text kept if it was cut."""
        if len(text) * 4 <= REPLY_CAP_BYTES:  # cannot be over the cap: no need to count
            return text
        answer = self._answer_text()
        answer.add(text)
        return answer.text()

    def _line_too_long(self, line: OverlongLine, cli_name: str) -> None:
        """A line too long to read (dropped by the decoder): the running turn fails with
        ``LineTooLong`` now; the turn itself then settles as an abandoned one (interrupted,
        or its CLI restarted), so the session takes the next turn. Adapters call it only for a
        line of the running turn: a leftover of an earlier one must not fail this one."""
        turn = self._turn
        message = (
            f"{self.name}: {cli_name} printed a line of {size_text(line.seen_bytes)}, longer "
            f"than the {size_text(line.limit)} IdeA reads; the turn was stopped"
        )
        if turn is None or turn.failed:
            log.warning("%s (no turn of it to fail: ignored)", message)
            return
        log.warning("%s", message)
        turn.failed = True
        turn.queue.put_nowait(LineTooLong(message))

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


def _shown(turn: _Turn, delta: TextDelta) -> TextDelta | None:
    """What of ``delta`` the turn passes on: all of it up to the cap, then nothing."""
    data = delta.text.encode("utf-8", "surrogatepass")
    if turn.hidden_bytes:
        turn.hidden_bytes += len(data)
        return None
    room = REPLY_CAP_BYTES - turn.shown_bytes
    if len(data) <= room:
        turn.shown_bytes += len(data)
        return delta
    head = utf8_head(data, room)
    kept = len(head.encode("utf-8", "surrogatepass"))
    turn.shown_bytes += kept
    turn.hidden_bytes = len(data) - kept
    return TextDelta(head) if head else None


def _chat_cut_line(turn: _Turn, answer: str) -> str:
    """The line that ends a turn's cut text: the answer's own cut line when it has one (it says
    where the whole text is), else how much the text events left out."""
    last = answer[answer.rfind("\n") + 1 :]
    return last if last.startswith("[reply cut: ") else cut_line(turn.hidden_bytes, None)
