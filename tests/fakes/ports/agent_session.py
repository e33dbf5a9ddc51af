"""An in-memory structured session: the fake of the ``AgentSession`` port.

It shares ``TurnSession`` with the real adapters, so turn, timeout and interrupt semantics are the
real ones; only the "CLI" is a script: ``reply(prompt)`` gives the final text, and a test can hold
a turn open with ``gate`` to observe queuing, timeouts and interrupts. ``usage`` is what every
turn reports; ``rate_limit_next`` makes the next turn a rate-limit refusal.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from idea.domain.session_events import TextDelta, TurnFinished
from idea.domain.usage import RateLimit, Usage
from idea.infrastructure.clis.turn_session import TurnSession


class FakeAgentSession(TurnSession):
    def __init__(
        self,
        name: str = "fake",
        reply: Callable[[str], str] = lambda prompt: f"echo: {prompt}",
        conversation_id: str = "conv-fake",
        replies_dir: str | None = None,
    ) -> None:
        super().__init__(name, replies_dir)
        self.reply = reply
        self.prompts: list[str] = []
        self.interrupts = 0
        self.closed_count = 0
        self.gate: asyncio.Event | None = None  # when set by a test, turns wait for it
        # When set by a test, handing a prompt over waits for it (a CLI slow to start a turn).
        self.start_gate: asyncio.Event | None = None
        self.close_gate: asyncio.Event | None = None  # when set by a test, shutdown waits for it
        self.fail_next: str | None = None  # the next turn ends with is_error
        self.rate_limit_next: RateLimit | None = None  # the next turn is refused by a limit
        self.usage: Usage | None = None  # what each turn reports
        self._runner: asyncio.Task[None] | None = None
        self._set_conversation_id(conversation_id)

    def pids(self) -> list[int]:
        return []

    async def _start_turn(self, prompt: str) -> None:
        if self.start_gate is not None:
            await self.start_gate.wait()
        self.prompts.append(prompt)
        self._runner = asyncio.create_task(self._run(prompt))

    async def _run(self, prompt: str) -> None:
        if self.gate is not None:
            await self.gate.wait()
        text = self.reply(prompt)
        self._emit(TextDelta(text))
        error, self.fail_next = self.fail_next, None
        limit, self.rate_limit_next = self.rate_limit_next, None
        if limit is not None:
            error = limit.reason
        self._emit(
            TurnFinished(
                text=text if error is None else "",
                is_error=error is not None,
                error=error,
                conversation_id=self.conversation_id,
                usage=self.usage,
                rate_limit=limit,
            )
        )

    async def _interrupt_turn(self) -> None:
        self.interrupts += 1
        if self._runner is not None and not self._runner.done():
            self._runner.cancel()
            self._emit(TurnFinished(text="", is_error=True, error="interrupted"))

    async def _close(self) -> None:
        self.closed_count += 1
        if self.close_gate is not None:
            await self.close_gate.wait()
        if self._runner is not None:
            self._runner.cancel()
