import json

import pytest

from idea.domain.session_events import TextDelta, ToolResult, ToolUse, TurnFinished
from idea.infrastructure.clis.gemini.stream import GeminiInit, GeminiNotice, GeminiStreamParser

SID = "1a07a389-62b4-4a55-9b83-2eafa4675d3e"
TS = "2026-11-29T18:22:54.480Z"


def line(kind: str, **fields) -> bytes:
    return (json.dumps({"type": kind, "timestamp": TS, **fields}) + "\n").encode("utf-8")


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
        line("result", status="success", stats={"total_tokens": 28, "tool_calls": 1}),
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
