"""What the POSIX and Windows terminal sessions share: size checks and listener calls."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import TypeVar

from idea.domain.errors import Invalid

log = logging.getLogger(__name__)
_T = TypeVar("_T")


def check_size(rows: int, cols: int) -> None:
    if rows < 1 or cols < 1:
        raise Invalid(f"terminal size must be at least 1x1, got {rows}x{cols}")


def call_each(listeners: Mapping[int, Callable[[_T], None]], value: _T, what: str) -> None:
    """Call every listener; one that raises is logged and never stops the others."""
    # A snapshot: a listener may unsubscribe itself (or another) while being called.
    for listener in tuple(listeners.values()):
        try:
            listener(value)
        except Exception:
            log.exception("terminal %s listener failed", what)
