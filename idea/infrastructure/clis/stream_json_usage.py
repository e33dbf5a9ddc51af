"""What a stream-json turn cost, and whether a limit refused it (Claude Code, Qwen Code).

The two CLIs share the protocol but not the meaning of its numbers, so each has a meter; a meter
lives as long as the session (not the process) and is fed every ``assistant`` and ``result`` line:

* Claude Code 2.1.332: ``result.usage`` is the turn's own. ``total_cost_usd`` is cumulative, and
  a ``--resume`` restores it (observed: 0.00132 after two turns, 0.00198 after the first turn of
  the resumed process), so the turn's cost is ``model_usage_since_last_result``'s ``costUSD``
  (summed over models) and, where a CLI lacks that field, the growth of ``total_cost_usd`` since
  the session's previous result.
* Qwen Code 0.24: ``result.usage`` is the whole session's (its telemetry totals, replayed on a
  resume), and so useless per turn; each ``assistant`` line's ``message.usage`` is one model call
  (``input_tokens`` counting the cached ones too), so the turn's usage is their sum. No cost.

``stream_json_rate_limit`` reads a refusal from an error ``result``: Claude Code's
``api_error_status`` 429 / ``rate_limit_error`` / ``usage_limit_reached`` (with
``api_error_params.rate_limit_info``), a rejected ``rate_limit_event`` seen during the turn, or
an error text that says so (Qwen's ``Quota exhausted: … will reset at <ISO>``).
"""

from __future__ import annotations

from typing import Protocol

from idea.domain.json_types import JsonObject, JsonValue
from idea.domain.usage import RateLimit, Usage
from idea.infrastructure.clis.rate_limits import (
    epoch_ms,
    rate_limit,
    reset_in_text,
    says_rate_limited,
)


class TurnUsageMeter(Protocol):
    def assistant(self, line: JsonObject) -> None:
        """An ``assistant`` line of the running turn (subagents' included)."""

    def result(self, line: JsonObject) -> Usage | None:
        """The turn's ``result`` line: what the turn cost (None: the CLI said nothing)."""


class ClaudeUsage:
    def __init__(self) -> None:
        self._total_cost: float | None = None  # the previous result's ``total_cost_usd``

    def assistant(self, line: JsonObject) -> None:
        pass  # ``result.usage`` already sums the turn's model calls

    def result(self, line: JsonObject) -> Usage | None:
        usage, self._total_cost = claude_usage(line, self._total_cost)
        return usage


def claude_usage(
    result: JsonObject, previous_total_cost: float | None
) -> tuple[Usage | None, float | None]:
    """A Claude Code result's usage, and the cumulative cost to remember for the next one."""
    total = Usage.of(cost_usd=result.get("total_cost_usd")).cost_usd
    cost = _since_last_result(result.get("model_usage_since_last_result"))
    if cost is None and total is not None:
        if previous_total_cost is not None and total >= previous_total_cost:
            cost = total - previous_total_cost
        else:
            cost = total  # the session's first result, or a process that counts from zero
    counts = result.get("usage")
    remembered = total if total is not None else previous_total_cost
    if not isinstance(counts, dict):
        return (None if cost is None else Usage(cost_usd=cost)), remembered
    usage = Usage.of(
        counts.get("input_tokens", 0),
        counts.get("output_tokens", 0),
        counts.get("cache_read_input_tokens", 0),
        counts.get("cache_creation_input_tokens", 0),
        cost,
    )
    return usage, remembered


def _since_last_result(models: JsonValue) -> float | None:
    """The cost of what ran since the previous result (``{}``: nothing did), or None without
    the field."""
    if not isinstance(models, dict):
        return None
    return sum(
        Usage.of(cost_usd=entry.get("costUSD")).cost_usd or 0.0
        for entry in models.values()
        if isinstance(entry, dict)
    )


class QwenUsage:
    def __init__(self) -> None:
        self._turn: Usage | None = None

    def assistant(self, line: JsonObject) -> None:
        call = qwen_call_usage(line)
        if call is not None:
            self._turn = call if self._turn is None else self._turn + call

    def result(self, line: JsonObject) -> Usage | None:
        turn, self._turn = self._turn, None
        return turn


def qwen_call_usage(line: JsonObject) -> Usage | None:
    """One Qwen Code model call's usage, from its ``assistant`` line (None if it has none)."""
    message = line.get("message")
    counts = message.get("usage") if isinstance(message, dict) else None
    if not isinstance(counts, dict):
        return None
    read = Usage.of(cache_read_tokens=counts.get("cache_read_input_tokens", 0)).cache_read_tokens
    prompt = Usage.of(input_tokens=counts.get("input_tokens", 0)).input_tokens
    output = counts.get("output_tokens", 0)
    return Usage.of(max(0, prompt - read), output, read)


def stream_json_rate_limit(
    result: JsonObject, rejected: JsonObject | None, error_text: str, now_ms: int
) -> RateLimit | None:
    """The rate limit behind an error ``result``, or None when no limit refused the turn.

    ``rejected``: the ``rate_limit_info`` of a rejected ``rate_limit_event`` (or of an assistant
    line's ``api_error_params``) seen during the turn; ``error_text``: the result's error text.
    """
    if result.get("is_error") is not True:
        return None
    params = result.get("api_error_params")
    info = params.get("rate_limit_info") if isinstance(params, dict) else None
    if not isinstance(info, dict):
        info = rejected or {}
    limited = (
        result.get("api_error_status") == 429
        or result.get("api_error_type") == "rate_limit_error"
        or result.get("api_error") == "usage_limit_reached"
        or info.get("status") == "rejected"
        or says_rate_limited(error_text)
    )
    if not limited:
        return None
    resets = epoch_ms(info.get("resetsAt"), now_ms) or reset_in_text(error_text, now_ms)
    return rate_limit(error_text, resets)
