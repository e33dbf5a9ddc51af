"""McpConnection against a fake backend: handshake, tools, errors, cancellation, progress, fuzz."""

import asyncio
import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import idea
from idea.application.caller import AskProgress
from idea.domain import commands as c
from idea.domain.errors import AgentFailed, IdeaTimeout, NotFound
from idea.domain.outcome import OrchestratorOutcome
from idea.domain.work_state import Status
from idea.endpoint import jsonrpc
from idea.infrastructure.doors.mcp.server import (
    LATEST_VERSION,
    SUPPORTED_VERSIONS,
    McpConnection,
    encode,
)
from idea.infrastructure.doors.mcp.tools import TOOLS_BY_NAME

AGENTS = [
    {
        "name": "bob",
        "id": "a1",
        "profile": "claude",
        "mode": "structured",
        "description": "reviewer",
        "live": True,
        "status": "idle",
    }
]
BOARD = {"agents": [{"name": "bob", "status": "working", "queued": 1}]}


class FakeBackend:
    """Answers at once, except asks to ``hold`` (wait for ``release``); records everything."""

    def __init__(self):
        self.calls = []  # (command, requester_id, progress listener)
        self.cancelled = []
        self.started = asyncio.Event()
        self.release = asyncio.Event()
        self.progress_script = []  # AskProgress reported before a held ask waits
        self.list_error = None
        self.agents = AGENTS

    async def dispatch(self, command, requester_id, progress):
        self.calls.append((command, requester_id, progress))
        if isinstance(command, c.AskAgent):
            if command.target == "ghost":
                raise NotFound("no agent named ghost")
            if command.target == "boom":
                raise AgentFailed("bob's CLI crashed")
            if command.target == "crash":
                raise RuntimeError("a bug")
            if command.target == "hold":
                for step in self.progress_script:
                    progress(step)
                self.started.set()
                try:
                    await self.release.wait()
                except asyncio.CancelledError:
                    self.cancelled.append(command)
                    raise
            return OrchestratorOutcome(
                f"{command.target} answered", reply=f"reply to {command.task}"
            )
        if isinstance(command, c.GetProjectWorkState):
            return OrchestratorOutcome("project work state", data=BOARD)
        if isinstance(command, c.SetWorkState):
            return OrchestratorOutcome("work state set", data={"status": command.status.value})
        return OrchestratorOutcome(f"{command.ACTION} done")

    def list_agents(self):
        if self.list_error is not None:
            raise self.list_error
        return self.agents


class Outbox:
    """The ``send`` of the connection: checks framing, lets tests wait for a message."""

    def __init__(self):
        self.lines = []
        self._changed = asyncio.Event()

    def send(self, data):
        assert isinstance(data, bytes)
        assert data.endswith(b"\n") and data.count(b"\n") == 1, data
        self.lines.append(data)
        self._changed.set()

    @property
    def messages(self):
        return [json.loads(line) for line in self.lines]

    async def wait_for(self, predicate, timeout=5.0):
        async with asyncio.timeout(timeout):
            while True:
                for message in self.messages:
                    if predicate(message):
                        return message
                self._changed.clear()
                await self._changed.wait()


def rpc(method, params=None, id_=1, **extra):
    message = {"jsonrpc": "2.0", "id": id_, "method": method, **extra}
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode()


def note(method, params=None):
    message = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode()


def call(name, arguments=None, id_=1, meta=None):
    params = {"name": name, "arguments": arguments if arguments is not None else {}}
    if meta is not None:
        params["_meta"] = meta
    return rpc("tools/call", params, id_)


def same_id(a, b):
    return type(a) is type(b) and a == b


def answer_to(id_):
    return lambda m: "id" in m and same_id(m["id"], id_) and ("result" in m or "error" in m)


@pytest.fixture
async def world():
    backend = FakeBackend()
    outbox = Outbox()
    conn = McpConnection(backend, "alice", outbox.send, progress_interval_s=0.02)
    yield conn, backend, outbox
    await conn.close()


async def ask(conn, outbox, data, id_=1):
    """Send a request, wait for its answer."""
    conn.receive(data)
    return await outbox.wait_for(answer_to(id_))


async def tool(conn, outbox, name, arguments=None, id_=1):
    answer = await ask(conn, outbox, call(name, arguments, id_), id_)
    assert "result" in answer, answer
    return answer["result"]


async def settle(conn, pending=0):
    """Let finished or cancelled calls complete until ``pending`` remain (bounded)."""
    async with asyncio.timeout(5):
        while conn.pending_requests != pending:
            await asyncio.sleep(0)


async def still_works(conn, outbox, id_="alive"):
    assert (await ask(conn, outbox, rpc("ping", id_=id_), id_))["result"] == {}


# -- handshake --------------------------------------------------------------------------------


@pytest.mark.parametrize("version", SUPPORTED_VERSIONS)
async def test_initialize_answers_with_the_clients_supported_version(world, version):
    conn, _, outbox = world
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t"}}
    answer = await ask(conn, outbox, rpc("initialize", params))
    assert answer["result"]["protocolVersion"] == version


@pytest.mark.parametrize("version", ["2099-01-01", "1.0", "", None])
async def test_initialize_with_an_unknown_version_gets_the_newest(world, version):
    conn, _, outbox = world
    params = {} if version is None else {"protocolVersion": version}
    answer = await ask(conn, outbox, rpc("initialize", params))
    assert answer["result"]["protocolVersion"] == LATEST_VERSION == "2025-11-25"


async def test_initialize_result_shape(world):
    conn, _, outbox = world
    conn.receive(rpc("initialize", {"protocolVersion": "2025-06-18"}, id_="init"))
    # answered before receive returns, as one compact line
    assert len(outbox.lines) == 1
    result = json.loads(outbox.lines[0])["result"]
    assert result["capabilities"] == {"tools": {"listChanged": False}}
    assert result["serverInfo"] == {"name": "idea", "version": idea.__version__}
    assert isinstance(result["instructions"], str) and 0 < len(result["instructions"]) < 400


async def test_initialized_notification_and_ping(world):
    conn, _, outbox = world
    conn.receive(note("notifications/initialized"))
    assert outbox.lines == []
    conn.receive(rpc("ping", id_=7))
    assert outbox.messages == [{"jsonrpc": "2.0", "id": 7, "result": {}}]


@pytest.mark.parametrize(
    "method", ["server/discover", "resources/list", "resources/templates/list", "prompts/list", "x"]
)
async def test_any_other_request_is_refused_at_once(world, method):
    conn, _, outbox = world
    meta = {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}
    conn.receive(rpc(method, meta, id_="d-1"))
    assert len(outbox.messages) == 1  # before receive returned: no client waits for a timeout
    assert outbox.messages[0]["id"] == "d-1"
    assert outbox.messages[0]["error"]["code"] == -32601


async def test_other_notifications_are_ignored(world):
    conn, _, outbox = world
    for method in ["notifications/roots/list_changed", "notifications/progress", "whatever"]:
        conn.receive(note(method, {"x": 1}))
    conn.receive(note("notifications/cancelled", {"requestId": 99}))
    assert outbox.lines == []


# -- tools/list -------------------------------------------------------------------------------

SCHEMA_KEYWORDS = {
    "type", "description", "properties", "required", "additionalProperties", "enum", "minLength",
    "minimum",
}  # fmt: skip
JSON_TYPES = {"object", "string", "number", "integer", "boolean", "array", "null"}


def check_schema(schema, where):
    """A structural check of the JSON Schema subset the tools use."""
    assert isinstance(schema, dict), where
    assert set(schema) <= SCHEMA_KEYWORDS, (where, set(schema) - SCHEMA_KEYWORDS)
    assert schema.get("type") in JSON_TYPES, where
    if "description" in schema:
        assert isinstance(schema["description"], str) and schema["description"], where
    if "enum" in schema:
        assert isinstance(schema["enum"], list) and schema["enum"], where
        assert len(set(schema["enum"])) == len(schema["enum"]), where
    if "minLength" in schema:
        assert isinstance(schema["minLength"], int) and schema["minLength"] >= 0, where
    if "minimum" in schema:
        assert isinstance(schema["minimum"], int | float), where
    if schema["type"] == "object":
        properties = schema.get("properties", {})
        assert isinstance(properties, dict), where
        for name, sub in properties.items():
            check_schema(sub, f"{where}.{name}")
        required = schema.get("required", [])
        assert isinstance(required, list) and len(set(required)) == len(required), where
        assert set(required) <= set(properties), where
        assert schema.get("additionalProperties", True) in (True, False), where


def conforms(value, schema):
    """Does ``value`` satisfy ``schema`` (the same subset)?"""
    kind = schema["type"]
    if kind == "object":
        if not isinstance(value, dict):
            return False
        props = schema.get("properties", {})
        if any(r not in value for r in schema.get("required", [])):
            return False
        if schema.get("additionalProperties") is False and set(value) - set(props):
            return False
        return all(conforms(v, props[k]) for k, v in value.items() if k in props)
    if kind == "string":
        ok = isinstance(value, str) and len(value) >= schema.get("minLength", 0)
    elif kind == "number":
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        ok = ok and value >= schema.get("minimum", -math.inf)
    else:
        raise AssertionError(kind)
    return ok and ("enum" not in schema or value in schema["enum"])


async def test_tools_list_names_and_schemas(world):
    conn, _, outbox = world
    tools = (await ask(conn, outbox, rpc("tools/list")))["result"]["tools"]
    assert [t["name"] for t in tools] == [
        "idea_list_agents",
        "idea_ask_agent",
        "idea_spawn_agent",
        "idea_stop_agent",
        "idea_update_agent_context",
        "idea_create_skill",
        "idea_workstate_set",
        "idea_workstate_get",
        "idea_agent_changes",
        "idea_agent_merge",
    ]
    for t in tools:
        assert set(t) == {"name", "description", "inputSchema"}
        assert t["description"] and "\n" not in t["description"] and len(t["description"]) < 200
        schema = t["inputSchema"]
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        check_schema(schema, t["name"])
        for identity in ("agent", "agent_id", "requester"):
            assert identity not in schema["properties"], t["name"]
    ask_schema = tools[1]["inputSchema"]
    assert set(ask_schema["properties"]) == {"target", "task", "timeout_s"}
    assert ask_schema["required"] == ["target", "task"]
    status = tools[6]["inputSchema"]["properties"]["status"]
    assert status["enum"] == [s.value for s in Status]


# -- tools/call -------------------------------------------------------------------------------

MAPPINGS = [
    ("idea_ask_agent", {"target": "bob", "task": "review"}, c.AskAgent("bob", "review")),
    (
        "idea_ask_agent",
        {"target": "bob", "task": "review", "timeout_s": 30},
        c.AskAgent("bob", "review", timeout_s=30.0),
    ),
    ("idea_spawn_agent", {"name": "bob"}, c.SpawnAgent("bob")),
    (
        "idea_spawn_agent",
        {"name": "bob", "profile": "codex", "context": "You review."},
        c.SpawnAgent("bob", profile="codex", context="You review.", visible=False),
    ),
    ("idea_stop_agent", {"name": "bob"}, c.StopAgent("bob")),
    (
        "idea_update_agent_context",
        {"name": "bob", "context": "New role"},
        c.UpdateAgentContext("bob", "New role"),
    ),
    (
        "idea_create_skill",
        {"name": "lint", "description": "run the linter", "body": "# Lint"},
        c.CreateSkill("lint", "run the linter", "# Lint"),
    ),
    ("idea_workstate_set", {"status": "working"}, c.SetWorkState(Status.WORKING)),
    (
        "idea_workstate_set",
        {"status": "blocked", "intent": "ship", "ticket": "T-1", "progress": "half"},
        c.SetWorkState(Status.BLOCKED, intent="ship", ticket="T-1", progress="half"),
    ),
    ("idea_workstate_get", {}, c.GetProjectWorkState()),
    ("idea_agent_changes", {"name": "bob"}, c.AgentChanges("bob")),
    ("idea_agent_merge", {"name": "bob"}, c.MergeAgent("bob")),
]


@pytest.mark.parametrize(("name", "arguments", "command"), MAPPINGS)
async def test_each_tool_dispatches_its_command_for_the_connections_requester(
    world, name, arguments, command
):
    conn, backend, outbox = world
    assert conforms(arguments, TOOLS_BY_NAME[name].input_schema())
    result = await tool(conn, outbox, name, arguments)
    assert result["isError"] is False, result
    assert [(cmd, who) for cmd, who, _ in backend.calls] == [(command, "alice")]


async def test_ask_returns_the_reply_text(world):
    conn, _, outbox = world
    result = await tool(conn, outbox, "idea_ask_agent", {"target": "bob", "task": "hi"})
    assert result == {"content": [{"type": "text", "text": "reply to hi"}], "isError": False}


async def test_list_agents_and_board_are_json_text_and_structured_content(world):
    conn, backend, outbox = world
    result = await tool(conn, outbox, "idea_list_agents", id_=1)
    assert json.loads(result["content"][0]["text"]) == {"agents": AGENTS}
    assert result["structuredContent"] == {"agents": AGENTS}
    assert backend.calls == []  # the list is no orchestrator command
    result = await tool(conn, outbox, "idea_workstate_get", id_=2)
    assert json.loads(result["content"][0]["text"]) == BOARD
    assert result["structuredContent"] == BOARD


@pytest.mark.parametrize("id_", ["abc", "ünïcødé", "\ud800", 7, 2**70, 1.5])
async def test_the_agent_list_is_written_as_any_answer_and_follows_changes(world, id_):
    conn, backend, outbox = world
    conn.receive(call("idea_list_agents", id_=id_))
    result = json.loads(outbox.lines[-1])["result"]
    assert outbox.lines[-1] == encode(jsonrpc.result(id_, result))  # byte for byte
    conn.receive(call("idea_list_agents", id_=id_))  # unchanged: the same bytes again
    assert outbox.lines[-1] == outbox.lines[-2]
    backend.agents = [*AGENTS, {**AGENTS[0], "name": "eve", "id": "a2"}]
    conn.receive(call("idea_list_agents", id_=id_))
    listed = json.loads(outbox.lines[-1])["result"]["structuredContent"]["agents"]
    assert [agent["name"] for agent in listed] == ["bob", "eve"]


async def test_no_structured_content_for_clients_older_than_2025_06_18(world):
    conn, _, outbox = world
    await ask(conn, outbox, rpc("initialize", {"protocolVersion": "2025-03-26"}, id_=0), 0)
    result = await tool(conn, outbox, "idea_list_agents")
    assert "structuredContent" not in result
    assert json.loads(result["content"][0]["text"]) == {"agents": AGENTS}


@pytest.mark.parametrize("identity", ["agent", "agent_id", "agentId", "requester"])
async def test_workstate_set_refuses_an_identity_argument(world, identity):
    conn, backend, outbox = world
    result = await tool(conn, outbox, "idea_workstate_set", {"status": "idle", identity: "bob"})
    assert result["isError"] is True
    assert result["content"][0]["text"].startswith("FORBIDDEN: ")
    assert backend.calls == []


@pytest.mark.parametrize(
    ("name", "arguments", "code", "mention"),
    [
        ("idea_ask_agent", {"target": "ghost", "task": "x"}, "NOT_FOUND", "ghost"),
        ("idea_ask_agent", {"target": "boom", "task": "x"}, "AGENT_FAILED", "crashed"),
        ("idea_ask_agent", {"task": "x"}, "MISSING_FIELD", "'target'"),
        ("idea_ask_agent", {"target": "bob", "task": "  "}, "MISSING_FIELD", "'task'"),
        ("idea_ask_agent", {"target": "Bob!", "task": "x"}, "INVALID", "target 'Bob!'"),
        ("idea_ask_agent", {"target": "bob", "task": "x", "timeout_s": 0}, "INVALID", "timeout_s"),
        ("idea_ask_agent", {"target": 3, "task": "x"}, "INVALID", "target must be a string"),
        ("idea_spawn_agent", {"name": "bob", "visible": True}, "INVALID", "'visible'"),
        ("idea_stop_agent", {"name": "bob", "action": "agent.run"}, "INVALID", "'action'"),
        ("idea_workstate_set", {"status": "sleeping"}, "INVALID", "status"),
        ("idea_list_agents", {"agent": "bob"}, "INVALID", "'agent'"),
    ],
)
async def test_tool_failures_are_results_with_the_code(world, name, arguments, code, mention):
    conn, _, outbox = world
    result = await tool(conn, outbox, name, arguments)
    text = result["content"][0]["text"]
    assert result["isError"] is True
    assert text.startswith(f"{code}: "), text
    assert mention in text
    assert "targetAgent" not in text and "timeoutS" not in text  # the model's names, not ours


async def test_idea_errors_from_list_agents_are_results(world):
    conn, backend, outbox = world
    backend.list_error = IdeaTimeout("store busy")
    result = await tool(conn, outbox, "idea_list_agents")
    assert result["isError"] is True
    assert result["content"][0]["text"] == "TIMEOUT: store busy"


async def test_unknown_tool_is_invalid_params_as_the_spec_says(world):
    conn, backend, outbox = world
    answer = await ask(conn, outbox, call("idea_delete_everything"))
    assert answer["error"]["code"] == -32602
    assert "idea_delete_everything" in answer["error"]["message"]
    assert backend.calls == []


async def test_an_unexpected_backend_failure_is_an_internal_error(world):
    conn, _, outbox = world
    answer = await ask(conn, outbox, call("idea_ask_agent", {"target": "crash", "task": "x"}))
    assert answer["error"]["code"] == -32603
    await still_works(conn, outbox)


# -- malformed input ----------------------------------------------------------------------------

NULL_ID_CASES = [
    (b"{not json", -32700),
    (b"\xff\xfe\x00garbage", -32700),
    (b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "x": NaN}', -32700),
    (b"[" * 100_000 + b"]" * 100_000, -32700),
    (b'{"jsonrpc": "2.0", "id": 1, "method": "ping"', -32700),
    (b"[]", -32600),
    (b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]', -32600),
    (b'"ping"', -32600),
    (b"42", -32600),
    (b"null", -32600),
    (b'{"jsonrpc": "2.0", "id": true, "method": "ping"}', -32600),
    (b'{"jsonrpc": "2.0", "id": null, "method": "ping"}', -32600),
    (b'{"jsonrpc": "2.0", "id": [1], "method": "ping"}', -32600),
    (b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}', -32600),
    (b'{"jsonrpc": "2.0", "id": 1e400, "method": "ping"}', -32600),
    (b'{"jsonrpc": "2.0", "method": 5}', -32600),
]


@pytest.mark.parametrize(("raw", "code"), NULL_ID_CASES)
async def test_malformed_messages_get_an_error_with_a_null_id(world, raw, code):
    conn, _, outbox = world
    conn.receive(raw)
    assert len(outbox.messages) == 1
    assert outbox.messages[0]["id"] is None
    assert outbox.messages[0]["error"]["code"] == code
    await still_works(conn, outbox)


ID_CASES = [
    ({"id": 5, "method": "ping"}, -32600),  # no jsonrpc
    ({"jsonrpc": "1.0", "id": 5, "method": "ping"}, -32600),
    ({"jsonrpc": 2.0, "id": 5, "method": "ping"}, -32600),
    ({"jsonrpc": "2.0", "id": 5}, -32600),
    ({"jsonrpc": "2.0", "id": 5, "method": ["ping"]}, -32600),
    ({"jsonrpc": "2.0", "id": 5, "method": "ping", "params": [1]}, -32602),
    ({"jsonrpc": "2.0", "id": 5, "method": "initialize", "params": {"protocolVersion": 1}}, -32602),
    ({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {}}, -32602),
    ({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": 3}}, -32602),
    (
        {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
         "params": {"name": "idea_list_agents", "arguments": ["x"]}},
        -32602,
    ),
    (
        {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
         "params": {"name": "idea_list_agents", "_meta": {"progressToken": True}}},
        -32602,
    ),
    (
        {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
         "params": {"name": "idea_list_agents", "_meta": "tok"}},
        -32602,
    ),
]  # fmt: skip


@pytest.mark.parametrize(("message", "code"), ID_CASES)
async def test_invalid_requests_with_a_valid_id_echo_it(world, message, code):
    conn, _, outbox = world
    conn.receive(json.dumps(message).encode())
    assert len(outbox.messages) == 1
    assert outbox.messages[0]["id"] == 5
    assert outbox.messages[0]["error"]["code"] == code
    await still_works(conn, outbox)


async def test_a_line_over_the_limit_is_refused_without_parsing():
    outbox = Outbox()
    conn = McpConnection(FakeBackend(), "alice", outbox.send, max_message_bytes=1000)
    huge = {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "x" * 2000}}
    conn.receive(json.dumps(huge).encode())
    assert outbox.messages[0]["error"]["code"] == -32600
    conn.receive(rpc("ping", {"pad": "x" * 500}, id_=2))  # under the limit: fine
    assert outbox.messages[1] == {"jsonrpc": "2.0", "id": 2, "result": {}}
    await conn.close()


async def test_a_large_line_under_the_default_limit_is_served(world):
    conn, _, outbox = world
    task = "x" * 3_000_000
    result = await tool(conn, outbox, "idea_ask_agent", {"target": "bob", "task": task})
    assert result["content"][0]["text"] == f"reply to {task}"


async def test_blank_lines_and_client_responses_are_ignored(world):
    conn, _, outbox = world
    for raw in [b"", b"\r\n", b"   ", b'{"jsonrpc": "2.0", "id": 3, "result": {}}',
                b'{"jsonrpc": "2.0", "id": 4, "error": {"code": 1, "message": "m"}}']:  # fmt: skip
        conn.receive(raw)
    assert outbox.lines == []
    conn.receive(b'\xef\xbb\xbf{"jsonrpc": "2.0", "id": 1, "method": "ping"}\r\n')
    assert outbox.messages == [{"jsonrpc": "2.0", "id": 1, "result": {}}]


@pytest.mark.parametrize("id_", ["abc", "", "1", "ünïcødé", 1, 0, -5, 2**70, 1.5, "\ud800"])
async def test_ids_are_echoed_exactly(world, id_):
    conn, _, outbox = world
    conn.receive(json.dumps({"jsonrpc": "2.0", "id": id_, "method": "ping"}).encode())
    conn.receive(call("idea_list_agents", id_=id_))
    await outbox.wait_for(lambda m: len(outbox.lines) == 2)
    for message in outbox.messages:
        assert same_id(message["id"], id_)
    assert "result" in outbox.messages[1]


async def test_a_send_that_fails_never_reaches_the_caller():
    def broken(data):
        raise ConnectionResetError("gone")

    conn = McpConnection(FakeBackend(), "alice", broken)
    conn.receive(rpc("ping"))
    conn.receive(b"garbage")
    conn.receive(call("idea_list_agents", id_=2))
    await conn.close()


# -- concurrency, cancellation, progress --------------------------------------------------------


async def test_ping_and_other_calls_are_answered_while_an_ask_waits(world):
    conn, backend, outbox = world
    conn.receive(call("idea_ask_agent", {"target": "hold", "task": "long"}, id_="ask"))
    await backend.started.wait()
    await ask(conn, outbox, rpc("ping", id_="p"), "p")
    result = await tool(conn, outbox, "idea_workstate_get", id_="g")
    assert result["isError"] is False
    await settle(conn, pending=1)  # the ask, still waiting
    backend.release.set()
    answer = await outbox.wait_for(answer_to("ask"))
    assert answer["result"]["content"][0]["text"] == "reply to long"


async def test_cancelling_a_pending_ask_interrupts_it_and_sends_no_answer(world):
    conn, backend, outbox = world
    conn.receive(call("idea_ask_agent", {"target": "hold", "task": "t"}, id_=12))
    await backend.started.wait()
    conn.receive(note("notifications/cancelled", {"requestId": "12"}))  # another id
    conn.receive(note("notifications/cancelled", {"requestId": 12, "reason": "user"}))
    await settle(conn)
    assert backend.cancelled == [c.AskAgent("hold", "t")]
    await still_works(conn, outbox)
    assert not any(answer_to(12)(m) for m in outbox.messages)


async def test_a_call_cancelled_before_it_starts_is_forgotten(world):
    conn, backend, outbox = world
    conn.receive(call("idea_ask_agent", {"target": "bob", "task": "t"}, id_=1))
    conn.receive(note("notifications/cancelled", {"requestId": 1}))
    await settle(conn)
    await still_works(conn, outbox)
    assert backend.calls == []


async def test_a_duplicate_id_in_flight_is_refused(world):
    conn, backend, outbox = world
    conn.receive(call("idea_ask_agent", {"target": "hold", "task": "t"}, id_=1))
    await backend.started.wait()
    conn.receive(call("idea_list_agents", id_=1))
    assert outbox.messages[-1]["error"]["code"] == -32600
    backend.release.set()
    answer = await outbox.wait_for(lambda m: answer_to(1)(m) and "result" in m)
    assert answer["result"]["content"][0]["text"] == "reply to t"


async def test_close_cancels_what_is_in_flight(world):
    conn, backend, outbox = world
    before = asyncio.all_tasks()
    meta = {"progressToken": "p"}  # its progress reporter is a task too
    conn.receive(call("idea_ask_agent", {"target": "hold", "task": "t"}, id_=1, meta=meta))
    await backend.started.wait()
    await conn.close()
    assert backend.cancelled == [c.AskAgent("hold", "t")]
    assert conn.pending_requests == 0
    assert [task for task in asyncio.all_tasks() - before if not task.done()] == []
    conn.receive(rpc("ping", id_=2))  # closed: nothing more is sent
    assert outbox.lines == []


def progress_of(outbox, token):
    return [
        m["params"]
        for m in outbox.messages
        if m.get("method") == "notifications/progress" and m["params"]["progressToken"] == token
    ]


async def test_progress_notifications_while_an_ask_waits(world):
    conn, backend, outbox = world
    backend.progress_script = [AskProgress("hold", 2, True), AskProgress("hold", 0, True)]
    arguments = {"target": "hold", "task": "t"}
    conn.receive(call("idea_ask_agent", arguments, id_=1, meta={"progressToken": "tok"}))
    await backend.started.wait()
    # heartbeats keep coming while the target works (interval 0.02 s in this fixture)
    await outbox.wait_for(lambda _: len(progress_of(outbox, "tok")) >= 4)
    backend.release.set()
    await outbox.wait_for(answer_to(1))
    messages = outbox.messages
    notes = progress_of(outbox, "tok")
    counts = [n["progress"] for n in notes]
    assert counts == sorted(set(counts))  # strictly increasing
    assert all(set(n) == {"progressToken", "progress", "message"} for n in notes)
    assert "hold is working on your task" in notes[-1]["message"]
    answer_at = next(i for i, m in enumerate(messages) if answer_to(1)(m))
    assert all(m.get("method") != "notifications/progress" for m in messages[answer_at + 1 :])
    count = len(progress_of(outbox, "tok"))
    await still_works(conn, outbox)  # and no more progress after the answer
    assert len(progress_of(outbox, "tok")) == count


async def test_progress_reports_the_queue_position_first(world):
    conn, backend, outbox = world
    backend.progress_script = [AskProgress("hold", 2, True)]
    meta = {"progressToken": 77, "threadId": "th"}  # unknown _meta fields are fine
    conn.receive(call("idea_ask_agent", {"target": "hold", "task": "t"}, id_=1, meta=meta))
    first = await outbox.wait_for(lambda m: m.get("method") == "notifications/progress")
    assert first["params"]["progressToken"] == 77
    assert "position 2" in first["params"]["message"]
    backend.release.set()
    await outbox.wait_for(answer_to(1))


async def test_no_progress_without_a_token(world):
    conn, backend, outbox = world
    conn.receive(call("idea_ask_agent", {"target": "hold", "task": "t"}, id_=1))
    await backend.started.wait()
    backend.release.set()
    await outbox.wait_for(answer_to(1))
    assert all("method" not in m for m in outbox.messages)
    assert backend.calls[0][2] is None


# -- fuzz ---------------------------------------------------------------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)
ids = st.integers() | st.text(max_size=6) | st.floats() | st.booleans() | st.none() | json_values
methods = st.sampled_from(
    ["initialize", "ping", "tools/list", "tools/call", "notifications/cancelled",
     "notifications/initialized", "server/discover", "resources/list"]
) | st.text(max_size=10) | json_values  # fmt: skip
argument_names = st.sampled_from(
    ["target", "task", "timeout_s", "name", "profile", "context", "description", "body",
     "status", "intent", "ticket", "progress", "agent", "agent_id"]
) | st.text(max_size=5)  # fmt: skip
argument_values = (
    st.sampled_from(["bob", "ghost", "boom", "crash", "working", "", "x"]) | json_values
)
params = (
    st.fixed_dictionaries(
        {},
        optional={
            "name": st.sampled_from([*TOOLS_BY_NAME, "nope"]) | json_values,
            "arguments": st.dictionaries(argument_names, argument_values, max_size=4) | json_values,
            "_meta": st.fixed_dictionaries({}, optional={"progressToken": ids}) | json_values,
            "protocolVersion": st.sampled_from(SUPPORTED_VERSIONS) | json_values,
            "requestId": ids,
        },
    )
    | json_values
)
rpc_objects = st.fixed_dictionaries(
    {"method": methods},
    optional={
        "jsonrpc": st.just("2.0") | json_values,
        "id": ids,
        "params": params,
        "result": json_values,
    },
)
valid_requests = st.fixed_dictionaries(
    {"jsonrpc": st.just("2.0"), "id": st.integers() | st.text(max_size=4), "method": methods},
    optional={"params": params},
)
messages = st.one_of(
    st.binary(max_size=60),
    json_values.map(lambda v: json.dumps(v).encode()),
    rpc_objects.map(lambda v: json.dumps(v).encode()),
    valid_requests.map(
        lambda v: json.dumps(v, ensure_ascii=False).encode("utf-8", "surrogatepass")
    ),
    st.tuples(valid_requests, st.integers(0, 40)).map(lambda t: json.dumps(t[0]).encode()[: t[1]]),
)


def valid_id(value):
    if isinstance(value, bool):
        return False
    return isinstance(value, str | int) or (isinstance(value, float) and math.isfinite(value))


def refuse_constant(name):
    raise ValueError(f"{name} is not JSON")


def expectation(raw):
    """("one", id) when the input must get exactly one answer with that id, else ("null", None):
    at most one answer, with a null id."""
    try:
        value = json.loads(raw.decode("utf-8-sig"), parse_constant=refuse_constant)
    except (ValueError, RecursionError):
        return ("one-null", None) if raw.strip() else ("none", None)
    is_response = "method" not in value if isinstance(value, dict) else False
    is_response = is_response and ("result" in value or "error" in value)
    if isinstance(value, dict) and "id" in value and valid_id(value["id"]) and not is_response:
        return ("one", value["id"])
    return ("null", None)


def check_answers(raw, new):
    assert all(m.get("method") is None for m in new), new  # no progress: nothing waits
    for m in new:
        assert m["jsonrpc"] == "2.0" and "id" in m
        assert ("result" in m) != ("error" in m)
        if "error" in m:
            assert m["error"]["code"] in (-32700, -32600, -32601, -32602, -32603)
            assert isinstance(m["error"]["message"], str)
        else:
            assert isinstance(m["result"], dict)
    kind, id_ = expectation(raw)
    if kind == "one":
        assert len(new) == 1 and same_id(new[0]["id"], id_), (raw, new)
    elif kind == "one-null":
        assert len(new) == 1 and new[0]["id"] is None and new[0]["error"]["code"] == -32700
    elif kind == "none":
        assert new == []
    else:
        assert len(new) <= 1 and all(m["id"] is None for m in new), (raw, new)


FUZZ_INPUTS = []  # one entry per input fed, across every example of the run


async def feed(batch):
    outbox = Outbox()
    conn = McpConnection(FakeBackend(), "alice", outbox.send)
    for raw in batch:
        before = len(outbox.lines)
        conn.receive(raw)
        for _ in range(50):  # a fake backend answers within a few loop turns
            if not conn.pending_requests:
                break
            await asyncio.sleep(0)
        assert conn.pending_requests == 0
        check_answers(raw, outbox.messages[before:])
        FUZZ_INPUTS.append(1)
    conn.receive(rpc("ping", id_="last"))
    assert outbox.messages[-1] == {"jsonrpc": "2.0", "id": "last", "result": {}}
    await conn.close()


def mutations(raw, rnd):
    """The input itself, cut short, and with one byte changed: three inputs per generated one."""
    cut = raw[: rnd.randrange(len(raw) + 1)]
    flipped = bytearray(raw or b" ")
    flipped[rnd.randrange(len(flipped))] = rnd.randrange(256)
    return [raw, cut, bytes(flipped)]


@settings(
    max_examples=250,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(messages, min_size=14, max_size=20), st.randoms(use_true_random=False))
def fuzz(batch, rnd):
    asyncio.run(feed([m for raw in batch for m in mutations(raw, rnd)]))


def test_fuzz_every_request_gets_exactly_one_well_formed_answer():
    FUZZ_INPUTS.clear()
    fuzz()
    assert len(FUZZ_INPUTS) >= 10_000
