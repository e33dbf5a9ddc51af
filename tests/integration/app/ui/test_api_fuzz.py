"""A property-based fuzz of the UI's WebSocket API (ui/API.md): generated messages sent to the
real UI server over a real socket with the session token, a real runtime behind it, fake agents.

Property: every message gets exactly one reply; one whose ``id`` the server can read (a number
or a string) gets it back with a result or a typed error, anything else gets ``id: null`` and
``INVALID``; the connection stays open (only a frame over the size limit closes it, with 1009);
nothing logs a traceback; afterwards a fresh connection is answered.

Hypothesis runs in a thread and each example waits for its reply on the core loop, so failing
examples shrink as usual while one app and one connection serve the whole run.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
from dataclasses import dataclass
from typing import Any

import aiohttp
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from idea.app.bootstrap import open_project
from idea.app.project_host import ProjectHost
from idea.app.ui.api import METHODS
from idea.app.ui.layout_ops import LAYOUT_OPS
from idea.app.ui.server import ID_MAX, UiServer
from idea.domain.agent import Agent
from tests.fakes.ports.session_starter import FakeSessionStarter
from tests.integration.app.ui.test_server import open_fake
from tests.ui_client import UiClient

MAX_FRAME_BYTES = 4 * 1024 * 1024  # aiohttp's default max_msg_size, which the server keeps
REPLY_TIMEOUT_S = 10.0
CODES = {
    *("NOT_FOUND", "INVALID", "MISSING_FIELD", "AGENT_ALREADY_RUNNING", "TIMEOUT", "FORBIDDEN"),
    *("CONFLICT", "CORRUPT_FILE", "AGENT_FAILED", "UNAVAILABLE", "UNTRUSTED"),
    *("DEPTH_EXCEEDED", "BUDGET_EXCEEDED", "RATE_LIMITED"),
}
# project.open makes a project of any folder it is given (an absolute path such as "/" is one
# draw away): not fuzzed here; its refusals are tested in test_server.py.
NOT_FUZZED = {"project.open"}
FUZZED = sorted(set(METHODS) - NOT_FUZZED)
PARAMS = (
    *("name", "profile", "context", "description", "mode", "new_name", "op", "leaf_id"),
    *("direction", "after", "tab_id", "title", "activate", "split_id", "sizes", "agent_id"),
    *("view", "node_id", "reattach", "rows", "cols", "attach_id", "data", "text", "limit"),
    *("policy", "asks_from", "max_depth"),
)
WORDS = ("sh", "bot", "nobody", "shell", "claude", "terminal", "chat", "structured", "row")

surrogates = st.characters(categories=["Cs"])
any_text = st.lists(st.characters() | surrogates, max_size=30).map("".join)
scalars = st.none() | st.booleans() | st.integers() | st.floats() | any_text
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(any_text, inner, max_size=4),
    max_leaves=10,
)


def _huge(character: str, budget: int) -> str:
    """As many ``character`` as fit in ``budget`` bytes of the frame."""
    return character * (budget // max(1, len(character.encode("utf-8", "surrogatepass"))))


huge_text = st.builds(_huge, st.characters(), st.sampled_from([1000, 100_000, 1_500_000]))


def _nested(depth: int) -> object:
    value: object = []
    for _ in range(depth):
        value = [value]
    return value


param_values = (
    json_values
    | st.sampled_from([*WORDS, *LAYOUT_OPS, "", " "])
    | huge_text
    | st.integers(1, 500).map(_nested)
)
params = st.fixed_dictionaries(
    {}, optional={**dict.fromkeys(PARAMS, param_values), "extra": json_values}
)
methods = st.sampled_from(FUZZED) | any_text | huge_text | json_values


@dataclass(frozen=True)
class Sent:
    frame: str | bytes
    request_id: int | str | None  # what the reply must carry
    too_deep_maybe: bool = False  # the reply may be id null "nested too deeply" instead

    def __repr__(self) -> str:  # huge frames are shown by their start and their size
        frame = self.frame if len(self.frame) <= 300 else self.frame[:300]
        return f"Sent({frame!r}{'...' if frame is not self.frame else ''}, {len(self.frame)})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # hypothesis's printer
        printer.text(repr(self))


@st.composite
def messages(draw: st.DrawFn, numbers: itertools.count) -> Sent:
    kinds = ["request"] * 6 + ["text", "binary", "not an object", "deep", "deep params"]
    kind = draw(st.sampled_from(kinds))
    if kind == "binary":
        return Sent(draw(st.binary(max_size=100)), None)
    if kind == "text":
        text = draw(st.text(max_size=100))
        try:
            json.loads(text)
        except ValueError:
            return Sent(text, None)
        return Sent(text + "}", None)  # still not JSON
    if kind == "not an object":
        value = draw(json_values.filter(lambda v: not isinstance(v, dict)))
        return Sent(_frame(value), None)
    if kind == "deep":
        return Sent("[" * 100_000 + "]" * 100_000, None)
    number = next(numbers)
    if kind == "deep params":
        # The JSON parser gives up near 1,000 levels (how near depends on the stack it runs
        # on): both sides of that are drawn, written out as text.
        depth = draw(st.integers(500, 3000))
        method = draw(st.sampled_from(FUZZED))
        field = draw(st.sampled_from(PARAMS))
        nested = "[" * depth + "]" * depth
        frame = f'{{"id":{number},"method":"{method}","params":{{"{field}":{nested}}}}}'
        return Sent(frame, number, too_deep_maybe=True)
    request: dict[str, object] = {}
    id_kind = draw(st.sampled_from(["int", "huge int", "text", "huge text", "bad", "absent"]))
    request_id: int | str | None = None
    if id_kind == "int":
        request_id = number
    elif id_kind == "huge int":
        request_id = draw(st.sampled_from([-1, 1])) * (10**60 + number)
    elif id_kind == "text":
        request_id = f"{draw(any_text)}#{number}"
    elif id_kind == "huge text":
        request_id = f"{draw(huge_text)}#{number}"
    elif id_kind == "bad":
        request["id"] = draw(st.none() | st.booleans() | st.floats() | st.lists(scalars))
    if request_id is not None:
        request["id"] = request_id
    if draw(st.integers(0, 9)):
        request["method"] = draw(methods)
    if draw(st.integers(0, 5)):
        request["params"] = draw(params) if draw(st.integers(0, 4)) else draw(json_values)
    frame = _frame(request)
    assume(len(frame.encode("utf-8", "surrogatepass")) < MAX_FRAME_BYTES - 1024)
    # As the server reads it (an escaped surrogate pair is one character).
    read_id = json.loads(frame)["id"] if request_id is not None else None
    if isinstance(read_id, str) and len(read_id) > ID_MAX:
        read_id = None
    return Sent(frame, read_id)


def _frame(value: object) -> str:
    """Raw characters where they can be sent (a bigger test of the server), else escapes."""
    text = json.dumps(value, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value)
    return text


@pytest.fixture
async def served(tmp_path):
    starter = FakeSessionStarter()
    root = tmp_path / "project"
    root.mkdir()
    runtime = await open_fake(starter)(root)
    runtime.services.agents.save(Agent(id="id-sh", name="sh", profile="shell"))
    runtime.services.agents.save(Agent(id="id-bot", name="bot", profile="claude"))
    host = ProjectHost(runtime, open_project)
    server = UiServer(host, dist=tmp_path / "no-dist")
    url = await server.start()
    yield server, url
    await server.close()
    await host.close()


async def _reply(ws: aiohttp.ClientWebSocketResponse) -> dict[str, Any]:
    """The next reply (pushed events and terminal frames are skipped)."""
    async with asyncio.timeout(REPLY_TIMEOUT_S):
        async for message in ws:
            if message.type == aiohttp.WSMsgType.TEXT:
                data = json.loads(message.data)
                if "event" not in data:
                    return data
            elif message.type != aiohttp.WSMsgType.BINARY:
                break
    raise AssertionError(f"the connection ended: close code {ws.close_code}")


def _check(sent: Sent, reply: dict[str, Any]) -> None:
    if sent.too_deep_maybe and reply["id"] is None:
        assert "nested too deeply" in reply["error"]["message"], reply
        return
    assert reply["id"] == sent.request_id, reply
    assert isinstance(reply["ok"], bool), reply
    if reply["ok"]:
        assert set(reply) == {"id", "ok", "result"}, reply
        return
    assert set(reply) == {"id", "ok", "error"}, reply
    assert reply["error"]["code"] in CODES, reply
    assert isinstance(reply["error"]["message"], str), reply
    if sent.request_id is None:
        assert reply["error"]["code"] == "INVALID", reply


class Connection:
    """One WebSocket to the server; a fresh one if an example left it closed (so that example
    fails alone and shrinks as itself)."""

    def __init__(self, url: str) -> None:
        self._url = url
        self._stack = contextlib.AsyncExitStack()
        self._client: UiClient | None = None

    async def client(self) -> UiClient:
        if self._client is None or self._client.ws.closed:
            await self.close()
            self._client = await self._stack.enter_async_context(UiClient.connect(self._url))
        return self._client

    async def exchange(self, sent: Sent) -> None:
        ws = (await self.client()).ws
        if isinstance(sent.frame, bytes):
            await ws.send_bytes(sent.frame)
        else:
            await ws.send_str(sent.frame)
        _check(sent, await _reply(ws))

    async def close(self) -> None:
        await self._stack.aclose()
        self._stack, self._client = contextlib.AsyncExitStack(), None


@pytest.mark.timeout(60)
async def test_every_message_gets_exactly_one_typed_reply_and_the_server_keeps_serving(
    served, caplog
):
    caplog.set_level(logging.INFO, logger="idea")
    _, url = served
    loop = asyncio.get_running_loop()
    numbers = itertools.count()
    connection = Connection(url)

    @settings(max_examples=100, deadline=None, database=None)
    @given(sent=messages(numbers))
    def fuzz(sent: Sent) -> None:
        future = asyncio.run_coroutine_threadsafe(connection.exchange(sent), loop)
        future.result(REPLY_TIMEOUT_S * 2)

    try:
        await asyncio.to_thread(fuzz)
        # Nothing more comes on the fuzzed connection: its next reply answers this request.
        assert (await (await connection.client()).call("project.info"))["name"] == "project"
    finally:
        await connection.close()
    assert not [r for r in caplog.records if r.exc_info], caplog.text

    async with UiClient.connect(url) as fresh:
        assert (await fresh.call("project.info"))["name"] == "project"
        assert isinstance(await fresh.call("agents.list"), list)


@pytest.mark.timeout(30)
async def test_a_frame_over_the_size_limit_closes_with_1009_and_a_new_connection_is_served(
    served,
):
    _, url = served
    async with UiClient.connect(url) as client:
        await client.ws.send_str(json.dumps({"id": 1, "method": "project.info", "pad": ""}))
        assert (await _reply(client.ws))["id"] == 1
        with contextlib.suppress(ConnectionError):  # the server may close while it is sent
            await client.ws.send_str(" " * MAX_FRAME_BYTES + "{}")
        message = await client.ws.receive(timeout=REPLY_TIMEOUT_S)
        # No reply: the server closes with 1009; this client, still writing the frame when the
        # close came, sees its own write fail and reports 1006.
        assert message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED), message
        assert client.ws.close_code in (
            aiohttp.WSCloseCode.MESSAGE_TOO_BIG,
            aiohttp.WSCloseCode.ABNORMAL_CLOSURE,
        )
    async with UiClient.connect(url) as fresh:
        assert (await fresh.call("project.info"))["name"] == "project"
