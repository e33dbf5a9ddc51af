import itertools
import json

from hypothesis import given
from hypothesis import strategies as st

from idea.application.ask_deadline import DEFAULT_TURN_TIMEOUT_S
from idea.application.session_ports import McpServerEntry, StructuredSpec
from idea.domain.profile import AdapterKind
from idea.domain.session_events import TextDelta, ToolResult, ToolUse
from idea.endpoint.jsonrpc import METHOD_NOT_FOUND
from idea.infrastructure.clis.codex.stream import (
    CodexError,
    CodexStream,
    McpStartup,
    Notice,
    RateLimitsUpdated,
    RpcResponse,
    ServerRequest,
    TurnEnded,
    TurnOutput,
    TurnStarted,
    UsageUpdated,
    answer_server_request,
    encode_request,
    thread_params,
)
from idea.infrastructure.clis.ndjson import NonJsonLine

T, U = "01a2288a-4428-7000-8000-000000000001", "01a2288a-44ac-7000-8000-000000000002"
IDS = {"threadId": T, "turnId": U}

# A turn with an MCP tool call, as codex app-server 0.171.0 wrote it (fields trimmed).
TRANSCRIPT = [
    {"id": 1, "result": {"userAgent": "idea/0.171.0", "codexHome": "/h/.codex"}},
    {"method": "configWarning", "params": {"summary": "bubblewrap not found", "details": None}},
    {
        "method": "mcpServer/startupStatus/updated",
        "params": {"threadId": T, "name": "idea", "status": "ready", "error": None},
    },
    {"id": 2, "result": {"thread": {"id": T, "sessionId": T, "status": {"type": "idle"}}}},
    {"method": "warning", "params": {"threadId": T, "message": "Model metadata for `m` not found"}},
    {"id": 3, "result": {"turn": {"id": U, "items": [], "status": "inProgress", "error": None}}},
    {"method": "thread/status/changed", "params": {"threadId": T, "status": {"type": "active"}}},
    {
        "method": "turn/started",
        "params": {"threadId": T, "turn": {"id": U, "status": "inProgress"}},
    },
    {
        "method": "item/started",
        "params": {"item": {"type": "userMessage", "id": "u1", "content": []}, **IDS},
    },
    {
        "method": "item/started",
        "params": {
            "item": {
                "type": "mcpToolCall",
                "id": "call_mock_1",
                "server": "idea",
                "tool": "ping",
                "status": "inProgress",
                "arguments": {},
                "result": None,
                "error": None,
            },
            **IDS,
        },
    },
    {
        "method": "item/completed",
        "params": {
            "item": {
                "type": "mcpToolCall",
                "id": "call_mock_1",
                "server": "idea",
                "tool": "ping",
                "status": "completed",
                "arguments": {},
                "result": {
                    "content": [{"type": "text", "text": "pong"}],
                    "structuredContent": None,
                    "_meta": None,
                },
                "error": None,
            },
            **IDS,
        },
    },
    {
        "method": "item/started",
        "params": {"item": {"type": "agentMessage", "id": "msg_29", "text": ""}, **IDS},
    },
    {
        "method": "item/agentMessage/delta",
        "params": {**IDS, "itemId": "msg_29", "delta": "Tool said pong. "},
    },
    {"method": "item/agentMessage/delta", "params": {**IDS, "itemId": "msg_29", "delta": "Done ✓"}},
    {
        "method": "item/completed",
        "params": {
            "item": {"type": "agentMessage", "id": "msg_29", "text": "Tool said pong. Done ✓"},
            **IDS,
        },
    },
    {
        "method": "thread/tokenUsage/updated",
        "params": {
            **IDS,
            "tokenUsage": {"total": {"totalTokens": 52}, "last": {"totalTokens": 26}},
        },
    },
    {"method": "account/rateLimits/updated", "params": {"rateLimits": {}}},
    {
        "method": "turn/completed",
        "params": {
            "threadId": T,
            "turn": {
                "id": U,
                "items": [
                    {"type": "agentMessage", "id": "msg_29", "text": "Tool said pong. Done ✓"}
                ],
                "status": "completed",
                "error": None,
            },
        },
    },
]
WIRE = b"".join(json.dumps(m, ensure_ascii=False).encode() + b"\n" for m in TRANSCRIPT)
EXPECTED = [
    RpcResponse(1, {"userAgent": "idea/0.171.0", "codexHome": "/h/.codex"}),
    Notice("configWarning", "bubblewrap not found"),
    McpStartup("idea", "ready", None),
    RpcResponse(2, {"thread": {"id": T, "sessionId": T, "status": {"type": "idle"}}}),
    Notice("warning", "Model metadata for `m` not found"),
    RpcResponse(3, {"turn": {"id": U, "items": [], "status": "inProgress", "error": None}}),
    TurnStarted(U),
    TurnOutput(U, ToolUse("call_mock_1", "mcp__idea__ping", {})),
    TurnOutput(U, ToolResult("call_mock_1", "pong", False)),
    TurnOutput(U, TextDelta("Tool said pong. ")),
    TurnOutput(U, TextDelta("Done ✓")),
    UsageUpdated({"totalTokens": 52}, {"totalTokens": 26}, U),
    RateLimitsUpdated({}),
    TurnEnded(U, "completed", "Tool said pong. Done ✓", None),
]


def parse(*chunks: bytes) -> list:
    stream = CodexStream()
    out = []
    for chunk in chunks:
        out += stream.feed(chunk)
    return out + stream.flush()


def lines(*messages: dict) -> bytes:
    return b"".join(json.dumps(m).encode() + b"\n" for m in messages)


def test_whole_transcript():
    assert parse(WIRE) == EXPECTED


def test_byte_by_byte():
    assert parse(*(WIRE[i : i + 1] for i in range(len(WIRE)))) == EXPECTED


def test_trailing_partial_line_waits_for_its_end():
    stream = CodexStream()
    head, last = WIRE[:-1].rsplit(b"\n", 1)
    assert stream.feed(head + b"\n" + last) == EXPECTED[:-1]
    assert stream.flush() == EXPECTED[-1:]


@given(st.lists(st.integers(min_value=1, max_value=len(WIRE)), max_size=40))
def test_any_chunking(cuts):
    edges = sorted({0, len(WIRE), *cuts})
    assert parse(*(WIRE[a:b] for a, b in itertools.pairwise(edges))) == EXPECTED


def test_error_notification_is_not_terminal():
    out = parse(
        lines(
            {"method": "turn/started", "params": {"threadId": T, "turn": {"id": U}}},
            {
                "method": "error",
                "params": {"error": {"message": "Reconnecting... 1/5"}, "willRetry": True, **IDS},
            },
            {"method": "item/agentMessage/delta", "params": {**IDS, "itemId": "m", "delta": "ok"}},
        )
    )
    assert out == [
        TurnStarted(U),
        CodexError(U, "Reconnecting... 1/5", True),
        TurnOutput(U, TextDelta("ok")),
    ]


def test_failed_turn_carries_its_error():
    error = {"message": "unexpected status 400", "codexErrorInfo": "other"}
    out = parse(
        lines(
            {"method": "error", "params": {"error": error, "willRetry": False, **IDS}},
            {
                "method": "turn/completed",
                "params": {
                    "threadId": T,
                    "turn": {"id": U, "items": [], "status": "failed", "error": error},
                },
            },
        )
    )
    assert out == [
        CodexError(U, "unexpected status 400", False),
        TurnEnded(U, "failed", "", "unexpected status 400", error),
    ]


def test_rate_limit_updates_are_reported():
    limits = {"primary": {"usedPercent": 100, "windowDurationMins": 300, "resetsAt": 1796138966}}
    out = parse(lines({"method": "account/rateLimits/updated", "params": {"rateLimits": limits}}))
    assert out == [RateLimitsUpdated(limits)]


def test_interrupted_turn():
    turn = {"id": U, "items": [], "status": "interrupted", "error": None}
    assert parse(lines({"method": "turn/completed", "params": {"threadId": T, "turn": turn}})) == [
        TurnEnded(U, "interrupted", "", "interrupted")
    ]


def test_messages_without_deltas_are_sent_whole_and_separated():
    def message(item_id, text):
        item = {"type": "agentMessage", "id": item_id, "text": text}
        return {"method": "item/completed", "params": {"item": item, **IDS}}

    turn = {"id": U, "status": "completed", "error": None}  # no items summary
    out = parse(
        lines(
            message("a", "Let me look."),
            {"method": "item/agentMessage/delta", "params": {**IDS, "itemId": "b", "delta": "Do"}},
            message("b", "Done."),  # the rest of the text never came as a delta
            {"method": "turn/completed", "params": {"threadId": T, "turn": turn}},
        )
    )
    texts = [m.event.text for m in out if isinstance(m, TurnOutput)]
    assert texts == ["Let me look.", "\n\n", "Do", "ne."]
    assert out[-1] == TurnEnded(U, "completed", "Done.", None)


def test_failed_mcp_call_and_call_completed_without_start():
    item = {
        "type": "mcpToolCall",
        "id": "c1",
        "server": "idea",
        "tool": "idea_ask_agent",
        "arguments": {"target": "bob"},
        "status": "failed",
        "result": None,
        "error": {"message": "MCP tool call requires approval, but approval policy is never"},
    }
    out = parse(lines({"method": "item/completed", "params": {"item": item, **IDS}}))
    assert out == [
        TurnOutput(U, ToolUse("c1", "mcp__idea__idea_ask_agent", {"target": "bob"})),
        TurnOutput(
            U,
            ToolResult("c1", "MCP tool call requires approval, but approval policy is never", True),
        ),
    ]


def test_command_execution_is_a_tool_call():
    item = {
        "type": "commandExecution",
        "id": "x",
        "command": "ls",
        "cwd": "/p",
        "status": "completed",
        "aggregatedOutput": "a\nb\n",
        "exitCode": 1,
    }
    out = parse(lines({"method": "item/completed", "params": {"item": item, **IDS}}))
    assert [m.event for m in out] == [
        ToolUse("x", "shell", {"command": "ls", "cwd": "/p"}),
        ToolResult("x", "a\nb\n", True),
    ]


def test_server_requests_responses_and_noise():
    out = parse(
        b"WARNING: proceeding\n",
        lines(
            {"id": 7, "method": "mcpServer/elicitation/request", "params": {"serverName": "x"}},
            {"error": {"code": -32600, "message": "no active turn to interrupt"}, "id": 8},
        ),
    )
    assert out == [
        NonJsonLine("WARNING: proceeding"),
        ServerRequest(7, "mcpServer/elicitation/request", {"serverName": "x"}),
        RpcResponse(8, {}, "no active turn to interrupt"),
    ]


def answer(method: str) -> dict:
    return json.loads(answer_server_request(ServerRequest(4, method, {})))


def test_answers_to_server_requests():
    assert answer("item/commandExecution/requestApproval") == {
        "id": 4,
        "result": {"decision": "decline"},
    }
    assert answer("item/fileChange/requestApproval")["result"] == {"decision": "decline"}
    assert answer("mcpServer/elicitation/request")["result"]["action"] == "decline"
    assert answer("item/tool/requestUserInput")["result"] == {"answers": {}}
    unknown = answer("item/tool/call")
    assert unknown["error"]["code"] == METHOD_NOT_FOUND
    assert "jsonrpc" not in unknown


def spec(**kw) -> StructuredSpec:
    base = {
        "kind": AdapterKind.CODEX,
        "program": ("/usr/bin/codex",),
        "cwd": "/proj",
        "run_dir": "/proj/.ideai/run/alice",
        "env": {},
    }
    return StructuredSpec(**{**base, **kw})


def test_thread_params_inject_context_and_the_bridge():
    mcp = McpServerEntry("/opt/idea/idea", ("mcp-server", "--requester", "a1"), {"K": "v"})
    params = thread_params(spec(context="You are alice.", mcp=mcp, model="gpt-x"), None)
    assert params["approvalPolicy"] == "never"
    assert params["developerInstructions"] == "You are alice."
    assert params["model"] == "gpt-x"
    assert "threadId" not in params
    server = params["config"]["mcp_servers"]["idea"]
    assert server["command"] == "/opt/idea/idea"
    assert server["args"] == ["mcp-server", "--requester", "a1"]
    assert server["env"] == {"K": "v"}
    assert server["default_tools_approval_mode"] == "approve"
    assert server["tool_timeout_sec"] > DEFAULT_TURN_TIMEOUT_S
    assert server["required"] is True


def test_thread_params_without_context_or_bridge():
    params = thread_params(spec(), "t-1")
    assert params["threadId"] == "t-1"
    assert params["sandbox"] == "workspace-write"  # the project only, when the agent says nothing
    assert "developerInstructions" not in params
    assert "config" not in params


def test_the_agents_permission_mode_is_the_headless_sandbox():
    params = thread_params(spec(permission_mode="read-only"), None)
    assert (params["sandbox"], params["approvalPolicy"]) == ("read-only", "never")


def test_windows_paths_reach_codex_unchanged():
    command, key = r"C:\tools\new\idea.exe", r"C:\Users\me\proj\.ideai\run\mcp.key"
    mcp = McpServerEntry(command, ("mcp-server", "--key-file", key))
    wire = encode_request(2, "thread/start", thread_params(spec(mcp=mcp), None))
    server = json.loads(wire)["params"]["config"]["mcp_servers"]["idea"]
    assert server["command"] == command
    assert server["args"][-1] == key


def test_turn_without_an_id_still_ends():
    turn = {"items": [], "status": "completed", "error": None}
    out = parse(lines({"method": "turn/completed", "params": {"threadId": T, "turn": turn}}))
    assert out == [TurnEnded(None, "completed", "", None)]
