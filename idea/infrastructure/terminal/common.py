"""What the POSIX and Windows terminal sessions share: size checks, their listeners, and the two
failures a terminal reports (a program that cannot start, one that has exited), worded once."""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable
from typing import Generic, TypeVar

from idea.application.session_ports import TerminalSpec
from idea.domain.errors import Invalid, Unavailable
from idea.infrastructure.terminal.scrollback import Scrollback

log = logging.getLogger(__name__)
_T = TypeVar("_T")


def check_size(rows: int, cols: int) -> None:
    if rows < 1 or cols < 1:
        raise Invalid(f"terminal size must be at least 1x1, got {rows}x{cols}")


def cannot_start(program: str, reason: object) -> Unavailable:
    """``Unavailable("cannot start '<program>': <reason>")``; raise it ``from`` the cause."""
    return Unavailable(f"cannot start {program!r}: {reason}")


def exited(cause: BaseException | None = None) -> Unavailable:
    """``Unavailable("the terminal's program has exited")``, with what a write met, if any."""
    detail = f" ({cause})" if cause is not None else ""
    return Unavailable(f"the terminal's program has exited{detail}")


def checked_scrollback(spec: TerminalSpec) -> Scrollback:
    """Refuse a spec no terminal can start (``Invalid``); the scrollback its session keeps."""
    if not spec.argv:
        raise Invalid("a terminal needs a program to run")
    check_size(spec.rows, spec.cols)
    return Scrollback(spec.scrollback_bytes)


class Listeners(Generic[_T]):
    """Subscribers called in subscription order; one that raises never stops the others."""

    def __init__(self, what: str) -> None:
        self._what = what
        self._items: dict[int, Callable[[_T], None]] = {}
        self._tokens = itertools.count()

    def add(self, listener: Callable[[_T], None]) -> Callable[[], None]:
        token = next(self._tokens)
        self._items[token] = listener

        def unsubscribe() -> None:
            self._items.pop(token, None)

        return unsubscribe

    def call(self, value: _T) -> None:
        # A snapshot: a listener may unsubscribe itself (or another) while being called.
        for listener in tuple(self._items.values()):
            call_one(listener, value, self._what)

    def call_once(self, value: _T) -> None:
        """Call every listener, then forget them all (an exit is reported once)."""
        items = tuple(self._items.values())
        self._items.clear()
        for listener in items:
            call_one(listener, value, self._what)


def call_one(listener: Callable[[_T], None], value: _T, what: str) -> None:
    try:
        listener(value)
    except Exception:
        log.exception("terminal %s listener failed", what)
