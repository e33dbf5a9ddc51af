"""The stream-json parser against lines shaped as observed on Claude Code 2.1.332 (§A.3, §A.4)."""

import itertools
import json

from hypothesis import given
from hypothesis import strategies as st

from idea.domain.session_events import TextDelta, ToolResult, ToolUse, TurnFinished
from idea.domain.usage import RateLimit, Usage
from idea.infrastructure.clis.stream_json import (
    ClaudeInit,
    ClaudeResult,
    ClaudeStreamParser,
    ControlResponse,
    McpServerStatus,
    control_request_line,
    user_line,
)
from idea.infrastructure.clis.stream_json_usage import QwenUsage

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
    "usage": {
        "input_tokens": 24,
        "cache_creation_input_tokens": 3,
        "cache_read_input_tokens": 5,
        "output_tokens": 12,
        "service_tier": "standard",
    },
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
    ClaudeResult(
        TurnFinished("Tool said pong. Done.", False, None, SID, Usage(24, 12, 5, 3, 0.000252)),
        (SENT,),
    ),
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


# --- usage and rate limits (DESIGN.md §15) ----------------------------------------------------

NOW_MS = 1_796_135_000_000
# Claude Code 2.1.332 answered an HTTP 429 sent with ``x-should-retry: false`` (observed).
RATE_LIMITED_ASSISTANT = {
    "type": "assistant",
    "message": {
        "id": "55467ae3",
        "model": "<synthetic>",
        "role": "assistant",
        "content": [{"type": "text", "text": "API Error: Request rejected (429) · slow down"}],
        "usage": {"input_tokens": 0, "output_tokens": 0},
    },
    "parent_tool_use_id": None,
    "session_id": SID,
    "error": "rate_limit",
    "is_api_error_message": True,
    "api_error_status": 429,
    "api_error_type": "rate_limit_error",
}
RATE_LIMITED_RESULT = {
    "type": "result",
    "subtype": "success",
    "is_error": True,
    "api_error_status": 429,
    "api_error_type": "rate_limit_error",
    "result": "API Error: Request rejected (429) · slow down",
    "terminal_reason": "api_error",
    "session_id": SID,
    "total_cost_usd": 0,
    "usage": {"input_tokens": 0, "output_tokens": 0, "cache_read_input_tokens": 0},
}


def _parse(*objs: dict, parser: ClaudeStreamParser | None = None) -> list[ClaudeResult]:
    parser = parser or ClaudeStreamParser(now_ms=lambda: NOW_MS)
    return [i for i in parser.feed(_stream(*objs, banner=False)) if isinstance(i, ClaudeResult)]


def _result(cost: object, **fields: object) -> dict:
    return {"type": "result", "is_error": False, "result": "ok", "total_cost_usd": cost, **fields}


def test_a_429_result_is_a_rate_limit():
    [result] = _parse(RATE_LIMITED_ASSISTANT, RATE_LIMITED_RESULT)
    finished = result.finished
    assert finished.is_error
    assert finished.rate_limit == RateLimit(
        "api_error: API Error: Request rejected (429) · slow down", None
    )
    assert finished.usage == Usage(cost_usd=0.0)


def test_a_rejected_rate_limit_event_gives_the_reset_and_lasts_one_turn():
    event = {
        "type": "rate_limit_event",
        "rate_limit_info": {"status": "rejected", "resetsAt": 1_796_138_600, "rateLimitType": "x"},
    }
    refused = {**RATE_LIMITED_RESULT, "api_error_status": None, "api_error_type": None}
    refused["result"] = "You've hit your limit"
    parser = ClaudeStreamParser(now_ms=lambda: NOW_MS)
    [first] = _parse(event, RATE_LIMITED_ASSISTANT, refused, parser=parser)
    assert first.finished.rate_limit == RateLimit(
        "api_error: You've hit your limit", 1_796_138_600_000
    )
    # The next turn's error is its own: the event belonged to the turn it came in.
    [second] = _parse({**refused, "result": "API Error: 500 boom"}, parser=parser)
    assert second.finished.is_error and second.finished.rate_limit is None


def test_allowed_rate_limit_events_and_successes_are_no_limit():
    allowed = {"type": "rate_limit_event", "rate_limit_info": {"status": "allowed_warning"}}
    [result] = _parse(allowed, RESULT)
    assert result.finished.rate_limit is None
    failure = {**RATE_LIMITED_RESULT, "api_error_status": 500, "api_error_type": "api_error"}
    [failed] = _parse({**failure, "result": "API Error: 500 Internal server error"})
    assert failed.finished.is_error and failed.finished.rate_limit is None


def test_usage_limit_reset_from_the_results_api_error_params():
    info = {"status": "rejected", "resetsAt": 1_796_139_000, "rateLimitType": "five_hour"}
    refused = {
        **RATE_LIMITED_RESULT,
        "api_error": "usage_limit_reached",
        "api_error_params": {"rate_limit_info": info},
        "result": "You've hit your limit · resets 3pm",
    }
    [result] = _parse(refused)
    assert result.finished.rate_limit == RateLimit(
        "api_error: You've hit your limit · resets 3pm", 1_796_139_000_000
    )


def test_cost_is_the_turns_own_though_total_cost_usd_is_cumulative():
    parser = ClaudeStreamParser()
    costs = [
        r.finished.usage.cost_usd
        for r in _parse(_result(0.5), _result(0.75), _result(1.5), parser=parser)
    ]
    assert costs == [0.5, 0.25, 0.75]


def test_cost_since_the_last_result_wins_over_the_cumulative_total():
    # A resumed Claude Code restores its total: the first result of the new process is 0.00198
    # after 0.00132, yet the turn cost 0.00066 (observed on 2.1.332).
    since = {"claude-opus-5-5": {"costUSD": 0.0004}, "claude-haiku-4-5": {"costUSD": 0.00026}}
    [result] = _parse(_result(0.00198, model_usage_since_last_result=since))
    assert result.finished.usage == Usage(cost_usd=0.00066)


def test_nothing_since_the_last_result_costs_nothing_even_first_after_a_resume():
    # The refused turn of a resumed process: its total is the conversation's, its own cost 0.
    [result] = _parse(_result(0.00198, model_usage_since_last_result={}))
    assert result.finished.usage.cost_usd == 0.0


def test_usage_numbers_of_the_wrong_kind_are_ignored():
    hostile = _result(
        "free",
        usage={"input_tokens": "12", "output_tokens": -3, "cache_read_input_tokens": 1e300},
        model_usage_since_last_result={"m": {"costUSD": float("nan")}, "n": "x"},
    )
    [result] = _parse(hostile)
    assert result.finished.usage == Usage(cost_usd=0.0)
    [nothing] = _parse({"type": "result", "is_error": False, "usage": "lots"})
    assert nothing.finished.usage is None


def test_qwen_usage_is_the_sum_of_the_turns_model_calls():
    parser = ClaudeStreamParser(QwenUsage(), now_ms=lambda: NOW_MS)

    def call(prompt: int, output: int, cached: int) -> dict:
        usage = {"input_tokens": prompt, "output_tokens": output, "cache_read_input_tokens": cached}
        message = {"role": "assistant", "content": [{"type": "text", "text": "hi"}], "usage": usage}
        return {"type": "assistant", "message": message, "parent_tool_use_id": None}

    # Qwen Code 0.24's result.usage is the session's running total: it is not the turn's.
    total = {"type": "result", "is_error": False, "result": "hi"}
    [first] = _parse(
        call(100, 10, 40), call(150, 5, 0), {**total, "usage": {"input_tokens": 250}}, parser=parser
    )
    [second] = _parse(call(90, 7, 30), {**total, "usage": {"input_tokens": 340}}, parser=parser)
    [empty] = _parse(total, parser=parser)
    assert first.finished.usage == Usage(210, 15, 40)  # input without the cached tokens
    assert second.finished.usage == Usage(60, 7, 30)
    assert empty.finished.usage is None


def test_qwen_error_result_says_its_message_and_a_quota_reset():
    # Qwen Code 0.24 fails fast on a 429 whose message says when the quota resets (observed).
    message = (
        "Quota exhausted: Quota exceeded for this API key. It will reset at "
        "2026-12-01T16:00:00Z.\n\nPlease retry after the reset time."
    )
    refused = {
        "type": "result",
        "subtype": "error_during_execution",
        "is_error": True,
        "usage": {"input_tokens": 0, "output_tokens": 0, "cache_read_input_tokens": 0},
        "error": {"message": message},
    }
    [result] = _parse(refused, parser=ClaudeStreamParser(QwenUsage(), now_ms=lambda: NOW_MS))
    assert result.finished.error == f"error_during_execution: {message}"
    limit = result.finished.rate_limit
    assert limit is not None
    assert limit.resets_at_ms == 1_796_140_800_000
    assert limit.reason.startswith("error_during_execution: Quota exhausted")
    assert "\n" not in limit.reason
