"""The screen of each terminal someone looks at, kept on the server and shared by every client.

A view that cannot take a terminal's byte stream (hidden, not focused, behind) is sent this
screen instead (DESIGN.md §12). A terminal's screen exists from the first time one is asked of it:
it starts from the terminal's scrollback and follows its output from then on (both in one step,
so nothing is lost or repeated); it is forgotten when the terminal ends. It takes the size the
views last gave the terminal.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from idea.application.session_ports import TerminalSession, Unsubscribe

DEFAULT_SIZE = (24, 80)


class ScreenState(Protocol):
    """A VT emulator fed a terminal's decoded output."""

    def feed(self, text: str) -> None: ...

    def resize(self, rows: int, cols: int) -> None: ...

    def snapshot(self) -> str:
        """What, written into a freshly reset terminal of this size, draws this screen."""
        ...


class TerminalScreens:
    def __init__(self, new_screen: Callable[[int, int], ScreenState]) -> None:
        self._new_screen = new_screen
        self._screens: dict[TerminalSession, tuple[ScreenState, Unsubscribe]] = {}
        self._sizes: dict[TerminalSession, tuple[int, int]] = {}
        self._watched: set[TerminalSession] = set()

    def snapshot(self, session: TerminalSession) -> str:
        entry = self._screens.get(session)
        if entry is not None:
            return entry[0].snapshot()
        screen = self._new_screen(*self._sizes.get(session, DEFAULT_SIZE))
        screen.feed(session.scrollback())
        if self._watch(session):
            self._screens[session] = (screen, session.subscribe(screen.feed))
        return screen.snapshot()  # an ended terminal's: what it left, made anew when asked

    def resized(self, session: TerminalSession, rows: int, cols: int) -> None:
        if not self._watch(session):
            return
        self._sizes[session] = (rows, cols)
        entry = self._screens.get(session)
        if entry is not None:
            entry[0].resize(rows, cols)

    def __len__(self) -> int:
        return len(self._screens)

    def _watch(self, session: TerminalSession) -> bool:
        """Forget the session when it ends; False if it has ended."""
        if session.exit_code is not None:
            return False
        if session not in self._watched:
            self._watched.add(session)
            session.on_exit(lambda _code: self._forget(session))
        return True

    def _forget(self, session: TerminalSession) -> None:
        self._watched.discard(session)
        self._sizes.pop(session, None)
        entry = self._screens.pop(session, None)
        if entry is not None:
            entry[1]()
