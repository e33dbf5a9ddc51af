"""The stream-json parser against lines shaped as observed on Claude Code 2.1.332 (§A.3, §A.4)."""

import itertools
import json

from hypothesis import given
from hypothesis import strategies as st

from idea.domain.session_events import TextDelta, ToolResult, ToolUse, TurnFinished
from idea.infrastructure.clis.stream_json import (
    ClaudeInit,
    ClaudeResult,
    ClaudeStreamParser,
    ControlResponse,
    McpServerStatus,
    control_request_line,
    user_line,
)

SID = "35a30a68-1111-4222-8333-444455556666"
SENT = "aaaaaaaa-0000-4000-8000-000000000002"

INIT = {
    "type": "system",
    "subtype": "init",
    "cwd": "/home/me/project",
    "session_id": SID,
    "tools": ["Task", "Bash", "mcp__idea__ping"],
    "mcp_servers": [
        {"name": "idea", "status": "connected", "source": "dynamic"},
        {"name": "other", "status": "failed", "source": "project"},
    ],
    "model": "claude-sonnet-4-5",
    "permissionMode": "default",
    "uuid": "u-1",
}
TOOL_USE = {
    "type": "assistant",
    "message": {
        "id": "msg_mock_6",
        "type": "message",
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": "toolu_mock_1", "name": "mcp__idea__ping", "input": {"n": 1}}
        ],
        "stop_reason": None,
    },
    "parent_tool_use_id": None,
    "session_id": SID,
    "uuid": "u-2",
    "tool_use_meta": [{"id": "toolu_mock_1", "display_name": "Ping"}],
}
TOOL_RESULT = {
    "type": "user",
    "message": {
        "role": "user",
        "content": [
            {
                "tool_use_id": "toolu_mock_1",
                "type": "tool_result",
                "content": [{"type": "text", "text": "pong"}],
            }
        ],
    },
    "parent_tool_use_id": None,
    "session_id": SID,
    "tool_use_result": [{"type": "text", "text": "pong"}],
}
DENIED = {
    "type": "user",
    "message": {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "content": "Claude requested permissions to use mcp__idea__ping, but you "
                "haven't granted it yet.",
                "is_error": True,
                "tool_use_id": "toolu_mock_2",
            }
        ],
    },
    "parent_tool_use_id": None,
    "session_id": SID,
}
TEXT = {
    "type": "assistant",
    "message": {
        "id": "msg_mock_7",
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "hmm"},
            {"type": "text", "text": "Tool said pong. Done."},
        ],
    },
    "parent_tool_use_id": None,
    "session_id": SID,
}
RESULT = {
    "type": "result",
    "subtype": "success",
    "is_error": False,
    "num_turns": 2,
    "result": "Tool said pong. Done.",
    "stop_reason": "end_turn",
    "session_id": SID,
    "total_cost_usd": 0.000252,
    "terminal_reason": "completed",
    "user_message_uuid": SENT,
    "user_message_uuids": [SENT],
    "result_index": 0,
}
CONTROL = {
    "type": "control_response",
    "response": {"subtype": "success", "request_id": "int-1", "response": {"still_queued": []}},
}

EXPECTED = [
    ClaudeInit(SID, (McpServerStatus("idea", "connected"), McpServerStatus("other", "failed"))),
    ToolUse("toolu_mock_1", "mcp__idea__ping", {"n": 1}),
    ToolResult("toolu_mock_1", "pong", is_error=False),
    TextDelta("Tool said pong. Done."),
    ClaudeResult(TurnFinished("Tool said pong. Done.", False, None, SID), (SENT,)),
    ControlResponse("int-1", True, {"still_queued": []}, None),
]


def _stream(*objs: dict, banner: bool = True) -> bytes:
    lines = [json.dumps(o) for o in objs]
    if banner:
        lines.insert(0, "Warning: no stdin data received in 3s, proceeding without it")
    return ("\n".join(lines) + "\n").encode("utf-8")


WHOLE = _stream(INIT, TOOL_USE, TOOL_RESULT, TEXT, RESULT, CONTROL)


def _one_result(obj: dict) -> ClaudeResult:
    [item] = ClaudeStreamParser().feed(_stream(obj, banner=False))
    assert isinstance(item, ClaudeResult)
    return item


def test_whole_stream():
    assert ClaudeStreamParser().feed(WHOLE) == EXPECTED


def test_byte_by_byte():
    parser = ClaudeStreamParser()
    items = [item for i in range(len(WHOLE)) for item in parser.feed(WHOLE[i : i + 1])]
    assert items == EXPECTED
    assert parser.flush() == []


@given(st.lists(st.integers(min_value=0, max_value=len(WHOLE)), max_size=20))
def test_any_chunking(cuts):
    bounds = [0, *sorted(cuts), len(WHOLE)]
    parser = ClaudeStreamParser()
    items = [item for a, b in itertools.pairwise(bounds) for item in parser.feed(WHOLE[a:b])]
    assert items == EXPECTED


def test_trailing_partial_line_waits_for_flush():
    parser = ClaudeStreamParser()
    data = _stream(INIT, banner=False) + json.dumps(RESULT).encode("utf-8")
    assert parser.feed(data) == [EXPECTED[0]]
    assert parser.flush() == [EXPECTED[4]]
    assert parser.flush() == []


def test_non_json_and_unknown_types_are_skipped():
    noise = _stream(
        {"type": "command_lifecycle", "command_uuid": SENT, "state": "queued"},
        {"type": "system", "subtype": "status", "status": "compacting"},
        {"type": "stream_event", "event": {"type": "content_block_delta"}},
        {"type": "rate_limit_event"},
        {"type": "control_request", "request_id": "x", "request": {"subtype": "can_use_tool"}},
        {"no_type": True},
    )
    noise += b"[1, 2]\nnot json at all {\n\n"
    assert ClaudeStreamParser().feed(noise) == []


def test_error_result_without_result_field():
    result = _one_result(
        {
            "type": "result",
            "subtype": "error_max_turns",
            "is_error": True,
            "num_turns": 2,
            "errors": ["Reached maximum number of turns (1)"],
            "terminal_reason": "max_turns",
            "session_id": SID,
        }
    )
    assert result.finished == TurnFinished(
        "", True, "max_turns: Reached maximum number of turns (1)", SID
    )
    assert result.user_message_uuids == ()


def test_api_error_has_success_subtype_but_is_error():
    result = _one_result(
        {
            "type": "result",
            "subtype": "success",
            "is_error": True,
            "result": "Not logged in · Please run /login",
            "terminal_reason": "api_error",
            "session_id": SID,
        }
    )
    assert result.finished.is_error
    assert result.finished.error == "api_error: Not logged in · Please run /login"


def test_interrupted_result():
    result = _one_result(
        {
            "type": "result",
            "subtype": "error_during_execution",
            "is_error": True,
            "terminal_reason": "aborted_streaming",
            "errors": ["[ede_diagnostic] result_type=user"],
            "user_message_uuid": SENT,
            "session_id": SID,
        }
    )
    assert result.finished.is_error
    assert result.finished.error.startswith("aborted_streaming: ")
    assert result.user_message_uuids == (SENT,)


def test_success_without_result_text_falls_back_to_last_assistant_text():
    parser = ClaudeStreamParser()
    items = parser.feed(_stream(TEXT, {"type": "result", "is_error": False}, banner=False))
    assert items[-1] == ClaudeResult(TurnFinished("Tool said pong. Done."))
    # The fallback belongs to one turn only.
    assert parser.feed(_stream({"type": "result", "is_error": False}, banner=False)) == [
        ClaudeResult(TurnFinished(""))
    ]


def test_string_content_denied_tool_and_subagent_lines():
    subagent = {**TEXT, "parent_tool_use_id": "toolu_task_1"}
    plain = {"type": "assistant", "message": {"role": "assistant", "content": "plain"}}
    items = ClaudeStreamParser().feed(_stream(DENIED, subagent, plain, banner=False))
    assert items == [
        ToolResult("toolu_mock_2", DENIED["message"]["content"][0]["content"], is_error=True),
        TextDelta("plain"),
    ]


def test_control_error_and_malformed_control():
    items = ClaudeStreamParser().feed(
        _stream(
            {
                "type": "control_response",
                "response": {"subtype": "error", "request_id": "r2", "error": "nope"},
            },
            {"type": "control_response", "response": {"subtype": "success"}},
            {"type": "control_response"},
            banner=False,
        )
    )
    assert items == [ControlResponse("r2", False, {}, "nope")]


def test_init_without_mcp_servers():
    [item] = ClaudeStreamParser().feed(_stream({"type": "system", "subtype": "init"}, banner=False))
    assert item == ClaudeInit(None, ())


def test_stdin_lines():
    line = user_line("héllo\nworld", SENT)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert json.loads(line) == {
        "type": "user",
        "message": {"role": "user", "content": [{"type": "text", "text": "héllo\nworld"}]},
        "uuid": SENT,
    }
    assert json.loads(control_request_line("int-1", "interrupt")) == {
        "type": "control_request",
        "request_id": "int-1",
        "request": {"subtype": "interrupt"},
    }
