"""An ask's trace as it grows (DESIGN.md §15): where it sits in the ask tree, then how long it
waited for its turn, then what the turn cost. Each step is a new ``AskTrace`` value told to the
ask's listener, so whoever logs the ask holds the last one, however the ask ended."""

from __future__ import annotations

from dataclasses import replace

from idea.application.caller import TraceListener
from idea.application.chains import Hop
from idea.domain.usage import Usage


class Traced:
    def __init__(self, hop: Hop, listener: TraceListener | None) -> None:
        self._listener = listener
        self.trace = hop.trace()
        self._tell()

    def waited(self, queued_ms: int) -> None:
        self.trace = replace(self.trace, queued_ms=queued_ms)
        self._tell()

    def spent(self, usage: Usage) -> None:
        self.trace = replace(self.trace, usage=usage)
        self._tell()

    def _tell(self) -> None:
        if self._listener is not None:
            self._listener(self.trace)
