"""What a Codex turn cost and whether a limit refused it, from ``codex app-server``'s messages.

Observed on codex 0.171.0 against a mock provider: ``thread/tokenUsage/updated`` carries the
thread's cumulative ``total`` (its ``inputTokens`` count the cached and cache-written tokens too);
a refused request ends the turn ``failed`` with ``error.codexErrorInfo`` ``usageLimitExceeded``
(a usage limit, or a spent quota: ``insufficient_quota``) or ``{"responseTooManyFailedAttempts":
{"httpStatusCode": 429}}`` (any other 429, retries spent), with the reset in the message only as
a local clock time ("try again at 3:29 PM"); before it, ``account/rateLimits/updated`` names the
exhausted window (``usedPercent`` 100) and its ``resetsAt`` in epoch seconds. Codex gives no cost.
"""

from __future__ import annotations

from idea.domain.json_types import JsonObject, JsonValue
from idea.domain.usage import RateLimit, Usage
from idea.infrastructure.clis.rate_limits import (
    after_ms,
    epoch_ms,
    rate_limit,
    reset_in_text,
    says_rate_limited,
)


def codex_turn_usage(before: JsonObject, after: JsonObject) -> Usage | None:
    """A turn's usage from the thread's cumulative ``total`` before and after it (None if Codex
    reported none). Codex's ``inputTokens`` counts the cached and cache-written tokens too."""
    if not after:
        return None
    delta = {key: _grown(before.get(key), after.get(key)) for key in _TOKEN_KEYS}
    cached, written = delta["cachedInputTokens"], delta["cacheWriteInputTokens"]
    fresh = max(0, delta["inputTokens"] - cached - written)
    return Usage.of(fresh, delta["outputTokens"], cached, written)


_TOKEN_KEYS = ("inputTokens", "cachedInputTokens", "cacheWriteInputTokens", "outputTokens")


def _grown(before: JsonValue, after: JsonValue) -> int:
    now = Usage.of(input_tokens=after).input_tokens
    then = Usage.of(input_tokens=before).input_tokens
    return now - then if then <= now else now  # a smaller total comes from a fresh process


_LIMIT_KINDS = frozenset({"usageLimitExceeded", "rateLimitExceeded"})


def codex_rate_limit(error: JsonObject, limits: JsonObject, now_ms: int) -> RateLimit | None:
    """The rate limit behind a failed turn's ``error``, or None when no limit refused it.

    ``limits``: the last ``account/rateLimits/updated`` snapshot of the turn (``{}`` if none);
    the reset is its exhausted window's, else what the error itself says.
    """
    info = error.get("codexErrorInfo")
    message = _str(error.get("message")) or ""
    statuses = (
        [_obj(v).get("httpStatusCode") for v in info.values()] if isinstance(info, dict) else []
    )
    named = isinstance(info, str) and info in _LIMIT_KINDS
    if not (named or 429 in statuses or says_rate_limited(message)):
        return None
    exhausted = [
        reset
        for name in ("primary", "secondary")
        if _used_up(window := _obj(limits.get(name)))
        and (reset := epoch_ms(window.get("resetsAt"), now_ms)) is not None
    ]
    resets = (
        max(exhausted, default=None)  # usable again once every exhausted window has reset
        or epoch_ms(error.get("resets_at"), now_ms)
        or after_ms(error.get("resets_in_seconds"), now_ms)
        or reset_in_text(message, now_ms)
    )
    return rate_limit(message or "rate limited", resets)


def _used_up(window: JsonObject) -> bool:
    used = window.get("usedPercent")
    return isinstance(used, int | float) and not isinstance(used, bool) and used >= 100


def _obj(value: JsonValue) -> JsonObject:
    return value if isinstance(value, dict) else {}


def _str(value: JsonValue) -> str | None:
    return value if isinstance(value, str) else None
