"""The shared pieces that read a CLI's rate-limit refusal: bounded, typed, never raising."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from idea.domain.usage import RateLimit
from idea.infrastructure.clis.rate_limits import (
    REASON_MAX,
    after_ms,
    epoch_ms,
    rate_limit,
    reset_in_text,
    retry_after_ms,
    says_rate_limited,
)

NOW = 1_796_135_000_000  # 2026-12-01T13:43:20Z


@pytest.mark.parametrize(
    "text",
    [
        "API Error: Request rejected (429) · slow down",
        "exceeded retry limit, last status: 429 Too Many Requests",
        "You've hit your usage limit. Try again at 3:29 PM.",
        "Quota exceeded. Check your plan and billing details.",
        "[API Error: You have exhausted your daily quota on this model.]",
        "RESOURCE_EXHAUSTED",
        "Rate limit reached for requests",
    ],
)
def test_what_the_clis_say_when_a_limit_refused(text):
    assert says_rate_limited(text)


@pytest.mark.parametrize(
    "text", ["API Error: 500 scripted failure", "mock: invalid request", "line 4290 failed", ""]
)
def test_other_failures_are_not_limits(text):
    assert not says_rate_limited(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Please retry in 33s.", NOW + 33_000),
        ("Please retry in 1.5s", NOW + 1_500),
        ("Please retry in 250ms", NOW + 250),
        ("try again in 5 minutes", NOW + 300_000),
        ("It will reset in 2 hours", NOW + 7_200_000),
        ("It will reset at 2026-12-01T16:00:00Z.", 1_796_140_800_000),
        ("resets at 2026-12-01 17:00:00+01:00", 1_796_140_800_000),
        ("resets at 2026-12-01T16:00:00", 1_796_140_800_000),  # no offset: UTC
        ("Claude AI usage limit reached|1796140800", 1_796_140_800_000),
        ("Try again at 3:29 PM.", None),  # a local clock time without a date: not guessed
        ("retry in 9999999 days", None),  # beyond any limit's window
        ("resets at 2026-13-45T99:00:00Z", None),
        ("no time here", None),
    ],
)
def test_reset_times_stated_in_a_message(text, expected):
    assert reset_in_text(text, NOW) == expected


def test_epoch_values_in_seconds_or_milliseconds():
    assert epoch_ms(1_796_140_800, NOW) == 1_796_140_800_000
    assert epoch_ms(1_796_140_800_000, NOW) == 1_796_140_800_000
    assert epoch_ms(1_796_140_800.5, NOW) == 1_796_140_800_500
    for garbage in ("1796140800", True, None, float("nan"), float("inf"), -5, 10**30, [1]):
        assert epoch_ms(garbage, NOW) is None


def test_delays_in_seconds():
    assert after_ms(90, NOW) == NOW + 90_000
    for garbage in (-1, "90", False, float("nan"), 10**12):
        assert after_ms(garbage, NOW) is None


def test_a_reason_is_one_bounded_line():
    assert rate_limit("a\n  b\tc", 5) == RateLimit("a b c", 5)
    assert rate_limit("   ") == RateLimit("rate limited", None)
    long = rate_limit("x" * 5000)
    assert len(long.reason) == REASON_MAX and long.reason.endswith("…")


@given(st.text(max_size=3000), st.integers(min_value=0, max_value=2**41))
def test_any_text_is_read_without_raising(text, now):
    reset = reset_in_text(text, now)
    assert reset is None or abs(reset - now) <= 400 * 24 * 3600 * 1000
    says_rate_limited(text)
    assert len(rate_limit(text).reason) <= REASON_MAX


def test_http_retry_after_headers():
    assert retry_after_ms({"Retry-After": "120"}, NOW) == NOW + 120_000
    assert retry_after_ms({"retry-after-ms": "1500", "retry-after": "9"}, NOW) == NOW + 1_500
    assert retry_after_ms({"retry-after": "Tue, 01 Dec 2026 16:00:00 GMT"}, NOW) == (
        1_796_140_800_000
    )
    for garbage in ({"retry-after": "soon"}, {"retry-after": "nan"}, {"retry-after": 5}, "x", {}):
        assert retry_after_ms(garbage, NOW) is None
