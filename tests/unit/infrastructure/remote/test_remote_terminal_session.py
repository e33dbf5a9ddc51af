"""``RemoteTerminalSession`` over a fake link: a resync of what was printed while the link was
down is owned by the session, so stopping it leaves no task behind, and none starts after."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, cast

from idea.infrastructure.remote.sessions import RemoteTerminalSession

SID = "s1"


class Link:
    """Answers ``stop`` at once; a ``scrollback`` request waits until the test lets it."""

    name = "box"

    def __init__(self) -> None:
        self.welcome: list[Callable[[dict[str, Any]], None]] = []
        self.scrollback_asked = asyncio.Event()
        self.requests: list[str] = []

    def route(self, sid: str, listener: Callable[[dict[str, Any]], None]) -> Callable[[], None]:
        return lambda: None

    def on_welcome(self, listener: Callable[[dict[str, Any]], None]) -> None:
        self.welcome.append(listener)

    async def request(self, message: dict[str, Any]) -> Any:
        self.requests.append(message["t"])
        if message["t"] == "scrollback":
            self.scrollback_asked.set()
            await asyncio.Event().wait()  # the host does not answer before the stop
        return {"ok": True}

    def reattach(self) -> None:
        for listener in self.welcome:
            listener({"sessions": {SID: {}}})


async def test_stop_ends_a_resync_in_flight_and_a_later_welcome_starts_none() -> None:
    link = Link()
    before = asyncio.all_tasks()
    session = RemoteTerminalSession(cast(Any, link), SID, pid=42)
    link.reattach()
    await asyncio.wait_for(link.scrollback_asked.wait(), 5)
    await session.stop()
    assert [task for task in asyncio.all_tasks() - before if not task.done()] == []
    link.reattach()  # the link's welcome listeners outlive the session
    await asyncio.sleep(0)
    assert link.requests == ["scrollback", "stop"]
    assert [task for task in asyncio.all_tasks() - before if not task.done()] == []
