"""What ``TurnSession`` guarantees every adapter beyond the contract: a caller giving up while a
turn is being started does not cut the start short (the CLI could be left running unseen)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from idea.domain.errors import IdeaTimeout, LineTooLong, Unavailable
from idea.domain.session_events import TextDelta, TurnFinished
from idea.infrastructure.clis.answer_text import REPLY_CAP_BYTES
from idea.infrastructure.clis.ndjson import OverlongLine
from tests.fakes.ports.agent_session import FakeAgentSession
from tests.waiting import until

pytestmark = pytest.mark.timeout(10)


async def test_a_caller_that_gives_up_while_the_turn_starts_lets_the_start_end_then_interrupts():
    session = FakeAgentSession()
    session.gate = asyncio.Event()  # once started, the turn runs until interrupted
    session.start_gate = asyncio.Event()
    caller = asyncio.create_task(session.send_blocking("one", timeout=0.05))
    await until(lambda: session._settling is not None)  # the caller gave up mid-start
    assert session.prompts == []
    session.start_gate.set()
    with pytest.raises(IdeaTimeout):
        await caller
    assert session.prompts == ["one"]  # the start was not cut short...
    assert session.interrupts == 1  # ...and the turn it began was interrupted
    assert not session.busy
    session.gate.set()
    assert (await session.send_blocking("two", timeout=5)).text == "echo: two"


class StartsThenFails(FakeAgentSession):
    """Its CLI refuses the first prompt once handed it, after ``start_gate``."""

    async def _start_turn(self, prompt: str) -> None:
        if not self.prompts:
            assert self.start_gate is not None
            await self.start_gate.wait()
            self.prompts.append(prompt)
            raise Unavailable("the CLI could not take the prompt")
        await super()._start_turn(prompt)


async def test_a_start_that_fails_after_its_caller_gave_up_leaves_the_session_free():
    session = StartsThenFails()
    session.start_gate = asyncio.Event()
    caller = asyncio.create_task(session.send_blocking("one", timeout=0.05))
    await until(lambda: session._settling is not None)
    session.start_gate.set()
    with pytest.raises(IdeaTimeout):
        await caller
    assert session.interrupts == 0  # nothing started: nothing to interrupt
    assert not session.busy
    assert (await session.send_blocking("two", timeout=5)).text == "echo: two"


class Huge(FakeAgentSession):
    """Says ``pieces`` pieces of text, then ends with their whole text as its answer."""

    def __init__(self, pieces: list[str], replies_dir: str | None = None) -> None:
        super().__init__("dev", replies_dir=replies_dir)
        self.pieces = pieces

    async def _run(self, prompt: str) -> None:
        for piece in self.pieces:
            self._emit(TextDelta(piece))
        self._emit(TurnFinished(text=self._bounded("".join(self.pieces))))


async def test_what_a_turn_passes_on_is_cut_at_the_cap_and_says_where_the_whole_text_is(tmp_path):
    pieces = ["x" * 65536] * 40  # 2.5 MiB
    session = Huge(pieces, str(tmp_path / "replies.d"))
    seen: list[object] = []
    session.subscribe(seen.append)
    final = await session.send_blocking("go", timeout=10)
    head, last = final.text.rsplit("\n", 1)
    assert len(head.encode()) == REPLY_CAP_BYTES
    assert last.startswith("[reply cut: 1.5 MiB more not shown; the whole reply is in ")
    kept = Path(last.removesuffix("]").rsplit(" ", 1)[1])
    assert kept.parent == tmp_path / "replies.d"
    assert kept.read_text(encoding="utf-8") == "".join(pieces)
    texts = [e.text for e in seen if isinstance(e, TextDelta)]
    assert sum(len(t.encode()) for t in texts[:-1]) == REPLY_CAP_BYTES  # the chat's share
    assert texts[-1] == "\n" + last  # then the line saying where the rest is
    assert isinstance(seen[-1], TurnFinished) and seen[-1].text == final.text


async def test_a_turn_within_the_cap_passes_everything_on(tmp_path):
    session = Huge(["a" * 1000, "b" * 1000], str(tmp_path / "replies.d"))
    final = await session.send_blocking("go", timeout=10)
    assert final.text == "a" * 1000 + "b" * 1000
    assert not (tmp_path / "replies.d").exists()


class PrintsAnOverlongLine(FakeAgentSession):
    """Its first turn prints a line too long to read, then goes on until interrupted."""

    async def _run(self, prompt: str) -> None:
        if len(self.prompts) == 1:
            self._line_too_long(OverlongLine(1024, 5 * 1024 * 1024), "fakecli")
            await asyncio.Event().wait()  # interrupted: the fake ends it with an error
        await super()._run(prompt)


async def test_an_overlong_line_fails_the_turn_with_line_too_long_and_the_next_turn_works():
    session = PrintsAnOverlongLine()
    with pytest.raises(LineTooLong) as failed:
        await session.send_blocking("one", timeout=5)
    assert failed.value.code == "LINE_TOO_LONG"
    assert "5.0 MiB" in failed.value.message and "1.0 KiB" in failed.value.message
    assert (await session.send_blocking("two", timeout=5)).text == "echo: two"
    assert session.interrupts == 1  # the failed turn was stopped, not left running


async def test_an_overlong_line_outside_a_turn_fails_nothing():
    session = FakeAgentSession()
    session._line_too_long(OverlongLine(1024, 4096), "fakecli")
    assert (await session.send_blocking("one", timeout=5)).text == "echo: one"
