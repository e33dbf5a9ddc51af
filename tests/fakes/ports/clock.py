"""A settable clock and a counting id generator: the fakes of the Clock and IdGenerator ports."""

from __future__ import annotations


class FakeClock:
    def __init__(self, now_ms: int = 1_700_000_000_000) -> None:
        self.ms = now_ms

    def now_ms(self) -> int:
        return self.ms

    def monotonic(self) -> float:
        return self.ms / 1000

    def advance(self, ms: int) -> None:
        self.ms += ms


class SequentialIds:
    def __init__(self, prefix: str = "id") -> None:
        self._prefix = prefix
        self._n = 0

    def new_id(self) -> str:
        self._n += 1
        return f"{self._prefix}-{self._n}"
