"""The ``opencode run --format json`` parser: whole, byte by byte, and with a trailing partial
line; the turn ends only at ``finish`` (the process exit), as an error when an ``error`` event
came or the exit code says so."""

import json

import pytest

from idea.domain.session_events import TextDelta, ToolResult, ToolUse, TurnFinished
from idea.infrastructure.clis.opencode.stream import OpenCodeStreamParser

SID = "ses_dce763602ffe8F5ObKm6BeMMzQ"


def line(kind: str, **fields) -> bytes:
    event = {"type": kind, "timestamp": 1796127445751, "sessionID": SID, **fields}
    return (json.dumps(event) + "\n").encode("utf-8")


def tool(call_id: str, status: str, **state) -> bytes:
    part = {"type": "tool", "tool": "idea_ping", "callID": call_id, "id": "prt_2"}
    return line("tool_use", part={**part, "state": {"status": status, "input": {}, **state}})


# The tool-call run observed on the real CLI 1.18.33 (with a text before the call).
TOOL_RUN = b"".join(
    [
        line("step_start", part={"type": "step-start", "id": "prt_1"}),
        line("text", part={"type": "text", "text": "Let me check ✓."}),
        tool("call_mock_2", "completed", output="pong", metadata={"truncated": False}),
        line("step_finish", part={"type": "step-finish", "reason": "tool-calls"}),
        b"a banner that is not JSON\n",
        line("step_start", part={"type": "step-start", "id": "prt_3"}),
        line("text", part={"type": "text", "text": "Tool said pong."}),
        line("step_finish", part={"type": "step-finish", "reason": "stop"}),
    ]
)
EXPECTED = [
    TextDelta("Let me check ✓."),
    ToolUse(tool_id="call_mock_2", name="idea_ping", input={}),
    ToolResult(tool_id="call_mock_2", output="pong", is_error=False),
    TextDelta("Tool said pong."),
]
FINISHED = TurnFinished(
    text="Let me check ✓.\nTool said pong.", is_error=False, error=None, conversation_id=SID
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
