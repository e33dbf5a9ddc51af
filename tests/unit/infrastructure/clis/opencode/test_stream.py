"""The ``opencode run --format json`` parser: whole, byte by byte, and with a trailing partial
line; the turn ends only at ``finish`` (the process exit), as an error when an ``error`` event
came or the exit code says so."""

import json

import pytest

from idea.domain.session_events import TextDelta, ToolResult, ToolUse, TurnFinished
from idea.domain.usage import RateLimit, Usage
from idea.infrastructure.clis.opencode.stream import OpenCodeStreamParser, opencode_step_usage

NOW = 1_796_135_000_000

SID = "ses_dce763602ffe8F5ObKm6BeMMzQ"


def line(kind: str, **fields) -> bytes:
    event = {"type": kind, "timestamp": 1796127445751, "sessionID": SID, **fields}
    return (json.dumps(event) + "\n").encode("utf-8")


def tool(call_id: str, status: str, **state) -> bytes:
    part = {"type": "tool", "tool": "idea_ping", "callID": call_id, "id": "prt_2"}
    return line("tool_use", part={**part, "state": {"status": status, "input": {}, **state}})


def step(reason: str, fresh: int, output: int, reasoning=0, read=0, write=0, cost=0) -> dict:
    """A ``step_finish`` part shaped as 1.18.33 prints it."""
    tokens = {"total": fresh + output + reasoning + read + write, "input": fresh}
    tokens |= {"output": output, "reasoning": reasoning, "cache": {"write": write, "read": read}}
    return {"type": "step-finish", "reason": reason, "tokens": tokens, "cost": cost}


# The tool-call run observed on the real CLI 1.18.33 (with a text before the call).
TOOL_RUN = b"".join(
    [
        line("step_start", part={"type": "step-start", "id": "prt_1"}),
        line("text", part={"type": "text", "text": "Let me check ✓."}),
        tool("call_mock_2", "completed", output="pong", metadata={"truncated": False}),
        line("step_finish", part=step("tool-calls", 77, 8, read=5, cost=0.0012)),
        b"a banner that is not JSON\n",
        line("step_start", part={"type": "step-start", "id": "prt_3"}),
        line("text", part={"type": "text", "text": "Tool said pong."}),
        line("step_finish", part=step("stop", 90, 6, reasoning=4, write=2, cost=0.0008)),
    ]
)
EXPECTED = [
    TextDelta("Let me check ✓."),
    ToolUse(tool_id="call_mock_2", name="idea_ping", input={}),
    ToolResult(tool_id="call_mock_2", output="pong", is_error=False),
    TextDelta("Tool said pong."),
]
FINISHED = TurnFinished(
    text="Let me check ✓.\nTool said pong.",
    is_error=False,
    error=None,
    conversation_id=SID,
    # Both model calls: reasoning counted as output.
    usage=Usage(167, 18, 5, 2, 0.002),
)


def test_a_whole_run():
    parser = OpenCodeStreamParser()
    assert parser.feed(TOOL_RUN) == EXPECTED
    assert parser.session_id == SID
    assert parser.finish(0) == FINISHED


def test_byte_by_byte_gives_the_same_events():
    parser = OpenCodeStreamParser()
    events = [e for i in range(len(TOOL_RUN)) for e in parser.feed(TOOL_RUN[i : i + 1])]
    assert events == EXPECTED
    assert parser.finish(0) == FINISHED


def test_a_last_line_without_newline_comes_out_at_flush():
    parser = OpenCodeStreamParser()
    last_text = line("text", part={"type": "text", "text": "end"}).rstrip(b"\n")
    assert parser.feed(last_text) == []
    assert parser.flush() == [TextDelta("end")]


def test_a_failed_tool_is_an_error_result_and_the_turn_goes_on():
    parser = OpenCodeStreamParser()
    events = parser.feed(tool("c1", "error", error="MCP error -32603: CONFLICT"))
    assert events[1] == ToolResult(tool_id="c1", output="MCP error -32603: CONFLICT", is_error=True)
    assert parser.finish(0).is_error is False


def test_a_running_tool_is_a_use_without_result():
    assert OpenCodeStreamParser().feed(tool("c1", "running")) == [
        ToolUse(tool_id="c1", name="idea_ping", input={})
    ]


@pytest.mark.parametrize("code", [0, 1])
def test_an_error_event_makes_the_turn_an_error_with_its_message(code):
    parser = OpenCodeStreamParser()
    error = {"name": "APIError", "data": {"message": "mock: refusing", "statusCode": 400}}
    assert parser.feed(line("error", error=error)) == []
    finished = parser.finish(code)
    assert (finished.is_error, finished.error, finished.conversation_id) == (
        True,
        "mock: refusing",
        SID,
    )


def test_a_failed_exit_without_an_error_event_quotes_stderr():
    finished = OpenCodeStreamParser().finish(1, "Error: no provider configured")
    assert finished.is_error
    assert finished.error == "opencode exited with code 1: Error: no provider configured"
    assert finished.conversation_id is None


def test_a_429_it_gave_up_on_is_a_rate_limit_with_the_servers_retry_after():
    parser = OpenCodeStreamParser(now_ms=lambda: NOW)
    data = {
        "message": "Rate limit reached for requests",
        "statusCode": 429,
        "isRetryable": True,
        "responseHeaders": {"retry-after": "120", "content-type": "application/json"},
    }
    parser.feed(line("error", error={"name": "APIError", "data": data}))
    finished = parser.finish(1)
    assert finished.error == "Rate limit reached for requests"
    assert finished.rate_limit == RateLimit("Rate limit reached for requests", NOW + 120_000)
    assert finished.usage is None


def test_a_usage_limit_message_is_a_rate_limit_with_its_reset():
    parser = OpenCodeStreamParser(now_ms=lambda: NOW)
    message = "Usage limit reached. It will reset in 2 hours 5 minutes."
    parser.feed(line("error", error={"name": "UnknownError", "data": {"message": message}}))
    assert parser.finish(1).rate_limit == RateLimit(message, NOW + 7_200_000)


def test_other_errors_and_exits_are_no_rate_limit():
    parser = OpenCodeStreamParser()
    error = {"name": "APIError", "data": {"message": "mock: refusing", "statusCode": 400}}
    parser.feed(line("error", error=error))
    assert parser.finish(1).rate_limit is None
    assert OpenCodeStreamParser().finish(1, "429 somewhere in stderr").rate_limit is None


def test_garbage_in_a_step_or_an_error_is_ignored():
    assert opencode_step_usage({"tokens": "many"}) is None
    hostile = {"tokens": {"input": "7", "output": -1, "reasoning": 2.5, "cache": [3]}, "cost": "1$"}
    assert opencode_step_usage(hostile) == Usage(output_tokens=2)
    parser = OpenCodeStreamParser(now_ms=lambda: NOW)
    data = {"message": ["x"], "statusCode": "429", "responseHeaders": {"retry-after": 7}}
    parser.feed(line("error", error={"name": 5, "data": data}))
    finished = parser.finish(1)
    assert finished.is_error and finished.rate_limit is None
