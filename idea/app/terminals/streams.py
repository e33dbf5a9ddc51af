"""One UI client's terminal streams: the pump that sends its outbox, and its terminal views.

``OutboxPump`` sends what the outbox holds, as soon as it is due. ``ClientStreams`` ties terminal
sessions to one client's outbox: an attach snapshots the terminal (its scrollback, or its screen
for a view not on screen) and subscribes to its output in one step, so nothing is lost or
repeated in between.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Protocol

from idea.app.terminals.frames import Message, encode_frame
from idea.app.terminals.outbox import ClientOutbox, View
from idea.app.terminals.screens import TerminalScreens
from idea.application.session_ports import TerminalSession, Unsubscribe


class OutboxPump:
    """Sends what an outbox holds, one item at a time, as soon as it is due.

    ``poke`` after every push or feed; ``run`` until cancelled or the send fails (client gone).
    A send that blocks (a client that does not read) stalls only this pump.
    """

    def __init__(
        self,
        outbox: ClientOutbox,
        send_text: Callable[[str], Awaitable[None]],
        send_bytes: Callable[[bytes], Awaitable[None]],
    ) -> None:
        self._outbox = outbox
        self._send_text = send_text
        self._send_bytes = send_bytes
        self._wake = asyncio.Event()

    def poke(self) -> None:
        self._wake.set()

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            self._wake.clear()
            item = self._outbox.next(loop.time())
            if item is None:
                await self._wake.wait()
            elif isinstance(item, float):
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout_at(item):
                        await self._wake.wait()
            elif isinstance(item, Message):
                await self._send_text(item.text)
            else:
                await self._send_bytes(encode_frame(item))
                # A send that the socket takes at once does not yield: let the terminals'
                # readers run between frames, so a key's echo is in line before the next screen.
                await asyncio.sleep(0)


class TerminalViews(Protocol):
    """A client's terminal views: what the UI API's ``terminal.*`` methods act on."""

    def attach(self, session: TerminalSession, view: View | None = None) -> tuple[str, str, bool]:
        """Stream ``session`` to this client from now on: (attach id, text to write first,
        whether that text is only the current screen rather than the scrollback)."""
        ...

    def detach(self, attach_id: str) -> bool:
        """Stop that stream; False if this client has no such attach id."""
        ...

    def set_view(self, attach_id: str, view: View, parsed: int | None = None) -> bool: ...

    def ack(self, attach_id: str, parsed: int) -> bool: ...

    def history(self, attach_id: str) -> bool: ...

    def resized(self, session: TerminalSession, rows: int, cols: int) -> None:
        """The terminal was given this size (its screen on the server follows)."""
        ...


Sends = tuple[Callable[[str], Awaitable[None]], Callable[[bytes], Awaitable[None]]]


class ClientStreams:
    """One client's outbox, pump and terminal views (the ``TerminalViews`` of ``ui.api``)."""

    def __init__(
        self,
        outbox: ClientOutbox,
        sends: Sends,
        new_attach_id: Callable[[], str],
        on_overflow: Callable[[], None],
        screens: TerminalScreens | None = None,
    ) -> None:
        self.outbox = outbox
        self.pump = OutboxPump(outbox, *sends)
        self._new_attach_id = new_attach_id
        self._on_overflow = on_overflow
        self._screens = screens
        self._views: dict[str, tuple[TerminalSession, Unsubscribe]] = {}
        self._released = False

    def attach(self, session: TerminalSession, view: View | None = None) -> tuple[str, str, bool]:
        attach_id = self._new_attach_id()
        if self._released:
            return attach_id, "", False
        screens = self._screens
        screen = None if screens is None else (lambda: screens.snapshot(session))
        self.outbox.open(attach_id, session.scrollback, screen)
        if view is not None:
            self.outbox.set_view(attach_id, view)

        def output(text: str) -> None:
            # Waking the pump for every chunk of a busy terminal would cost more than the chunk.
            if self.outbox.feed(attach_id, text):
                self.pump.poke()

        # Snapshot and subscription in one step: nothing is lost or repeated in between.
        # A view on screen starts from the whole history (a reload shows what it showed); one
        # not on screen needs no more than the screen, the history is asked for when wanted.
        only_screen = screen is not None and view is View.HIDDEN
        first = screen() if screen is not None and only_screen else session.scrollback()
        self._views[attach_id] = (session, session.subscribe(output))
        return attach_id, first, only_screen

    def detach(self, attach_id: str) -> bool:
        entry = self._views.pop(attach_id, None)
        if entry is None:
            return False
        entry[1]()
        self.outbox.close(attach_id)
        return True

    def detach_all(self) -> None:
        for attach_id in list(self._views):
            self.detach(attach_id)

    def set_view(self, attach_id: str, view: View, parsed: int | None = None) -> bool:
        return self._poked(self.outbox.set_view(attach_id, view, parsed))

    def ack(self, attach_id: str, parsed: int) -> bool:
        return self._poked(self.outbox.ack(attach_id, parsed))

    def history(self, attach_id: str) -> bool:
        return self._poked(self.outbox.history(attach_id))

    def resized(self, session: TerminalSession, rows: int, cols: int) -> None:
        if self._screens is not None:
            self._screens.resized(session, rows, cols)

    def flush(self, session: TerminalSession) -> None:
        """This terminal's pending output leaves before the next message (its exit event)."""
        for attach_id, (shown, _) in self._views.items():
            if shown is session:
                self.outbox.flush(attach_id)

    def push(self, text: str) -> None:
        """Queue a JSON message; an overflow releases this client and calls ``on_overflow``."""
        if self._released:
            return
        self.outbox.push(text)
        if self.outbox.overflowed:
            self.release()
            self._on_overflow()
        self.pump.poke()

    def release(self) -> None:
        """Stop every terminal view and accept nothing more (the client is gone or dropped)."""
        self._released = True
        for _, unsubscribe in self._views.values():
            unsubscribe()
        self._views.clear()

    def _poked(self, found: bool) -> bool:
        if found:
            self.pump.poke()
        return found
