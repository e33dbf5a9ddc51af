"""What a turn cost, as its CLI reported it (DESIGN.md §15), and a CLI's rate-limit refusal.

``Usage`` adds up: per turn, per chain, per agent. Tokens are counted as each CLI counts them;
``total_tokens`` is every token the turn moved (input, output, cache reads and writes), the
figure a chain's token budget is spent in. ``cost_usd`` is only known where the CLI gives it.
``UsageJson`` and ``RateLimitJson`` are what their ``to_json`` write (the UI is sent them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NotRequired, TypedDict

from idea.domain.json_types import JsonValue


class UsageJson(TypedDict):
    """What turns cost, as their CLIs reported it (DESIGN.md §15)."""

    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    total_tokens: int
    cost_usd: float | None
    turns: NotRequired[int]  # on an agent's totals only


@dataclass(frozen=True, slots=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float | None = None

    @property
    def total_tokens(self) -> int:
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_read_tokens
            + self.cache_write_tokens
        )

    def __add__(self, other: Usage) -> Usage:
        cost = (
            None
            if self.cost_usd is None and other.cost_usd is None
            else (self.cost_usd or 0.0) + (other.cost_usd or 0.0)
        )
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
            cost,
        )

    def to_json(self) -> UsageJson:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_read_tokens": self.cache_read_tokens,
            "cache_write_tokens": self.cache_write_tokens,
            "total_tokens": self.total_tokens,
            "cost_usd": None if self.cost_usd is None else round(self.cost_usd, 6),
        }

    @staticmethod
    def of(
        input_tokens: JsonValue = 0,
        output_tokens: JsonValue = 0,
        cache_read_tokens: JsonValue = 0,
        cache_write_tokens: JsonValue = 0,
        cost_usd: JsonValue = None,
    ) -> Usage:
        """From numbers a CLI printed: anything that is not a count is read as 0 (or no cost)."""
        return Usage(
            _count(input_tokens),
            _count(output_tokens),
            _count(cache_read_tokens),
            _count(cache_write_tokens),
            _cost(cost_usd),
        )


NO_USAGE = Usage()


class RateLimitJson(TypedDict):
    """The agent's CLI refused for a rate limit or a spent quota (its status is then blocked)."""

    reason: str
    resets_at_ms: int | None


@dataclass(frozen=True, slots=True)
class RateLimit:
    """The CLI refused a turn for a rate limit or a spent quota; ``resets_at_ms`` when it said."""

    reason: str
    resets_at_ms: int | None = None

    def to_json(self) -> RateLimitJson:
        return {"reason": self.reason, "resets_at_ms": self.resets_at_ms}


_COUNT_MAX = 10**15  # no turn moves more; a larger number is garbage, not usage


def _count(value: JsonValue) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    if math.isnan(value) or value < 0 or value > _COUNT_MAX:  # NaN, negative, absurd
        return 0
    return int(value)


def _cost(value: JsonValue) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if math.isnan(value) or value < 0 or value > 1e9:
        return None
    return float(value)
