"""The real-CLI harness works: each pinned real CLI runs offline against the scripted mock model.

These tests drive ``claude``, ``codex``, ``gemini``, ``qwen`` and ``opencode`` directly (not
through IdeA) to prove what later adapter tests rely on: the CLI reaches the mock, the mock's
scripted replies come back as the CLI's structured output, sessions resume under the same id, an
injected stdio MCP server is spawned and its tool offered, called, and its result sent back to
the model.

They skip only when ``tests/real_cli/node_modules`` is absent (``tests/real_cli/install.sh``).
"""

from __future__ import annotations

import json
import uuid

import pytest

from tests.real_cli.clis import (
    LiveCli,
    missing_reason,
    real_cli_available,
    run,
    setup_claude,
    setup_codex,
    setup_gemini,
    setup_opencode,
    setup_qwen,
    tiny_mcp_server,
)
from tests.real_cli.mock_model import (
    MockModel,
    ToolCall,
    last_tool_result,
    last_user_text,
    system_prompt,
    tools_offered,
)

pytestmark = pytest.mark.slow

CLI_TIMEOUT = 60.0


def needs(name: str) -> pytest.MarkDecorator:
    return pytest.mark.skipif(not real_cli_available(name), reason=str(missing_reason(name)))


@pytest.fixture
def mock():
    with MockModel() as server:
        yield server


# -- Claude Code -----------------------------------------------------------------------------


@needs("claude")
@pytest.mark.timeout(120)
def test_claude_stream_json_two_turns_with_mcp_tool_and_appended_prompt(mock, tmp_path):
    marker = f"IDEA-APPENDED-{uuid.uuid4().hex[:8]}"
    mock.script([ToolCall("mcp__tiny__ping"), "Tool said pong.", "Second answer."])
    setup = setup_claude(mock.url, tmp_path, mcp_servers=[tiny_mcp_server()])
    args = [
        "-p",
        "--input-format",
        "stream-json",
        "--output-format",
        "stream-json",
        "--verbose",
        f"--append-system-prompt={marker}",
    ]
    with LiveCli(setup, args) as cli:
        # One user line per turn; the next is sent only after the turn's `result`, otherwise
        # Claude folds a line queued mid-turn into the running turn (one result for both).
        cli.send_user("Please ping.")
        first = cli.wait_for("result", timeout=CLI_TIMEOUT)
        cli.send_user("And now?")
        second = cli.wait_for("result", timeout=CLI_TIMEOUT)
        returncode = cli.finish(timeout=CLI_TIMEOUT)
        events, explain = cli.events, cli.explain()

    assert returncode == 0, explain
    assert (first["subtype"], first["is_error"], first["result"]) == (
        "success",
        False,
        "Tool said pong.",
    ), explain
    assert (second["subtype"], second["is_error"], second["result"]) == (
        "success",
        False,
        "Second answer.",
    ), explain
    assert first["session_id"] == second["session_id"]

    inits = [e for e in events if e.get("type") == "system" and e.get("subtype") == "init"]
    assert inits, events
    assert {"name": "tiny", "status": "connected"}.items() <= inits[0]["mcp_servers"][0].items()
    assert "mcp__tiny__ping" in inits[0]["tools"]
    tool_results = [
        block
        for e in events
        if e.get("type") == "user"
        for block in e["message"]["content"]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]
    assert tool_results and tool_results[0]["content"] == [{"type": "text", "text": "pong"}]

    turns = mock.turns
    assert len(turns) == 3, mock.describe()
    assert "mcp__tiny__ping" in tools_offered(turns[0])
    assert marker in system_prompt(turns[0])
    assert last_user_text(turns[0]).endswith("Please ping.")
    assert last_tool_result(turns[0]) is None
    assert last_tool_result(turns[1]) == "pong"
    assert last_user_text(turns[2]).endswith("And now?")
    assert not mock.errors, mock.describe()


@needs("claude")
@pytest.mark.timeout(120)
def test_claude_one_process_per_turn_resumes_the_same_session(mock, tmp_path):
    mock.script(["First answer.", "Second answer."])
    setup = setup_claude(mock.url, tmp_path)
    flags = ["--output-format", "stream-json", "--verbose"]

    one = run(setup, ["-p", *flags, "--", "Remember the word kiwi."], timeout=CLI_TIMEOUT)
    assert one.returncode == 0, one.explain()
    (result,) = [e for e in one.events() if e.get("type") == "result"]
    assert result["result"] == "First answer."
    session = result["session_id"]

    two = run(setup, ["-p", *flags, "--resume", session, "--", "Which word?"], timeout=CLI_TIMEOUT)
    assert two.returncode == 0, two.explain()
    (result,) = [e for e in two.events() if e.get("type") == "result"]
    assert (result["result"], result["session_id"]) == ("Second answer.", session)

    resumed = mock.turns[-1]
    assert "Remember the word kiwi." in json.dumps(resumed.body["messages"])
    assert last_user_text(resumed).endswith("Which word?")
    assert not mock.errors, mock.describe()


# -- Codex -----------------------------------------------------------------------------------


@needs("codex")
@pytest.mark.timeout(120)
def test_codex_exec_json_with_mcp_tool_then_resume_keeps_the_thread(mock, tmp_path):
    marker = f"IDEA-DEVELOPER-{uuid.uuid4().hex[:8]}"
    mock.script([ToolCall("mcp__tiny__ping"), "Tool said pong.", "Second answer."])
    setup = setup_codex(mock.openai_url, tmp_path, mcp_servers=[tiny_mcp_server()])
    common = ["exec", "--json", "--skip-git-repo-check"]

    one = run(
        setup,
        [*common, "-c", f"developer_instructions={json.dumps(marker)}", "Please ping."],
        timeout=CLI_TIMEOUT,
    )
    assert one.returncode == 0, one.explain()
    events = one.events()
    started = [e for e in events if e.get("type") == "thread.started"]
    assert len(started) == 1, one.explain()
    thread_id = started[0]["thread_id"]
    items = [e["item"] for e in events if e.get("type") == "item.completed"]
    calls = [i for i in items if i.get("type") == "mcp_tool_call"]
    assert [(c["server"], c["tool"], c["status"]) for c in calls] == [
        ("tiny", "ping", "completed")
    ], one.explain()
    assert calls[0]["result"]["content"] == [{"type": "text", "text": "pong"}]
    messages = [i["text"] for i in items if i.get("type") == "agent_message"]
    assert messages == ["Tool said pong."], one.explain()
    assert events[-1]["type"] == "turn.completed", one.explain()

    turns = mock.turns
    assert len(turns) == 2, mock.describe()
    assert "mcp__tiny__ping" in tools_offered(turns[0])
    assert marker in system_prompt(turns[0])
    assert last_user_text(turns[0]) == "Please ping."
    assert last_tool_result(turns[1]) == "pong"

    two = run(setup, [*common, "resume", thread_id, "And now?"], timeout=CLI_TIMEOUT)
    assert two.returncode == 0, two.explain()
    events = two.events()
    assert [e["thread_id"] for e in events if e.get("type") == "thread.started"] == [thread_id]
    messages = [
        e["item"]["text"]
        for e in events
        if e.get("type") == "item.completed" and e["item"].get("type") == "agent_message"
    ]
    assert messages == ["Second answer."], two.explain()
    resumed = mock.turns[-1]
    assert last_user_text(resumed) == "And now?"
    assert "Please ping." in json.dumps(resumed.body["input"])
    assert not mock.errors, mock.describe()


# -- Gemini CLI ------------------------------------------------------------------------------


def _gemini_reply(events: list[dict]) -> str:
    return "".join(
        e["content"] for e in events if e.get("type") == "message" and e.get("role") == "assistant"
    )


@needs("gemini")
@pytest.mark.timeout(120)
def test_gemini_stream_json_with_mcp_tool_then_resume_keeps_the_session(mock, tmp_path):
    mock.script([ToolCall("mcp_tiny_ping"), "Tool said pong.", "Second answer."])
    setup = setup_gemini(mock.url, tmp_path, mcp_servers=[tiny_mcp_server()])
    session = str(uuid.uuid4())

    one = run(
        setup,
        ["-p", "Please ping.", "--output-format", "stream-json", "--session-id", session],
        timeout=CLI_TIMEOUT,
    )
    assert one.returncode == 0, one.explain()
    events = one.events()
    assert [e["session_id"] for e in events if e.get("type") == "init"] == [session]
    assert _gemini_reply(events) == "Tool said pong.", one.explain()
    tool_results = [e for e in events if e.get("type") == "tool_result"]
    assert [(r["status"], r.get("output")) for r in tool_results] == [("success", "pong")]
    assert events[-1]["type"] == "result" and events[-1]["status"] == "success"

    turns = mock.turns
    assert len(turns) == 2, mock.describe()
    assert "mcp_tiny_ping" in tools_offered(turns[0])
    assert last_user_text(turns[0]).endswith("Please ping.")
    assert last_tool_result(turns[1]) == "pong"

    two = run(
        setup,
        ["-p", "And now?", "--output-format", "stream-json", "--resume", session],
        timeout=CLI_TIMEOUT,
    )
    assert two.returncode == 0, two.explain()
    events = two.events()
    assert [e["session_id"] for e in events if e.get("type") == "init"] == [session]
    assert _gemini_reply(events) == "Second answer.", two.explain()
    resumed = mock.turns[-1]
    assert last_user_text(resumed) == "And now?"
    assert "Please ping." in json.dumps(resumed.body["contents"])
    assert not mock.errors, mock.describe()


# -- Qwen Code -------------------------------------------------------------------------------


@needs("qwen")
@pytest.mark.timeout(120)
def test_qwen_stream_json_two_turns_with_mcp_tool_in_one_process(mock, tmp_path):
    mock.script([ToolCall("mcp__tiny__ping"), "Tool said pong.", "Second answer."])
    setup = setup_qwen(mock.openai_url, tmp_path, mcp_servers=[tiny_mcp_server()])
    args = ["--input-format=stream-json", "--output-format=stream-json"]
    with LiveCli(setup, [*args, "--append-system-prompt=MARKER-QWEN"]) as cli:
        cli.send(
            {"type": "control_request", "request_id": "i1", "request": {"subtype": "initialize"}}
        )
        assert cli.wait_for("control_response")["response"]["subtype"] == "success"
        cli.send_user("Please ping.")
        first = cli.wait_for("result")
        cli.send_user("And now?")
        second = cli.wait_for("result")
        assert cli.finish() == 0, cli.explain()
    assert (first["result"], first["is_error"]) == ("Tool said pong.", False)
    assert second["result"] == "Second answer."
    assert first["session_id"] == second["session_id"]
    turns = mock.turns
    assert len(turns) == 3, mock.describe()  # no auto-memory subagent after the turns
    assert "mcp__tiny__ping" in tools_offered(turns[0])  # offered at once (alwaysLoadTools)
    assert "MARKER-QWEN" in system_prompt(turns[0])
    assert last_tool_result(turns[1]) == "pong"
    assert last_user_text(turns[2]) == "And now?"
    assert not mock.errors, mock.describe()


# -- OpenCode --------------------------------------------------------------------------------


@needs("opencode")
@pytest.mark.timeout(120)
def test_opencode_run_json_with_mcp_tool_then_continue_the_session(mock, tmp_path):
    mock.script([ToolCall("tiny_ping"), "Tool said pong.", "Second answer."])
    setup = setup_opencode(mock.openai_url, tmp_path, mcp_servers=[tiny_mcp_server()])
    one = run(setup, ["run", "--format=json"], input="Please ping.", timeout=CLI_TIMEOUT)
    assert one.returncode == 0, one.explain()
    events = one.events()
    (session,) = {e["sessionID"] for e in events}
    tools = [e["part"] for e in events if e.get("type") == "tool_use"]
    assert [(t["tool"], t["state"]["status"], t["state"]["output"]) for t in tools] == [
        ("tiny_ping", "completed", "pong")
    ]
    assert [e["part"]["text"] for e in events if e.get("type") == "text"] == ["Tool said pong."]
    assert "tiny_ping" in tools_offered(mock.turns[0])
    assert last_tool_result(mock.turns[1]) == "pong"

    two = run(setup, ["run", "--format=json", f"--session={session}"], input="And now?")
    assert two.returncode == 0, two.explain()
    assert {e["sessionID"] for e in two.events()} == {session}
    resumed = mock.turns[-1]
    assert last_user_text(resumed) == "And now?"
    assert "Please ping." in json.dumps(resumed.body["messages"])
    assert not mock.errors, mock.describe()
