"""What every adapter shares to read a CLI's rate-limit or quota refusal (DESIGN.md §15).

Each CLI says it its own way (one small pure function per CLI, in its stream module); these are
the pieces they share. Invariant: whatever a CLI printed, nothing here raises, a reason is at most
``REASON_MAX`` characters, and a reset time is epoch milliseconds within ``RESET_HORIZON_MS`` of
now or None: a value of the wrong type, out of range or unreadable is ignored, never guessed at.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from idea.domain.json_types import JsonValue
from idea.domain.usage import RateLimit

REASON_MAX = 500
# No limit resets further away than this: a farther "reset" is garbage, not a time.
RESET_HORIZON_MS = 400 * 24 * 3600 * 1000
_SCAN_MAX = 4000  # how much of a message the patterns read

# What the CLIs (and the APIs they relay) say when a limit refused the request.
_LIMIT_WORDS = re.compile(
    r"\b429\b|rate[ _-]?limit|usage[ _-]?limit|too many requests|resource[ _-]?exhausted"
    r"|\bquota\b|exhausted your",
    re.IGNORECASE,
)
_UNITS_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}
_RELATIVE = re.compile(
    r"(?:retry|try again|reset|resets)\s+(?:in|after)\s+([0-9]{1,9}(?:\.[0-9]{1,6})?)\s*"
    r"(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?)\b",
    re.IGNORECASE,
)
_ABSOLUTE = re.compile(
    r"(?:retry|try again|reset|resets)\s+(?:at|after)\s+"
    r"(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:?\d{2})?)",
    re.IGNORECASE,
)
# Claude Code's older refusal text: ``Claude AI usage limit reached|<epoch seconds>``.
_PIPED_EPOCH = re.compile(r"limit reached\|(\d{10})\b", re.IGNORECASE)


def says_rate_limited(text: str) -> bool:
    """True if ``text`` reads as a rate-limit or quota refusal."""
    return _LIMIT_WORDS.search(text[:_SCAN_MAX]) is not None


def rate_limit(reason: str, resets_at_ms: int | None = None) -> RateLimit:
    """A ``RateLimit`` whose reason is bounded (a CLI's message can be any length)."""
    text = " ".join(reason.split())
    if len(text) > REASON_MAX:
        text = text[: REASON_MAX - 1] + "…"
    return RateLimit(text or "rate limited", resets_at_ms)


def epoch_ms(value: JsonValue, now_ms: int) -> int | None:
    """An epoch timestamp a CLI gave, in seconds (or already in milliseconds), as milliseconds."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    millis = int(value) if value > 1e11 else int(value * 1000)  # 1e11 s is the year 5138
    return _plausible(millis, now_ms)


def after_ms(seconds: JsonValue, now_ms: int) -> int | None:
    """``now`` plus a delay in seconds that a CLI gave."""
    if isinstance(seconds, bool) or not isinstance(seconds, int | float):
        return None
    if not math.isfinite(seconds) or seconds < 0:
        return None
    return _plausible(now_ms + int(seconds * 1000), now_ms)


def retry_after_ms(headers: JsonValue, now_ms: int) -> int | None:
    """When an HTTP refusal's ``retry-after-ms`` / ``retry-after`` (seconds or a date) says to
    come back, from a CLI's copy of the response headers."""
    if not isinstance(headers, dict):
        return None
    lower = {str(k).lower(): v for k, v in headers.items() if isinstance(v, str)}
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = lower.get(name, "").strip()[:64]
        try:
            return after_ms(float(value) * scale, now_ms)
        except ValueError:
            pass
        if name == "retry-after" and value:
            try:
                when = parsedate_to_datetime(value)
            except (TypeError, ValueError, IndexError, OverflowError):
                return None
            return _utc_ms(when, now_ms)
    return None


def reset_in_text(text: str, now_ms: int) -> int | None:
    """The reset time a refusal message states: "retry in 33s", "resets at <ISO 8601>", ..."""
    text = text[:_SCAN_MAX]
    if match := _RELATIVE.search(text):
        unit = match[2].lower()
        scale = _UNITS_MS["ms" if unit.startswith("mil") or unit == "ms" else unit[0]]
        return _plausible(now_ms + int(float(match[1]) * scale), now_ms)
    if match := _ABSOLUTE.search(text):
        try:
            when = datetime.fromisoformat(match[1].replace(" ", "T"))
        except ValueError:
            return None
        return _utc_ms(when, now_ms)
    if match := _PIPED_EPOCH.search(text):
        return epoch_ms(int(match[1]), now_ms)
    return None


def _utc_ms(when: datetime, now_ms: int) -> int | None:
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)  # an API's timestamp without an offset is UTC
    return _plausible(int(when.timestamp() * 1000), now_ms)


def _plausible(millis: int, now_ms: int) -> int | None:
    return millis if abs(millis - now_ms) <= RESET_HORIZON_MS else None
