import json

import pytest

from idea.domain.session_events import TextDelta, ToolResult, ToolUse, TurnFinished
from idea.domain.usage import RateLimit, Usage
from idea.infrastructure.clis.gemini.stream import (
    GeminiInit,
    GeminiNotice,
    GeminiStreamParser,
    gemini_usage,
)

SID = "1a07a389-62b4-4a55-9b83-2eafa4675d3e"
TS = "2026-11-29T18:22:54.480Z"


def line(kind: str, **fields) -> bytes:
    return (json.dumps({"type": kind, "timestamp": TS, **fields}) + "\n").encode("utf-8")


# As 0.61.0 prints them: ``input_tokens`` counts the cached ones, ``input`` does not.
STATS = {
    "total_tokens": 28,
    "input_tokens": 22,
    "output_tokens": 6,
    "cached": 4,
    "input": 18,
    "duration_ms": 245,
    "tool_calls": 1,
    "models": {"gemini-2.5-flash": {"total_tokens": 28, "input_tokens": 22}},
}

# The tool-call run observed on the real CLI (protocol doc §C), plus a warning.
TOOL_RUN = b"".join(
    [
        line("init", session_id=SID, model="gemini-2.5-flash"),
        line("message", role="user", content="USE_TOOL please"),
        line("message", role="assistant", content="Let me ", delta=True),
        line("message", role="assistant", content="check ✓.", delta=True),
        line("error", severity="warning", message="Loop detected, stopping execution"),
        line(
            "tool_use",
            tool_name="mcp_idea_ping",
            tool_id="mcp_idea_ping__1",
            parameters={"x": 1},
        ),
        line("tool_result", tool_id="mcp_idea_ping__1", status="success", output="pong"),
        line("message", role="assistant", content="Tool said pong.", delta=True),
        line("message", role="assistant", content=" Done.", delta=True),
        line("result", status="success", stats=STATS),
    ]
)

EXPECTED = [
    GeminiInit(SID, "gemini-2.5-flash"),
    TextDelta("Let me "),
    TextDelta("check ✓."),
    GeminiNotice("warning", "Loop detected, stopping execution"),
    ToolUse("mcp_idea_ping__1", "mcp_idea_ping", {"x": 1}),
    ToolResult("mcp_idea_ping__1", "pong", is_error=False),
    TextDelta("Tool said pong."),
    TextDelta(" Done."),
    TurnFinished(
        text="Let me check ✓.\nTool said pong. Done.",
        is_error=False,
        error=None,
        conversation_id=SID,
        usage=Usage(input_tokens=18, output_tokens=6, cache_read_tokens=4),
    ),
]


def test_whole_stream():
    parser = GeminiStreamParser()
    assert parser.feed(TOOL_RUN) == EXPECTED
    assert parser.flush() == []
    assert parser.finished
    assert parser.session_id == SID


def test_byte_by_byte():
    parser = GeminiStreamParser()
    items = []
    for i in range(len(TOOL_RUN)):
        items += parser.feed(TOOL_RUN[i : i + 1])
    assert items == EXPECTED


def test_trailing_partial_line_waits_for_flush():
    parser = GeminiStreamParser()
    data = TOOL_RUN.rstrip(b"\n")
    items = parser.feed(data)
    assert items == EXPECTED[:-1]
    assert not parser.finished
    assert parser.flush() == EXPECTED[-1:]
    assert parser.finished


def test_deltas_join_into_the_final_text():
    parser = GeminiStreamParser()
    items = parser.feed(
        line("init", session_id=SID)
        + b"".join(
            line("message", role="assistant", content=part, delta=True)
            for part in ["ec", "ho: ", "hi"]
        )
        + line("result", status="success")
    )
    deltas = [i.text for i in items if isinstance(i, TextDelta)]
    assert "".join(deltas) == "echo: hi"
    assert items[-1] == TurnFinished("echo: hi", conversation_id=SID)


def test_text_before_and_after_a_tool_is_separated_by_one_newline():
    parser = GeminiStreamParser()
    items = parser.feed(
        line("message", role="assistant", content="first\n", delta=True)
        + line("tool_use", tool_name="t", tool_id="1", parameters={})
        + line("tool_use", tool_name="t", tool_id="2", parameters={})
        + line("message", role="assistant", content="second", delta=True)
        + line("result", status="success")
    )
    assert items[-1].text == "first\nsecond"


def test_user_echo_and_empty_messages_are_not_text():
    parser = GeminiStreamParser()
    items = parser.feed(
        line("message", role="user", content="hello")
        + line("message", role="assistant", content="", delta=True)
    )
    assert items == []


def test_warning_is_not_terminal_and_the_turn_goes_on():
    parser = GeminiStreamParser()
    items = parser.feed(line("error", severity="warning", message="careful"))
    assert items == [GeminiNotice("warning", "careful")]
    assert not parser.finished
    items = parser.feed(
        line("message", role="assistant", content="ok", delta=True)
        + line("result", status="success")
    )
    assert items[-1] == TurnFinished("ok")


def test_error_result_carries_its_error_message():
    parser = GeminiStreamParser()
    items = parser.feed(
        line("init", session_id=SID)
        + line("message", role="assistant", content="partial", delta=True)
        + line(
            "result",
            status="error",
            error={"type": "FatalTurnLimitedError", "message": "Reached max session turns"},
        )
    )
    assert items[-1] == TurnFinished(
        text="partial", is_error=True, error="Reached max session turns", conversation_id=SID
    )


def test_error_result_without_error_takes_the_last_error_event():
    # An invalid model stream: the CLI reports it as an error event, then a bare error result.
    parser = GeminiStreamParser()
    items = parser.feed(
        line("error", severity="error", message="The model returned an empty response.")
        + line("error", severity="warning", message="not this one")
        + line("result", status="error", stats={})
    )
    assert items[0] == GeminiNotice("error", "The model returned an empty response.")
    assert not items[-1].text
    assert items[-1].is_error
    assert items[-1].error == "The model returned an empty response."


def test_error_result_with_nothing_to_say_still_has_an_error():
    items = GeminiStreamParser().feed(line("result", status="error"))
    assert items[-1].is_error
    assert items[-1].error


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"status": "success", "output": "pong"}, ToolResult("1", "pong")),
        ({"status": "success"}, ToolResult("1", "")),
        (
            {"status": "error", "error": {"type": "TOOL_EXECUTION_ERROR", "message": "boom"}},
            ToolResult("1", "boom", is_error=True),
        ),
    ],
)
def test_tool_results(fields, expected):
    assert GeminiStreamParser().feed(line("tool_result", tool_id="1", **fields)) == [expected]


def test_non_json_lines_unknown_types_and_output_after_the_result_are_skipped():
    parser = GeminiStreamParser()
    items = parser.feed(
        b"Warning: 256-color support not detected.\n"
        + b"[1, 2]\n"
        + line("stats_update", tokens=3)
        + line("init", model="m")  # no session id: nothing to report
        + line("message", role="assistant", content="a", delta=True)
        + line("result", status="success")
        + line("message", role="assistant", content="late", delta=True)
        + line("result", status="error")
    )
    assert items == [TextDelta("a"), TurnFinished("a")]


# --- usage and rate limits ------------------------------------------------------------------

NOW = 1_796_135_000_000
DAILY_QUOTA = (
    "[API Error: You have exhausted your daily quota on this model.]\nPlease wait and try again "
    "later. To increase your limits, request a quota increase through AI Studio, or switch to "
    "another /auth method"
)
RETRY_LATER = (
    "[API Error: Quota exceeded for metric: generate_content_requests, limit: 10. Please retry "
    "in 3600s.]\nPlease wait and try again later."
)
ZERO_STATS = {"total_tokens": 0, "input_tokens": 0, "output_tokens": 0, "cached": 0, "input": 0}


def _final(*lines: bytes) -> TurnFinished:
    items = GeminiStreamParser(now_ms=lambda: NOW).feed(b"".join(lines))
    assert isinstance(items[-1], TurnFinished)
    return items[-1]


@pytest.mark.parametrize(
    ("message", "resets_at_ms"), [(DAILY_QUOTA, None), (RETRY_LATER, NOW + 3_600_000)]
)
def test_a_quota_refusal_is_a_rate_limit(message, resets_at_ms):
    # What Gemini CLI 0.61.0 printed for a 429 RESOURCE_EXHAUSTED it does not retry (observed).
    error = {"type": "unknown", "message": message}
    final = _final(line("result", status="error", error=error, stats=ZERO_STATS))
    assert final.is_error and final.error == message
    assert final.rate_limit == RateLimit(" ".join(message.split()), resets_at_ms)
    assert final.usage == Usage()


def test_other_errors_are_no_rate_limit():
    error = {"type": "Error", "message": "[API Error: mock: invalid request]"}
    final = _final(line("result", status="error", error=error))
    assert final.is_error and final.rate_limit is None and final.usage is None


def test_usage_without_the_input_field_leaves_the_cached_tokens_out():
    assert gemini_usage({"input_tokens": 30, "cached": 10, "output_tokens": 2}) == Usage(20, 2, 10)
    assert gemini_usage({"input_tokens": 5, "cached": 10}) == Usage(0, 0, 10)


@pytest.mark.parametrize("stats", [None, "lots", [1, 2]])
def test_no_stats_is_no_usage(stats):
    assert gemini_usage(stats) is None


def test_garbage_stats_are_zero():
    hostile = {"input": True, "input_tokens": "22", "output_tokens": -6, "cached": float("inf")}
    assert gemini_usage(hostile) == Usage()
