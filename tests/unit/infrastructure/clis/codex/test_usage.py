"""A Codex turn's usage from two cumulative totals, and its rate limit (codex 0.171.0)."""

import pytest

from idea.domain.usage import RateLimit, Usage
from idea.infrastructure.clis.codex.usage import codex_rate_limit, codex_turn_usage

NOW = 1_796_135_000_000
RESET = 1_796_138_966  # epoch seconds, as ``resetsAt`` gives them


def total(inputs: int, cached: int, output: int, written: int = 0) -> dict:
    return {
        "totalTokens": inputs + output,
        "inputTokens": inputs,
        "cachedInputTokens": cached,
        "cacheWriteInputTokens": written,
        "outputTokens": output,
        "reasoningOutputTokens": 0,
    }


def test_a_turn_is_the_growth_of_the_totals_and_input_leaves_the_cached_tokens_out():
    before, after = total(100, 40, 10), total(260, 100, 25, 5)
    assert codex_turn_usage(before, after) == Usage(
        input_tokens=95, output_tokens=15, cache_read_tokens=60, cache_write_tokens=5
    )
    assert codex_turn_usage({}, total(100, 40, 10)) == Usage(60, 10, 40)


def test_no_report_is_no_usage_and_a_smaller_total_starts_afresh():
    assert codex_turn_usage(total(100, 0, 10), {}) is None
    # A new app-server that counts from zero: its total is the turn's.
    assert codex_turn_usage(total(500, 0, 50), total(30, 0, 5)) == Usage(30, 5)


def test_garbage_counts_are_zero():
    after = {"inputTokens": "many", "cachedInputTokens": -4, "outputTokens": True}
    assert codex_turn_usage({"inputTokens": None}, after) == Usage()


USAGE_LIMIT = {
    "message": "You've hit your usage limit. Upgrade to Pro (…) or try again at 3:29 PM.",
    "codexErrorInfo": "usageLimitExceeded",
    "additionalDetails": None,
}
WINDOWS = {
    "limitId": "codex",
    "primary": {"usedPercent": 100, "windowDurationMins": 300, "resetsAt": RESET},
    "secondary": {"usedPercent": 40, "windowDurationMins": 10080, "resetsAt": RESET + 86400},
}


def test_a_usage_limit_resets_when_its_exhausted_window_does():
    assert codex_rate_limit(USAGE_LIMIT, WINDOWS, NOW) == RateLimit(
        USAGE_LIMIT["message"], RESET * 1000
    )


def test_when_both_windows_are_spent_the_later_reset_counts():
    both = {**WINDOWS, "secondary": {**WINDOWS["secondary"], "usedPercent": 100.0}}
    assert codex_rate_limit(USAGE_LIMIT, both, NOW).resets_at_ms == (RESET + 86400) * 1000


@pytest.mark.parametrize(
    "error",
    [
        {
            "message": "exceeded retry limit, last status: 429 Too Many Requests",
            "codexErrorInfo": {"responseTooManyFailedAttempts": {"httpStatusCode": 429}},
        },
        {
            "message": "stream disconnected before completion",
            "codexErrorInfo": {"responseStreamDisconnected": {"httpStatusCode": 429}},
        },
        {"message": "Quota exceeded. Check your plan and billing details.", "codexErrorInfo": "x"},
        {"message": "Provider request rate limit reached.", "codexErrorInfo": "rateLimitExceeded"},
    ],
)
def test_other_refusals_are_limits_without_a_known_reset(error):
    assert codex_rate_limit(error, {}, NOW) == RateLimit(error["message"], None)


def test_a_reset_the_error_itself_gives():
    assert codex_rate_limit({**USAGE_LIMIT, "resets_at": RESET}, {}, NOW).resets_at_ms == (
        RESET * 1000
    )
    assert codex_rate_limit({**USAGE_LIMIT, "resets_in_seconds": 90}, {}, NOW).resets_at_ms == (
        NOW + 90_000
    )


@pytest.mark.parametrize(
    "error",
    [
        {"message": "unexpected status 400", "codexErrorInfo": "badRequest"},
        {"message": "boom", "codexErrorInfo": {"httpConnectionFailed": {"httpStatusCode": 502}}},
        {},
    ],
)
def test_other_failures_are_not_limits(error):
    assert codex_rate_limit(error, WINDOWS, NOW) is None


def test_hostile_shapes_are_ignored():
    error = {
        "message": ["not", "text"],
        "codexErrorInfo": {"usageLimitExceeded": "yes", "x": [429]},
        "resets_at": "tomorrow",
    }
    assert codex_rate_limit(error, WINDOWS, NOW) is None
    spent = {"codexErrorInfo": ["usageLimitExceeded"], "message": "usage limit " * 200}
    windows = {"primary": {"usedPercent": "100", "resetsAt": RESET}, "secondary": "x"}
    limit = codex_rate_limit(spent, windows, NOW)
    assert limit is not None and limit.resets_at_ms is None and len(limit.reason) <= 500
