"""The UI server as the browser uses it: real HTTP and WebSocket, a real runtime, fake agents.

Fake terminals echo what is written; fake structured sessions answer ``echo: <prompt>``.
Every wait is bounded; terminal tests wait for a sentinel.
"""

import asyncio
import json
import signal
import sys
from pathlib import Path

import aiohttp
import pytest
from aiohttp import WSMsgType
from aiohttp.test_utils import TestClient, TestServer
from yarl import URL

import idea
from idea.app.bootstrap import open_project
from idea.app.project_host import ProjectHost
from idea.app.runtime import ProjectRuntime
from idea.app.terminals.frames import Output, Resync, decode_frame
from idea.app.ui.server import UiServer, default_dist
from idea.domain.agent import Agent
from idea.domain.commands import AskAgent, Source
from idea.domain.errors import CorruptFile, Unavailable
from idea.domain.policy import Policy
from idea.domain.usage import RateLimit, Usage
from idea.infrastructure.stores.recent_projects import RecentProjects
from tests.fakes.ports.agent_session import FakeAgentSession
from tests.fakes.ports.clock import FakeClock
from tests.fakes.ports.session_starter import FakeSessionStarter
from tests.processes import LineWatcher, spawned

PAGE = "<!doctype html><p>test page</p>"


class StartedSession(FakeAgentSession):
    """Tells the test when a turn has started."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.turn_started = asyncio.Event()

    async def _start_turn(self, prompt):
        await super()._start_turn(prompt)
        self.turn_started.set()


@pytest.fixture
def starter():
    return FakeSessionStarter(session_class=StartedSession)


@pytest.fixture
def clock(request):
    """The runtime's clock: the system's, or a fake one for a test parametrized (``indirect``)
    with ``"fake"``, which sets the time instead of waiting for it."""
    return FakeClock() if getattr(request, "param", None) == "fake" else None


@pytest.fixture
async def runtime(tmp_path, starter, clock):
    root = tmp_path / "project"
    root.mkdir()
    rt = await open_project(
        root, starter=starter, with_mcp=False, resume=False, file_door=False, clock=clock
    )
    rt.services.agents.save(Agent(id="id-sh", name="sh", profile="shell"))
    rt.services.agents.save(Agent(id="id-bot", name="bot", profile="claude"))
    yield rt
    await rt.close()


@pytest.fixture
def dist(tmp_path):
    folder = tmp_path / "dist"
    (folder / "assets").mkdir(parents=True)
    (folder / "index.html").write_text(PAGE, encoding="utf-8")
    (folder / "assets" / "app.js").write_text("console.log('ok')", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("not for the browser", encoding="utf-8")
    return folder


async def serve(host, dist, **options):
    if isinstance(host, ProjectRuntime):
        host = ProjectHost(host, open_project)
    server = UiServer(host, dist=dist, **options)
    client = TestClient(TestServer(server.app))
    await client.start_server()
    return server, client


def open_fake(starter):
    async def opener(root):
        return await open_project(
            root, starter=starter, with_mcp=False, resume=False, file_door=False
        )

    return opener


@pytest.fixture
async def host(runtime, starter, tmp_path):
    recent = RecentProjects(tmp_path / "config" / "recent.json")
    project_host = ProjectHost(runtime, open_fake(starter), recent)
    yield project_host
    await project_host.close()


@pytest.fixture
async def ui(host, dist):
    server, client = await serve(host, dist)
    yield server, client
    await client.close()


def own_origin(client, host="127.0.0.1"):
    return f"http://{host}:{client.port}"


class Api:
    """A WebSocket client of the API: replies by id; events and terminal frames are kept."""

    def __init__(self, ws):
        self.ws = ws
        self.next_id = 0
        self.replies = {}
        self.reply_sizes = {}  # characters of each reply's frame, by id
        self.events = []
        self.frames = []

    async def read_one(self):
        msg = await self.ws.receive()
        if msg.type == WSMsgType.TEXT:
            data = json.loads(msg.data)
            if "event" in data:
                self.events.append(data)
            else:
                self.replies[data["id"]] = data
                self.reply_sizes[data["id"]] = len(msg.data)
        elif msg.type == WSMsgType.BINARY:
            self.frames.append(decode_frame(msg.data))
        else:
            raise AssertionError(f"the connection ended: {msg}")

    async def until(self, predicate, timeout=5.0):
        async with asyncio.timeout(timeout):
            while not predicate():
                await self.read_one()

    async def send(self, method, **params):
        self.next_id += 1
        await self.ws.send_json({"id": self.next_id, "method": method, "params": params})
        return self.next_id

    async def reply(self, request_id):
        await self.until(lambda: request_id in self.replies)
        return self.replies.pop(request_id)

    async def ok(self, method, **params):
        reply = await self.reply(await self.send(method, **params))
        assert reply["ok"] is True, reply
        return reply["result"]

    async def result(self, request_id):
        reply = await self.reply(request_id)
        assert reply["ok"] is True, reply
        return reply["result"]

    async def fail(self, method, **params):
        reply = await self.reply(await self.send(method, **params))
        assert reply["ok"] is False, reply
        assert set(reply) == {"id", "ok", "error"}
        return reply["error"]

    async def event(self, name, **match):
        def found():
            return next((e["data"] for e in self.events if matches(e, name, match)), None)

        await self.until(lambda: found() is not None)
        data = found()
        self.events.remove({"event": name, "data": data})
        return data

    def output(self, attach_id):
        return "".join(
            f.text for f in self.frames if isinstance(f, Output) and f.attach_id == attach_id
        )


def matches(event, name, match):
    return event["event"] == name and all(event["data"].get(k) == v for k, v in match.items())


async def connect(ui, **headers):
    server, client = ui
    ws = await client.ws_connect(
        f"/ws?token={server.token}", headers={"Origin": own_origin(client), **headers}
    )
    return Api(ws)


@pytest.fixture
async def api(ui):
    connection = await connect(ui)
    yield connection
    await connection.ws.close()


# --- security ------------------------------------------------------------------------------------


async def test_a_page_load_with_the_token_sets_a_strict_cookie_that_then_suffices(ui):
    server, client = ui
    page = await client.get(f"/?token={server.token}")
    assert page.status == 200
    assert await page.text() == PAGE
    cookie = page.headers["Set-Cookie"]
    assert "HttpOnly" in cookie
    assert "SameSite=Strict" in cookie
    assert page.headers["Referrer-Policy"] == "no-referrer"
    asset = await client.get("/assets/app.js")
    assert asset.status == 200
    assert await asset.text() == "console.log('ok')"
    ws = await client.ws_connect("/ws", headers={"Origin": own_origin(client)})
    await ws.close()


@pytest.mark.parametrize(
    ("path", "headers"),
    [
        ("/", {}),
        ("/?token=wrong", {}),
        ("/assets/app.js", {}),
        ("/?token={token}", {"Host": "evil.example:{port}"}),
        ("/?token={token}", {"Host": "127.0.0.1:1"}),
        ("/assets/app.js?token={token}", {"Origin": "http://evil.example"}),
    ],
    ids=["no-token", "wrong-token", "asset-no-token", "bad-host", "bad-port", "foreign-origin"],
)
async def test_http_requests_without_token_or_from_elsewhere_are_refused(ui, path, headers):
    server, client = ui
    filled = {k: v.format(port=client.port) for k, v in headers.items()}
    response = await client.get(path.format(token=server.token), headers=filled)
    assert response.status == 403
    assert "Set-Cookie" not in response.headers


async def test_localhost_is_this_server_too(ui):
    server, client = ui
    response = await client.get(
        f"/?token={server.token}", headers={"Host": f"localhost:{client.port}"}
    )
    assert response.status == 200


@pytest.mark.parametrize(
    ("query", "origin"),
    [
        ("?token={token}", None),
        ("?token={token}", "http://evil.example"),
        ("?token={token}", "http://127.0.0.1:1"),
        ("", "own"),
        ("?token=wrong", "own"),
    ],
    ids=["no-origin", "foreign-origin", "other-port-origin", "no-token", "wrong-token"],
)
async def test_websocket_handshakes_without_token_or_own_origin_are_refused(ui, query, origin):
    server, client = ui
    if origin == "own":
        origin = own_origin(client)
    headers = {} if origin is None else {"Origin": origin}
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await client.ws_connect(f"/ws{query.format(token=server.token)}", headers=headers)
    assert refused.value.status == 403


async def test_websocket_from_localhost_origin_with_the_token_is_accepted(ui):
    server, client = ui
    ws = await client.ws_connect(
        f"/ws?token={server.token}",
        headers={"Origin": own_origin(client, "localhost"), "Host": f"localhost:{client.port}"},
    )
    api = Api(ws)
    assert (await api.ok("project.info"))["version"]
    await ws.close()


async def test_files_outside_dist_and_missing_files_are_not_served(ui):
    server, client = ui
    for raw in (
        "/..%2Fsecret.txt",
        "/assets/..%2F..%2Fsecret.txt",
        "/nope.js",
        "/index.html%00.js",
    ):
        response = await client.get(URL(f"{raw}?token={server.token}", encoded=True))
        assert response.status == 404, raw


async def test_without_a_built_ui_the_page_says_so(runtime, tmp_path):
    server, client = await serve(runtime, tmp_path / "no-dist")
    try:
        page = await client.get(f"/?token={server.token}")
        assert page.status == 200
        assert "IdeA UI not built" in await page.text()
    finally:
        await client.close()


async def test_a_real_listener_serves_on_loopback_and_a_taken_port_is_unavailable(runtime, dist):
    first = UiServer(ProjectHost(runtime, open_project), dist=dist)
    url = URL(await first.start())
    try:
        assert (url.host, url.query["token"]) == ("127.0.0.1", first.token)
        async with aiohttp.ClientSession() as http, http.get(url) as page:
            assert await page.text() == PAGE
        second = UiServer(ProjectHost(runtime, open_project), dist=dist, port=url.port)
        with pytest.raises(Unavailable, match=str(url.port)):
            await second.start()
    finally:
        await first.close()
        await first.close()


def test_the_ui_is_served_from_ui_dist_beside_the_package():
    assert default_dist() == Path(idea.__file__).resolve().parents[1] / "ui" / "dist"


# --- protocol ------------------------------------------------------------------------------------


async def test_malformed_messages_get_an_error_reply_and_the_connection_lives_on(api):
    await api.ws.send_str("not json")
    await api.until(lambda: None in api.replies)
    assert api.replies.pop(None)["error"]["code"] == "INVALID"
    await api.ws.send_json({"id": 7})
    assert (await api.reply(7))["error"] == {
        "code": "MISSING_FIELD",
        "message": "missing required field 'method'",
        "field": "method",
    }
    await api.ws.send_json({"id": "s8", "method": "no.such"})
    assert "no.such" in (await api.reply("s8"))["error"]["message"]
    await api.ws.send_json({"id": 9, "method": "project.info", "params": [1]})
    assert (await api.reply(9))["error"]["code"] == "INVALID"
    await api.ws.send_bytes(b"\x01\x00")
    await api.until(lambda: None in api.replies)
    assert api.replies.pop(None)["error"]["code"] == "INVALID"
    await api.ws.send_str("[" * 100_000 + "]" * 100_000)  # deeper than the JSON parser goes
    await api.until(lambda: None in api.replies)
    assert "nested too deeply" in api.replies.pop(None)["error"]["message"]
    assert (await api.ok("project.info"))["name"] == "project"


async def test_a_reply_is_never_much_bigger_than_its_request(api):
    # Found by fuzzing: the reply echoed the id, or quoted the bad value whole, JSON-escaped up
    # to six times its size; past 8 MiB waiting, the server closed the client as too slow.
    await api.ws.send_str(json.dumps({"id": "\x7f" * 3_000_000, "method": "x"}, ensure_ascii=False))
    await api.until(lambda: None in api.replies)
    assert api.replies.pop(None)["error"]["message"] == "id: at most 256 characters"
    await api.ws.send_str(json.dumps({"id": 2, "method": "\x7f" * 3_000_000}, ensure_ascii=False))
    error = (await api.reply(2))["error"]
    assert error["code"] == "INVALID"
    assert error["message"].startswith("method: unknown method '\\x7f")
    assert len(error["message"]) <= 2000
    assert (await api.ok("project.info"))["name"] == "project"


async def test_a_reply_carrying_non_ascii_text_is_not_inflated_by_escapes(api):
    # Non-ASCII text came back as \u escapes, six times its size: 3 MB of "é" were 9 MB queued,
    # and the client was closed as too slow (4001). An agent's context, at its cap, shows it.
    context = "é" * 500_000
    params = {"name": "big", "profile": "shell", "context": context}
    request = {"id": "big", "method": "agents.create", "params": params}
    await api.ws.send_str(json.dumps(request, ensure_ascii=False))
    assert (await api.reply("big"))["result"]["context"] == context
    assert api.reply_sizes["big"] < len(context) + 1000  # as itself, not escaped
    assert (await api.ok("project.info"))["name"] == "project"


async def test_text_with_a_lone_surrogate_is_invalid_not_internal(api):
    # Found by fuzzing: the agent file (or the delegation log) could not be written as UTF-8.
    error = await api.fail("agents.create", name="x", profile="shell", context="\ud800")
    assert (error["code"], error["message"][:9]) == ("INVALID", "context: ")
    error = await api.fail("chat.send", name="bot", text="a\udfff")
    assert (error["code"], error["message"][:6]) == ("INVALID", "text: ")
    assert "x" not in [agent["name"] for agent in await api.ok("agents.list")]


async def test_project_info_and_profiles_with_cli_detection(api, runtime):
    info = await api.ok("project.info")
    assert info["id"] == runtime.services.info.id
    assert info["root"] == str(runtime.services.paths.root)
    profiles = {p["name"]: p for p in await api.ok("profiles.list")}
    assert {"claude", "codex", "gemini", "shell"} <= set(profiles)
    assert profiles["shell"]["modes"] == ["terminal"]
    assert profiles["claude"]["modes"] == ["terminal", "structured"]
    # What the agent editor offers: permission modes and known models come from the server.
    assert profiles["claude"]["permission_modes"][:2] == ["default", "acceptEdits"]
    assert "sonnet" in profiles["claude"]["models"]
    assert "workspace-write" in profiles["codex"]["permission_modes"]
    assert (profiles["shell"]["permission_modes"], profiles["shell"]["models"]) == ([], [])
    for profile in profiles.values():
        assert profile["installed"] == (profile["path"] is not None)
        assert profile["installed"] or profile["problem"]


# --- agents --------------------------------------------------------------------------------------


async def test_agents_list_leaves_contexts_out_and_a_huge_agent_file_is_refused_clearly(
    api, runtime
):
    """A 9 MB agent file once made every agents.list overflow the client's bound (4001)."""
    await api.ok("agents.create", name="arch", profile="claude", context="You design.")
    huge = runtime.services.paths.agent_file("huge")
    huge.write_text("---\nid: id-huge\nprofile: shell\n---\n" + "x" * 9_000_000, "utf-8")
    for _ in range(3):  # a reload, then another
        rows = await api.ok("agents.list")
        assert [row["name"] for row in rows] == ["arch", "bot", "sh"]
        assert all("context" not in row for row in rows)
    (problem,) = await api.ok("problems.list")
    assert problem["code"] == "CORRUPT_FILE"
    assert "'context' holds 9,000,000 characters" in problem["reason"]
    assert (await api.ok("agents.get", name="arch"))["context"] == "You design."
    assert (await api.fail("agents.get", name="ghost"))["code"] == "NOT_FOUND"
    too_long = await api.fail("agents.update", name="arch", context="y" * 600_000)
    assert (too_long["code"], "'context'" in too_long["message"]) == ("INVALID", True)
    assert (await api.ok("project.info"))["name"] == "project"  # still connected


async def test_agents_create_update_rename_and_delete(api, runtime):
    made = await api.ok(
        "agents.create", name="arch", profile="claude", context="You design.", mode="structured"
    )
    assert (made["name"], made["mode"], made["live"], made["context"]) == (
        "arch",
        "structured",
        False,
        "You design.",
    )
    await api.event("AgentsChanged")
    assert (await api.fail("agents.create", name="arch", profile="claude"))["code"] == "CONFLICT"
    assert (await api.fail("agents.create", name="x"))["field"] == "profile"
    bad_mode = await api.fail("agents.create", name="x", profile="shell", mode="structured")
    assert bad_mode["code"] == "INVALID"

    updated = await api.ok(
        "agents.update", name="arch", new_name="architect", description="plans", mode=None
    )
    assert (updated["id"], updated["name"], updated["description"], updated["mode"]) == (
        made["id"],
        "architect",
        "plans",
        "structured",
    )
    assert updated["configured_mode"] is None
    assert updated["context"] == "You design."
    paths = runtime.services.paths
    assert not paths.agent_file("arch").exists()
    assert runtime.services.agents.get("architect").id == made["id"]
    taken = await api.fail("agents.update", name="architect", new_name="sh")
    assert taken["code"] == "CONFLICT"
    wrong = await api.fail("agents.update", name="architect", profile="shell", mode="structured")
    assert wrong["code"] == "INVALID"
    assert "mode" in wrong["message"]

    listed = {a["name"]: a for a in await api.ok("agents.list")}
    assert set(listed) == {"architect", "bot", "sh"}
    assert await api.ok("agents.delete", name="architect") == {
        "deleted": "architect",
        "agent_id": made["id"],
    }
    assert (await api.fail("agents.delete", name="architect"))["code"] == "NOT_FOUND"


async def test_an_agents_model_and_permission_mode_are_created_kept_and_cleared(api, runtime):
    made = await api.ok(
        "agents.create", name="rev", profile="claude", model=" opus ", permission_mode="plan"
    )
    assert (made["model"], made["permission_mode"]) == ("opus", "plan")
    text = runtime.services.paths.agent_file("rev").read_text("utf-8")
    assert "model: opus" in text and "permission_mode: plan" in text
    kept = await api.ok("agents.update", name="rev", description="reads")
    assert (kept["model"], kept["permission_mode"]) == ("opus", "plan")
    cleared = await api.ok("agents.update", name="rev", model=None, permission_mode=None)
    assert (cleared["model"], cleared["permission_mode"]) == (None, None)
    # Each refusal names the field the editor shows it under.
    refusals = [
        ({"name": "Bad Name!", "profile": "shell"}, "name"),
        ({"name": "x", "profile": "shell", "mode": "structured"}, "mode"),
        ({"name": "x", "profile": "shell", "permission_mode": "plan"}, "permission_mode"),
        ({"name": "x", "profile": "claude", "permission_mode": "yolo"}, "permission_mode"),
        ({"name": "x", "profile": "claude", "model": "two words"}, "model"),
    ]
    for params, field in refusals:
        refused = await api.fail("agents.create", **params)
        assert (refused["code"], refused["field"]) == ("INVALID", field), refused
    to_shell = await api.fail("agents.update", name="rev", profile="shell", permission_mode="plan")
    assert to_shell["field"] == "permission_mode"
    assert (await api.fail("agents.update", name="rev", new_name="No!"))["field"] == "new_name"


async def test_a_live_agent_is_neither_deleted_nor_renamed(api):
    await api.ok("session.launch", name="sh")
    assert (await api.fail("agents.delete", name="sh"))["code"] == "CONFLICT"
    assert (await api.fail("agents.update", name="sh", new_name="shell2"))["code"] == "CONFLICT"
    row = next(a for a in await api.ok("agents.list") if a["name"] == "sh")
    assert (row["live"], row["mode"], row["node_id"]) == (True, "terminal", None)


# --- layouts -------------------------------------------------------------------------------------


async def test_layout_operations_persist_and_publish(api, runtime):
    layouts = await api.ok("layouts.get")
    first_leaf = layouts["tabs"][0]["root"]["id"]

    split = await api.ok("layouts.apply", op="split", leaf_id=first_leaf, direction="row")
    await api.event("LayoutChanged")
    new_leaf = split["leaf_id"]
    root = split["layouts"]["tabs"][0]["root"]
    assert [c["id"] for c in root["children"]] == [first_leaf, new_leaf]
    resized = await api.ok("layouts.apply", op="resize", split_id=root["id"], sizes=[3, 1])
    assert resized["layouts"]["tabs"][0]["root"]["sizes"] == [0.75, 0.25]
    bound = await api.ok(
        "layouts.apply", op="bind", leaf_id=new_leaf, agent_id="id-bot", view="chat"
    )
    leaf = bound["layouts"]["tabs"][0]["root"]["children"][1]
    assert (leaf["agent"], leaf["view"]) == ("id-bot", "chat")
    tab = await api.ok("layouts.apply", op="add_tab", title="Second")
    assert tab["layouts"]["active_tab"] == tab["tab_id"]
    first_tab = layouts["tabs"][0]["id"]
    active = await api.ok("layouts.apply", op="set_active_tab", tab_id=first_tab)
    assert active["layouts"]["active_tab"] == first_tab
    closed_tab = await api.ok("layouts.apply", op="close_tab", tab_id=tab["tab_id"])
    assert len(closed_tab["layouts"]["tabs"]) == 1
    closed = await api.ok("layouts.apply", op="close", leaf_id=first_leaf)
    assert closed["layouts"]["tabs"][0]["root"]["id"] == new_leaf
    assert runtime.layouts().to_json() == closed["layouts"]
    assert await api.ok("layouts.get") == closed["layouts"]

    assert (await api.fail("layouts.apply", op="explode"))["code"] == "INVALID"
    assert (await api.fail("layouts.apply", op="split", direction="row"))["field"] == "leaf_id"
    last = await api.fail("layouts.apply", op="close_tab", tab_id=first_tab)
    assert last["code"] == "INVALID"
    unknown = await api.fail("layouts.apply", op="bind", leaf_id=new_leaf, agent_id="nobody")
    assert unknown["code"] == "NOT_FOUND"
    sizes = await api.fail("layouts.apply", op="resize", split_id=root["id"], sizes="big")
    assert "sizes" in sizes["message"]


async def test_a_cell_no_longer_showing_its_live_agent_lets_it_run_in_the_background(api):
    leaf = (await api.ok("layouts.get"))["tabs"][0]["root"]["id"]
    await api.ok("layouts.apply", op="bind", leaf_id=leaf, agent_id="id-sh")
    await api.ok("session.launch", name="sh", node_id=leaf)
    await api.ok("layouts.apply", op="bind", leaf_id=leaf, agent_id="id-bot", view="chat")
    row = next(a for a in await api.ok("agents.list") if a["name"] == "sh")
    assert (row["live"], row["node_id"]) == (True, None)


async def test_a_live_agent_is_moved_to_another_cell_without_a_restart(api, runtime, starter):
    leaf = (await api.ok("layouts.get"))["tabs"][0]["root"]["id"]
    other = (await api.ok("layouts.apply", op="split", leaf_id=leaf, direction="row"))["leaf_id"]
    await api.ok("layouts.apply", op="bind", leaf_id=leaf, agent_id="id-sh")
    await api.ok("session.launch", name="sh", node_id=leaf)
    refused = await api.fail("session.launch", name="sh", node_id=other)
    assert (refused["code"], refused["node_id"]) == ("AGENT_ALREADY_RUNNING", leaf)

    moved = await api.ok("session.move", name="sh", node_id=other)
    assert (moved["agent_id"], moved["node_id"], moved["from_node_id"]) == ("id-sh", other, leaf)
    cells = {c["id"]: c for c in moved["layouts"]["tabs"][0]["root"]["children"]}
    assert (cells[other]["agent"], cells[other]["view"]) == ("id-sh", "terminal")
    assert cells[leaf]["agent"] is None
    assert runtime.layouts().to_json() == moved["layouts"]  # persisted
    await api.event("LayoutChanged")
    await api.event("AgentsChanged")
    row = next(a for a in await api.ok("agents.list") if a["name"] == "sh")
    assert (row["live"], row["node_id"]) == (True, other)
    assert len(starter.terminals.sessions) == 1  # the same session, not restarted
    assert (await api.ok("session.launch", name="sh", node_id=other))["started"] is False

    assert (await api.fail("session.move", name="bot", node_id=leaf))["code"] == "CONFLICT"
    assert (await api.fail("session.move", name="sh", node_id="gone"))["code"] == "NOT_FOUND"
    assert (await api.fail("session.move", name="nobody", node_id=leaf))["code"] == "NOT_FOUND"
    assert (await api.fail("session.move", name="sh"))["field"] == "node_id"


# --- sessions and terminals ----------------------------------------------------------------------


async def test_launch_and_stop_push_events_and_a_second_launch_elsewhere_is_refused(api):
    layouts = await api.ok("layouts.get")
    leaf = layouts["tabs"][0]["root"]["id"]
    other = (await api.ok("layouts.apply", op="split", leaf_id=leaf, direction="column"))["leaf_id"]
    launched = await api.ok("session.launch", name="sh", node_id=leaf, rows=30, cols=100)
    assert launched == {
        "agent_id": "id-sh",
        "name": "sh",
        "mode": "terminal",
        "node_id": leaf,
        "started": True,
    }
    event = await api.event("AgentLaunched", agent_id="id-sh")
    assert (event["node_id"], event["mode"]) == (leaf, "terminal")
    again = await api.ok("session.launch", name="sh", node_id=leaf)
    assert again["started"] is False
    refused = await api.fail("session.launch", name="sh", node_id=other)
    assert refused == {
        "code": "AGENT_ALREADY_RUNNING",
        "message": refused["message"],
        "agent_id": "id-sh",
        "node_id": leaf,
    }
    assert (await api.fail("session.launch", name="sh", node_id="no-cell"))["code"] == "NOT_FOUND"
    bad_mode = await api.fail("session.launch", name="bot", mode="chat")
    assert bad_mode["code"] == "INVALID"
    assert bad_mode["message"].startswith("mode:")

    assert await api.ok("session.stop", name="sh") == {"stopped": True}
    stopped = await api.event("AgentStopped", agent_id="id-sh")
    assert stopped["reason"] == "stopped from the UI"
    exited = await api.event("TerminalExit", agent_id="id-sh")
    assert exited["agent_name"] == "sh"
    assert await api.ok("session.stop", name="sh") == {"stopped": False}
    assert (await api.fail("session.stop", name="ghost"))["code"] == "NOT_FOUND"


async def test_terminal_output_arrives_in_binary_frames_and_is_replayed_on_reattach(api, starter):
    await api.ok("session.launch", name="sh", rows=30, cols=100)
    view = await api.ok("terminal.attach", name="sh")
    assert (view["agent_id"], view["scrollback"]) == ("id-sh", "")
    attach_id = view["attach_id"]
    assert await api.ok("terminal.write", name="sh", data="echo SENTINEL-1\r") is None
    await api.until(lambda: "SENTINEL-1" in api.output(attach_id))
    assert api.output(attach_id) == "echo SENTINEL-1\r\n"

    assert await api.ok("terminal.resize", name="sh", rows=40, cols=120) is None
    assert starter.terminals.sessions[-1].size == (40, 120)
    assert (await api.fail("terminal.resize", name="sh", rows=0, cols=120))["code"] == "INVALID"
    assert (await api.fail("terminal.resize", name="sh", cols=120))["field"] == "rows"

    assert await api.ok("terminal.detach", attach_id=attach_id) == {"detached": attach_id}
    assert (await api.fail("terminal.detach", attach_id=attach_id))["code"] == "NOT_FOUND"
    again = await api.ok("terminal.attach", name="sh")
    assert again["attach_id"] != attach_id
    assert "SENTINEL-1" in again["scrollback"]

    assert (await api.fail("terminal.write", name="sh"))["field"] == "data"
    assert (await api.fail("terminal.attach", name="bot"))["code"] == "CONFLICT"
    assert (await api.fail("terminal.write", name="bot", data="x"))["code"] == "CONFLICT"


async def test_keystrokes_reach_the_terminal_in_order(api, starter):
    await api.ok("session.launch", name="sh")
    attach_id = (await api.ok("terminal.attach", name="sh"))["attach_id"]
    for ch in "abcdefghij":
        await api.send("terminal.write", name="sh", data=ch)
    await api.ok("terminal.write", name="sh", data="END\r")
    await api.until(lambda: "END" in api.output(attach_id))
    assert starter.terminals.sessions[-1].written == [*"abcdefghij", "END\r"]
    assert api.output(attach_id).startswith("abcdefghijEND")


# --- chat, board, logs, problems ------------------------------------------------------------------


async def test_chat_send_goes_through_the_orchestrator_and_pushes_the_turn(api):
    assert await api.ok("chat.send", name="bot", text="hi") == {"reply": "echo: hi"}
    text = await api.event("ChatEvent", agent_id="id-bot", type="text")
    assert (text["agent_name"], text["text"]) == ("bot", "echo: hi")
    final = await api.event("ChatEvent", agent_id="id-bot", type="final")
    assert final["text"] == "echo: hi"
    processed = await api.event("OrchestratorRequestProcessed", action="agent.message")
    assert (processed["source"], processed["target"], processed["ok"]) == ("ui", "bot", True)
    await api.event("AgentReplied", agent_id="id-bot")

    log = await api.ok("delegations.recent", limit=5)
    assert (log[-1]["source"], log[-1]["action"], log[-1]["reply"]) == (
        "ui",
        "agent.message",
        "echo: hi",
    )
    assert (await api.fail("delegations.recent", limit=0))["code"] == "INVALID"
    assert (await api.fail("chat.send", name="bot", text="   "))["field"] == "text"
    await api.ok("session.launch", name="sh")
    assert (await api.fail("chat.send", name="sh", text="hi"))["code"] == "INVALID"


async def test_chat_history_replays_the_turns_with_the_seq_of_the_live_events(api, runtime):
    assert await api.ok("chat.history", name="bot") == {"entries": [], "seq": 0, "queued": 0}
    await api.ok("chat.send", name="bot", text="hi")
    # An ask from elsewhere (a request file) shows in the same chat, with its requester.
    runtime.services.agents.save(Agent(id="id-main", name="main", profile="shell"))
    await runtime.orchestrator.dispatch(
        AskAgent(target="bot", task="from main"), Source.FILE, "id-main"
    )
    started = await api.event("ChatEvent", agent_id="id-bot", type="turn_started", prompt="hi")
    assert started["requester_id"] is None
    final = await api.event("ChatEvent", agent_id="id-bot", type="final", text="echo: from main")
    history = await api.ok("chat.history", name="bot")
    assert [(e["type"], e.get("prompt") or e.get("text")) for e in history["entries"]] == [
        ("turn_started", "hi"),
        ("text", "echo: hi"),
        ("final", "echo: hi"),
        ("turn_started", "from main"),
        ("text", "echo: from main"),
        ("final", "echo: from main"),
    ]
    assert history["entries"][3]["requester_id"] == "id-main"
    seqs = [e["seq"] for e in history["entries"]]
    assert seqs == sorted(seqs)
    assert seqs[-1] == final["seq"] == history["seq"]
    await api.event("AgentTurnStarted", agent_id="id-bot", requester_id="id-main")
    assert (await api.fail("chat.history", name="ghost"))["code"] == "NOT_FOUND"


async def test_chat_interrupt_stops_the_running_turn(api, starter):
    await api.ok("session.launch", name="bot")
    session = starter.structured[-1]
    session.gate = asyncio.Event()  # the turn waits until the test says so
    assert await api.ok("chat.interrupt", name="bot") == {"interrupted": False}
    asked = await api.send("chat.send", name="bot", text="long task")
    async with asyncio.timeout(5):
        await session.turn_started.wait()
    assert await api.ok("chat.interrupt", name="bot") == {"interrupted": True}
    # The UI stopped it: its chat.send says so instead of failing with AGENT_FAILED.
    assert await api.result(asked) == {"reply": None, "interrupted": True}
    assert session.interrupts == 1
    assert (await api.fail("chat.interrupt", name="ghost"))["code"] == "NOT_FOUND"
    session.gate = None
    assert await api.ok("chat.send", name="bot", text="next") == {"reply": "echo: next"}


async def test_only_the_turn_running_when_interrupted_is_reported_interrupted(api, starter):
    await api.ok("session.launch", name="bot")
    session = starter.structured[-1]
    session.gate = asyncio.Event()
    running = await api.send("chat.send", name="bot", text="long task")
    async with asyncio.timeout(5):
        await session.turn_started.wait()
    queued = await api.send("chat.send", name="bot", text="queued")
    await api.event("AgentQueueChanged", agent_id="id-bot", queued=2)
    assert await api.ok("chat.interrupt", name="bot") == {"interrupted": True}
    assert await api.result(running) == {"reply": None, "interrupted": True}
    # The one waiting behind it was not interrupted: its own failure is still a failure.
    await api.event("ChatEvent", agent_id="id-bot", type="turn_started", prompt="queued")
    session.fail_next = "scripted failure"
    session.gate.set()
    reply = await api.reply(queued)
    assert reply["ok"] is False
    assert reply["error"]["code"] == "AGENT_FAILED"


async def test_the_board_carries_usage_serving_chain_and_rate_limit(api, runtime, starter):
    runtime.services.agents.save(Agent(id="id-dev", name="dev", profile="claude"))
    await api.ok("session.launch", name="bot")
    bot = starter.structured[-1]
    bot.usage = Usage(input_tokens=100, output_tokens=20, cost_usd=0.5)
    assert await api.ok("chat.send", name="bot", text="hi") == {"reply": "echo: hi"}
    bot.gate = asyncio.Event()
    bot.turn_started.clear()
    # bot serves an ask of dev's: the board shows that hop and its chain.
    held = asyncio.create_task(runtime.ask("bot", "hold on", requester_id="id-dev"))
    await bot.turn_started.wait()
    board = await api.ok("workstate.get")
    rows = {row["name"]: row for row in board["agents"]}
    assert rows["bot"]["usage"] == {**bot.usage.to_json(), "turns": 1}
    assert rows["dev"]["usage"] is None
    assert rows["bot"]["serving"]["depth"] == 1
    assert rows["bot"]["serving"]["requester"] == "dev"
    assert rows["bot"]["serving"]["deadline_at_ms"] > runtime.services.clock.now_ms()
    assert rows["bot"]["serving"]["started_at_ms"] <= runtime.services.clock.now_ms()
    [chain] = board["chains"]
    assert (chain["root_requester"], chain["root_target"], chain["agents"]) == (
        "dev",
        "bot",
        ["bot"],
    )
    assert chain["chain_id"] == rows["bot"]["serving"]["chain_id"]
    assert rows["bot"]["hibernated"] is False and rows["bot"]["rate_limit"] is None
    bot.gate.set()
    await held
    # A rate-limit refusal: the row is blocked with the reason, until a turn succeeds.
    bot.rate_limit_next = RateLimit("usage limit reached", 1_900_000_000_000)
    error = await api.fail("chat.send", name="bot", text="more")
    assert (error["code"], error["resets_at_ms"]) == ("RATE_LIMITED", "1900000000000")
    row = {r["name"]: r for r in (await api.ok("workstate.get"))["agents"]}["bot"]
    assert row["status"] == "blocked"
    assert row["rate_limit"] == {
        "reason": "bot is rate-limited: usage limit reached",
        "resets_at_ms": 1_900_000_000_000,
    }
    await api.ok("chat.send", name="bot", text="again")
    row = {r["name"]: r for r in (await api.ok("workstate.get"))["agents"]}["bot"]
    assert (row["status"], row["rate_limit"]) == ("idle", None)
    rows = [r for r in await api.ok("delegations.recent") if r["action"] == "agent.message"]
    assert rows[0]["usage"]["total_tokens"] == 120 and rows[0]["depth"] == 1
    assert [r["code"] for r in rows] == [None, "RATE_LIMITED", None]  # the held ask was direct


@pytest.mark.parametrize("clock", ["fake"], indirect=True)
async def test_a_hibernated_agent_is_listed_so_and_start_resumes_its_conversation(
    api, runtime, starter, clock
):
    runtime.services.policy.save(Policy(hibernate_after_s=1))
    await api.ok("session.launch", name="bot", mode="structured")
    await api.ok("chat.send", name="bot", text="hi")
    conversation = starter.structured[-1].conversation_id
    clock.advance(999)
    assert await runtime.core.hibernation.check() == []  # not idle long enough yet
    clock.advance(1)
    assert await runtime.core.hibernation.check() == ["bot"]
    rows = {a["name"]: a for a in await api.ok("agents.list")}
    assert (rows["bot"]["live"], rows["bot"]["hibernated"]) == (False, True)
    await api.ok("session.launch", name="bot", mode="structured")  # the cell's Start
    assert starter.starts[-1] == ("bot", "structured", conversation)
    rows = {a["name"]: a for a in await api.ok("agents.list")}
    assert (rows["bot"]["live"], rows["bot"]["hibernated"]) == (True, False)


async def test_policy_get_set_and_asks_from_in_the_agent_editor(api, runtime):
    got = await api.ok("policy.get")
    assert got == {"policy": Policy().to_json(), "problem": None, "version": ""}  # no file
    changed = await api.ok("policy.set", policy={"max_depth": 2, "chain_token_budget": 5000})
    assert (changed["policy"]["max_depth"], changed["policy"]["chain_token_budget"]) == (2, 5000)
    on_disk = json.loads(runtime.services.paths.policy.read_text(encoding="utf-8"))
    assert (on_disk["max_depth"], on_disk["hibernate_after_s"]) == (2, 900.0)
    error = await api.fail("policy.set", policy={"max_depth": 0})
    assert error["code"] == "INVALID" and "'max_depth'" in error["message"]
    assert (await api.fail("policy.set"))["code"] == "MISSING_FIELD"
    assert (await api.fail("policy.set", policy={"depth": 2}))["code"] == "INVALID"
    assert (await api.ok("policy.get"))["policy"]["max_depth"] == 2  # the refusals changed nothing
    # Who may ask an agent: the editor's field, kept in its front matter.
    assert (await api.ok("agents.get", name="bot"))["asks_from"] == ["*"]
    row = await api.ok("agents.update", name="bot", asks_from=["sh"])
    assert row["asks_from"] == ["sh"]
    assert "asks_from: [sh]" in runtime.services.paths.agent_file("bot").read_text()
    error = await api.fail("agents.update", name="bot", asks_from=["../x"])
    assert error["code"] == "INVALID" and "asks_from" in error["message"]
    created = await api.ok("agents.create", name="rev", profile="claude", asks_from=["bot", "*"])
    assert created["asks_from"] == ["*"]


async def test_a_policy_file_that_does_not_parse_is_set_aside_and_said(api, runtime):
    runtime.services.paths.policy.write_text('{"max_depth": "deep"}', encoding="utf-8")
    got = await api.ok("policy.get")
    assert got["policy"] == Policy().to_json()
    assert "max_depth" in got["problem"]
    problems = await api.ok("problems.list")
    assert [p["code"] for p in problems] == ["CORRUPT_FILE"]
    assert not runtime.services.paths.policy.exists()  # moved aside, bytes kept


async def test_workstate_board_and_problems(api, runtime):
    await api.ok("session.launch", name="bot")
    board = {row["name"]: row for row in (await api.ok("workstate.get"))["agents"]}
    assert (board["bot"]["live"], board["bot"]["mode"], board["bot"]["status"]) == (
        True,
        "structured",
        "idle",
    )
    assert board["sh"]["live"] is False
    assert await api.ok("problems.list") == []
    broken = runtime.services.paths.agent_file("broken")
    broken.write_text("---\nid: x\n---\nno profile\n", encoding="utf-8")
    names = {a["name"] for a in await api.ok("agents.list")}
    assert "broken" not in names
    problems = await api.ok("problems.list")
    assert [(p["code"], p["path"]) for p in problems] == [("CORRUPT_FILE", str(broken))]
    assert "profile" in problems[0]["reason"]


# --- several clients -----------------------------------------------------------------------------


async def test_every_client_gets_the_events(ui, api):
    other = await connect(ui)
    try:
        await api.ok("session.launch", name="bot")
        for client in (api, other):
            assert (await client.event("AgentLaunched", agent_id="id-bot"))["mode"] == "structured"
    finally:
        await other.ws.close()


async def test_a_client_that_does_not_read_does_not_hold_back_another(runtime, dist, starter):
    limit = 256 * 1024
    ui = await serve(runtime, dist, output_limit_bytes=limit)
    server, _ = ui
    stalled, reader = await connect(ui), await connect(ui)
    try:
        await reader.ok("session.launch", name="sh")
        stalled_view = await stalled.ok("terminal.attach", name="sh")
        attach_id = (await reader.ok("terminal.attach", name="sh"))["attach_id"]
        terminal = starter.terminals.sessions[-1]
        chunk = "x" * (64 * 1024 - 2) + "\r\n"
        sent = 0
        # From here on `stalled` reads nothing: its socket fills up, then its outbox bound.
        for i in range(512):  # up to 32 MiB, far more than the socket buffers hold
            terminal.emit(chunk)
            sent += len(chunk)
            await reader.until(lambda sent=sent: sum(len(f.text) for f in reader.frames) >= sent)
            if i > 16 and any(c.outbox.resyncs for c in server.clients):
                break
        terminal.emit("END-OF-FLOOD\r\n")
        await reader.until(lambda: reader.frames[-1].text.endswith("END-OF-FLOOD\r\n"))
        assert all(isinstance(f, Output) and f.attach_id == attach_id for f in reader.frames)
        behind = [c for c in server.clients if c.outbox.resyncs]
        assert len(behind) == 1
        assert behind[0].outbox.pending_output_bytes <= limit

        # Once it reads again, the stalled client is re-synced from the scrollback.
        await stalled.until(
            lambda: any(
                "END-OF-FLOOD" in f.text for f in stalled.frames if isinstance(f, Resync | Output)
            ),
            timeout=20,
        )
        assert any(isinstance(f, Resync) for f in stalled.frames)
        assert {f.attach_id for f in stalled.frames} == {stalled_view["attach_id"]}
    finally:
        await stalled.ws.close()
        await reader.ws.close()
        await ui[1].close()


async def test_closing_the_server_leaves_none_of_its_tasks(runtime, dist):
    before = asyncio.all_tasks()
    ui = await serve(runtime, dist)
    first, second = await connect(ui), await connect(ui)
    assert (await first.ok("project.info"))["version"]
    await second.ok("project.info")
    await ui[1].close()  # the clients still connected: the server shuts them
    assert [task for task in asyncio.all_tasks() - before if not task.done()] == []


# --- idea serve ----------------------------------------------------------------------------------


async def test_idea_serve_prints_the_url_serves_the_api_and_closes_on_sigterm(tmp_path):
    with spawned([sys.executable, "-m", "idea", "serve", str(tmp_path)]) as proc:
        out = LineWatcher(proc.stdout)
        await asyncio.to_thread(out.wait_for, lambda line: "running" in line)
        urls = [line for line in out.lines if line.startswith("IdeA UI: ")]
        assert len(urls) == 1
        url = URL(urls[0].removeprefix("IdeA UI: ").strip())
        assert (url.scheme, url.host, url.path) == ("http", "127.0.0.1", "/")
        assert len(url.query["token"]) >= 43
        origin = f"http://127.0.0.1:{url.port}"
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
            async with http.get(url.with_query(token="wrong")) as refused:
                assert refused.status == 403
            async with http.get(url) as page:
                assert page.status == 200
            ws = await http.ws_connect(url.with_path("/ws").with_query({}), origin=origin)
            api = Api(ws)
            info = await api.ok("project.info")
            assert info["root"] == str(tmp_path.resolve())
            proc.send_signal(signal.SIGTERM)
            closing = await ws.receive(timeout=10)
            assert closing.type in (WSMsgType.CLOSE, WSMsgType.CLOSED, WSMsgType.CLOSING)
        assert await asyncio.to_thread(proc.wait, 10) == 0
        await asyncio.to_thread(out.wait_for, lambda line: line.strip() == "closed")


# --- opening another project ---------------------------------------------------------------------


async def test_the_project_open_at_start_is_the_first_recent_one(api, runtime):
    rows = await api.ok("project.recent")
    root = str(runtime.services.paths.root)
    assert rows[0]["root"] == root
    assert (rows[0]["current"], rows[0]["exists"]) == (True, True)


async def test_opening_another_folder_switches_every_client_and_closes_the_old_project(
    ui, api, runtime, tmp_path
):
    await api.ok("session.launch", name="sh")
    old_terminal = runtime.sessions.terminal_session("id-sh")
    attach_id = (await api.ok("terminal.attach", name="sh"))["attach_id"]
    other = await connect(ui)
    try:
        folder = tmp_path / "second project"
        folder.mkdir()
        opened = await api.ok("project.open", path=str(folder))
        assert opened["root"] == str(folder.resolve())
        for client in (api, other):
            await client.event("ProjectOpened", root=str(folder.resolve()))
        info = await api.ok("project.info")
        assert (info["id"], info["name"]) == (opened["id"], "second project")
        assert await api.ok("agents.list") == []
        # The old project is closed: its sessions are stopped; this connection's view is gone.
        assert not runtime.sessions.live_agents()
        assert old_terminal is not None and old_terminal.exit_code is not None
        assert (await api.fail("terminal.detach", attach_id=attach_id))["code"] == "NOT_FOUND"
        recent = await api.ok("project.recent")
        assert [r["root"] for r in recent[:2]] == [
            str(folder.resolve()),
            str(runtime.services.paths.root),
        ]
        assert [r["current"] for r in recent[:2]] == [True, False]
        # The new project's events reach the clients.
        await api.ok("agents.create", name="fresh", profile="shell")
        await other.event("AgentsChanged")
    finally:
        await other.ws.close()


async def test_opening_the_current_folder_changes_nothing(api, runtime):
    root = str(runtime.services.paths.root)
    assert (await api.ok("project.open", path=root))["root"] == root
    await api.ok("agents.create", name="after", profile="shell")
    await api.event("AgentsChanged")
    assert not any(e["event"] == "ProjectOpened" for e in api.events)


@pytest.mark.parametrize(
    ("path", "code", "says"),
    [
        (None, "MISSING_FIELD", "path"),
        ("relative/folder", "INVALID", "path: expected an absolute"),
        ("{tmp}/missing", "INVALID", "path: no such folder"),
        ("{tmp}/a-file", "INVALID", "path: not a folder"),
    ],
    ids=["missing", "relative", "absent", "file"],
)
async def test_a_bad_project_path_is_refused_and_the_project_stays(
    api, runtime, tmp_path, path, code, says
):
    (tmp_path / "a-file").write_text("x", encoding="utf-8")
    params = {} if path is None else {"path": path.format(tmp=tmp_path)}
    error = await api.fail("project.open", **params)
    assert error["code"] == code
    assert says in (error.get("field") or error["message"])
    assert (await api.ok("project.info"))["root"] == str(runtime.services.paths.root)


async def test_a_project_that_fails_to_open_leaves_the_current_one(runtime, dist, tmp_path):
    async def broken(root):
        raise CorruptFile(str(root / ".ideai" / "project.json"), "elsewhere", "not JSON")

    server, client = await serve(ProjectHost(runtime, broken), dist)
    api = await connect((server, client))
    try:
        (tmp_path / "other").mkdir()
        assert (await api.fail("project.open", path=str(tmp_path / "other")))["code"] == (
            "CORRUPT_FILE"
        )
        assert (await api.ok("project.info"))["root"] == str(runtime.services.paths.root)
        assert runtime.sessions is not None and not runtime._closed
    finally:
        await api.ws.close()
        await client.close()


async def test_a_tab_is_renamed_and_a_bad_title_names_the_field(api, runtime):
    tab = (await api.ok("layouts.get"))["tabs"][0]["id"]
    renamed = await api.ok("layouts.apply", op="rename_tab", tab_id=tab, title=" Backend ")
    assert renamed["layouts"]["tabs"][0]["title"] == "Backend"
    await api.event("LayoutChanged")
    assert runtime.layouts().tabs[0].title == "Backend"
    error = await api.fail("layouts.apply", op="rename_tab", tab_id=tab, title="   ")
    assert (error["code"], error["message"].split(":")[0]) == ("INVALID", "title")
    missing = await api.fail("layouts.apply", op="rename_tab", tab_id=tab)
    assert (missing["code"], missing["field"]) == ("MISSING_FIELD", "title")


async def test_the_chat_comes_back_after_the_app_restarts(api, host, starter, dist, runtime):
    await api.ok("chat.send", name="bot", text="remember me")
    root = runtime.services.paths.root
    await host.close()  # the app closes
    reopened = await open_fake(starter)(root)
    server, client = await serve(reopened, dist)
    fresh = await connect((server, client))
    try:
        history = await fresh.ok("chat.history", name="bot")
        assert [(e["type"], e.get("prompt") or e.get("text")) for e in history["entries"]] == [
            ("turn_started", "remember me"),
            ("text", "echo: remember me"),
            ("final", "echo: remember me"),
        ]
        assert (root / ".ideai" / "log" / "chats" / "id-bot.jsonl").is_file()
    finally:
        await fresh.ws.close()
        await client.close()
        await reopened.close()


async def test_hosts_list_offers_the_users_hosts_and_an_agent_keeps_its_host(api, runtime):
    hosts_file = runtime.services.hosts.path
    hosts_file.parent.mkdir(parents=True, exist_ok=True)
    entry = {"ssh": "dev@gpu.example:2222", "root": "/srv/checkout", "identity_file": None}
    hosts_file.write_text(json.dumps({"version": 1, "hosts": {"gpu": entry}}), encoding="utf-8")
    try:
        assert await api.ok("hosts.list") == [
            {"name": "gpu", "ssh": "dev@gpu.example:2222", "root": "/srv/checkout"}
        ]
        row = await api.ok("agents.create", name="far", profile="claude", host="gpu")
        assert (row["host"], row["link"]) == ("gpu", None)  # not connected before it starts
        assert "host: gpu" in runtime.services.paths.agent_file("far").read_text()
        moved = await api.ok("agents.update", name="far", host=None)
        assert moved["host"] is None
        error = await api.fail(
            "agents.create", name="w", profile="claude", host="gpu", workspace="worktree"
        )
        assert (error["code"], error["field"]) == ("INVALID", "host")
        hosts_file.write_text('{"version": 1, "hosts": {"gpu": {"ssh": 5}}}', encoding="utf-8")
        error = await api.fail("hosts.list")
        assert error["code"] == "INVALID" and "hosts.gpu" in error["message"]
    finally:
        hosts_file.unlink(missing_ok=True)
