"""The local UI server: ``ui/dist`` and a WebSocket API on ``127.0.0.1`` (protocol: ui/API.md).

Invariant: no request is served unless ``doors/guard.py`` lets it through (the per-launch token,
this server's ``Host``, its own ``Origin`` for the WebSocket); anything else gets 403. Each client
has one writer task draining its ``ClientOutbox``, so a slow client delays only itself; every bus
event, chat event and terminal exit is pushed to every client. All of it runs on the core loop.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import sys
from collections.abc import Awaitable, Coroutine
from pathlib import Path
from typing import Annotated, Any, TypedDict, cast

from aiohttp import WSMsgType, web

from idea.app.chat_transcripts import ChatTranscripts
from idea.app.project_host import ProjectHost
from idea.app.runtime import ProjectRuntime
from idea.app.terminals.outbox import DEFAULT_INTERVAL_S, DEFAULT_OUTPUT_LIMIT_BYTES, ClientOutbox
from idea.app.terminals.screens import TerminalScreens
from idea.app.terminals.streams import ClientStreams
from idea.app.ui.api import Doctor, Method, UiApi
from idea.app.ui.shapes import Intersect, Seq, SessionEntry, TurnStartedEntry
from idea.application.session_ports import Unsubscribe
from idea.application.tasks import TaskSet
from idea.domain.errors import CorruptFile, IdeaError, Internal, Invalid, Unavailable
from idea.domain.events import (
    AgentLaunched,
    AgentStopped,
    AgentTurnStarted,
    DomainEvent,
    StoreFileQuarantined,
)
from idea.domain.json_types import JsonObject, JsonValue, json_object
from idea.domain.session_events import SessionEvent
from idea.infrastructure.doors.guard import LoopbackGuard

log = logging.getLogger(__name__)

WS_PATH = "/ws"
TOO_SLOW = 4001  # close code: the client fell too far behind; it reconnects and reloads
CLOSE_TIMEOUT_S = 2.0
ID_MAX = 256  # characters of a request id
_NOT_BUILT = (
    "<!doctype html><meta charset=utf-8><title>IdeA</title>"
    "<p>IdeA UI not built: build <code>ui/</code> into <code>ui/dist</code>.</p>"
)


def default_dist() -> Path:
    """``ui/dist`` beside the package, or inside the PyInstaller bundle when frozen."""
    bundle = getattr(sys, "_MEIPASS", None)
    base = Path(bundle) if bundle else Path(__file__).resolve().parents[3]
    return base / "ui" / "dist"


class UiServer:
    def __init__(
        self,
        host: ProjectHost,
        *,
        port: int = 0,
        dist: Path | None = None,
        token: str | None = None,
        interval_s: float = DEFAULT_INTERVAL_S,
        output_limit_bytes: int = DEFAULT_OUTPUT_LIMIT_BYTES,
        doctor: Doctor | None = None,
        screens: TerminalScreens | None = None,
    ) -> None:
        self.guard = LoopbackGuard("UI server", token, origin_required=(WS_PATH,))
        self.token = self.guard.token
        self.dist = (dist or default_dist()).resolve()
        self.port = port
        self._host = host
        self.outbox_limits = (interval_s, output_limit_bytes)
        self.screens = screens  # None: views are sent scrollbacks, never screens
        self._transcripts = ChatTranscripts(chat_log=host.current.chat_log)
        self._api = UiApi(host, self.problems, self.chat_history, doctor)
        self._clients: set[Client] = set()
        self._tasks = TaskSet("UI server")
        self._watches: dict[str, list[Unsubscribe]] = {}
        self._seen_problems: list[CorruptFile] = []
        self._attach_ids = itertools.count(1)
        self._unsubscribe_bus: Unsubscribe | None = None
        self._unsubscribe_host: Unsubscribe | None = None
        self._runner: web.AppRunner | None = None

        self.app = web.Application(middlewares=[self.guard.middleware()])
        self.app.router.add_get(WS_PATH, self._websocket)
        self.app.router.add_get("/{path:.*}", self._static)
        self.app.on_startup.append(self._on_startup)
        self.app.on_shutdown.append(self._on_shutdown)

    @property
    def _runtime(self) -> ProjectRuntime:
        return self._host.current

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/?token={self.token}"

    @property
    def clients(self) -> tuple[Client, ...]:
        return tuple(self._clients)

    async def start(self) -> str:
        """Listen on ``127.0.0.1:<port>`` (0: any free port); the URL with the token.
        Raises ``Unavailable`` if the port cannot be bound."""
        self._runner = web.AppRunner(self.app, access_log=None, shutdown_timeout=CLOSE_TIMEOUT_S)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", self.port)
        try:
            await site.start()
        except OSError as exc:
            await self.close()
            raise Unavailable(f"UI server: cannot listen on 127.0.0.1:{self.port}: {exc}") from exc
        self.port = self._runner.addresses[0][1]
        return self.url

    async def close(self) -> None:
        """Close every client and stop listening; idempotent."""
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()

    def problems(self) -> list[CorruptFile]:
        """Files moved aside: the stores' reports, then those published since the server started."""
        seen = {p.quarantined_to for p in self._runtime.services.problems}
        extra = [p for p in self._seen_problems if p.quarantined_to not in seen]
        return [*self._runtime.services.problems, *extra]

    def chat_history(self, agent_id: str) -> JsonObject:
        """The current project's transcript of that agent (``ChatTranscripts.history``)."""
        return self._transcripts.history(agent_id)

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` in a task that closing the server cancels."""
        self._tasks.spawn(work)

    def next_attach_id(self) -> str:
        return f"t{next(self._attach_ids)}"

    # --- static files ----------------------------------------------------------------------------

    async def _static(self, request: web.Request) -> web.StreamResponse:
        relative = request.match_info.get("path", "")
        headers = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}
        index = relative in ("", "index.html")
        if index:
            headers["Cache-Control"] = "no-store"
        if "\0" in relative:  # no file has such a name (and Path would raise on it)
            raise web.HTTPNotFound(headers=headers)
        target = (self.dist / (relative if not index else "index.html")).resolve()
        response: web.StreamResponse
        if not target.is_relative_to(self.dist) or not target.is_file():
            if not index:
                raise web.HTTPNotFound(headers=headers)
            response = web.Response(text=_NOT_BUILT, content_type="text/html", headers=headers)
        else:
            response = web.FileResponse(target, headers=headers)
        if index:
            self.guard.remember(request, response)
        return response

    # --- WebSocket -------------------------------------------------------------------------------

    async def _websocket(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(heartbeat=30.0, compress=False, timeout=CLOSE_TIMEOUT_S)
        await ws.prepare(request)
        client = Client(self, ws, request)
        self._clients.add(client)
        writer = self._tasks.spawn(client.write_loop(), name="UI client writer")
        try:
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    self._on_text(client, msg.data)
                elif msg.type == WSMsgType.BINARY:
                    client.reply(None, error=Invalid("binary frames are not accepted"))
        finally:
            self._clients.discard(client)
            client.release()
            writer.cancel()
            await asyncio.gather(writer, return_exceptions=True)  # a failure: logged by _tasks
        return ws

    def _on_text(self, client: Client, data: str) -> None:
        request_id: JsonValue = None
        try:
            try:
                message = json.loads(data)
            except ValueError:
                raise Invalid("message: not JSON") from None
            except RecursionError:
                raise Invalid("message: nested too deeply") from None
            if not isinstance(message, dict):
                raise Invalid("message: expected an object {id, method, params}")
            request_id = message.get("id")
            if isinstance(request_id, bool) or not isinstance(request_id, int | str):
                request_id = None
                raise Invalid("id: expected a number or a string")
            if isinstance(request_id, str) and len(request_id) > ID_MAX:
                # Echoed in its reply: a huge one would make that reply bigger than the bound
                # of what may wait for a client, and the client would be closed as too slow.
                request_id = None
                raise Invalid(f"id: at most {ID_MAX} characters")
            method = self._api.method(message.get("method"))
            params = message.get("params", {})
            if params is None:
                params = {}
            if not isinstance(params, dict):
                raise Invalid("params: expected an object")
        except IdeaError as exc:
            client.reply(request_id, error=exc)
            return
        self._call(client, request_id, method, params)

    def _call(
        self, client: Client, request_id: JsonValue, method: Method, params: JsonObject
    ) -> None:
        """Synchronous methods answer at once, in arrival order (keystrokes stay in order)."""
        try:
            result = method(client, params)
        except Exception as exc:
            client.reply(request_id, error=_as_idea_error(exc))
            return
        if isinstance(result, Awaitable):
            # A long call (a chat turn) outlives a reload: its reply is dropped, its events not.
            self.spawn(self._finish(client, request_id, result))
        else:
            # The handlers' results are JSON by their declared types (``rows``, ``shapes``).
            client.reply(request_id, result=cast(JsonValue, result))

    async def _finish(
        self, client: Client, request_id: JsonValue, pending: Awaitable[JsonValue]
    ) -> None:
        try:
            result = await pending
        except Exception as exc:
            client.reply(request_id, error=_as_idea_error(exc))
        else:
            client.reply(request_id, result=result)

    # --- pushed events ---------------------------------------------------------------------------

    async def _on_startup(self, _: web.Application) -> None:
        self._follow(self._runtime)
        self._unsubscribe_host = self._host.on_switch(self._switched)

    async def _on_shutdown(self, _: web.Application) -> None:
        if self._unsubscribe_host is not None:
            self._unsubscribe_host()
            self._unsubscribe_host = None
        self._unfollow()
        self._tasks.cancel()
        await asyncio.gather(*(c.shut(1001, b"server closing") for c in list(self._clients)))
        await self._tasks.close()  # what was cancelled has ended: the server leaves no task

    def _follow(self, runtime: ProjectRuntime) -> None:
        self._unsubscribe_bus = runtime.bus.subscribe(self._on_event)
        for live in runtime.sessions.live_agents():
            self._watch(live.agent_id, live.agent_name)

    def _unfollow(self) -> None:
        if self._unsubscribe_bus is not None:
            self._unsubscribe_bus()
            self._unsubscribe_bus = None
        for agent_id in list(self._watches):
            self._unwatch(agent_id)

    def _switched(self, runtime: ProjectRuntime) -> None:
        """Another project is current: clients drop their views of the old one and reload."""
        self._unfollow()
        self._seen_problems.clear()
        self._transcripts = ChatTranscripts(chat_log=runtime.chat_log)
        for client in list(self._clients):
            client.detach_all()
        self._follow(runtime)
        info = runtime.services.info
        root = str(runtime.services.paths.root)
        opened: ProjectOpened = {"id": info.id, "name": info.name, "root": root}
        self.broadcast("ProjectOpened", json_object(opened))

    def _on_event(self, event: DomainEvent) -> None:
        if isinstance(event, AgentLaunched):
            self._watch(event.agent_id, event.agent_name)
        elif isinstance(event, StoreFileQuarantined):
            self._seen_problems.append(CorruptFile(event.path, event.quarantined_to, event.reason))
        self.broadcast(type(event).__name__, event.to_json())
        if isinstance(event, AgentTurnStarted):
            started: TurnStartedEntry = {
                "type": "turn_started",
                "requester_id": event.requester_id,
                "prompt": event.prompt,
            }
            self._chat(event.agent_id, event.agent_name, json_object(started))
        if isinstance(event, AgentStopped):
            self._unwatch(event.agent_id)

    def broadcast(self, event: str, data: JsonObject) -> None:
        text = encode_message({"event": event, "data": data})
        for client in list(self._clients):
            client.push(text)

    def _watch(self, agent_id: str, agent_name: str) -> None:
        """Relay a live session's chat events and its terminal's exit to every client."""
        self._unwatch(agent_id)
        sessions = self._runtime.sessions
        watches: list[Unsubscribe] = []
        structured = sessions.structured_session(agent_id)
        if structured is not None:

            def chat(event: SessionEvent) -> None:
                self._chat(agent_id, agent_name, json_object(event.to_json()))

            watches.append(structured.subscribe(chat))
        terminal = sessions.terminal_session(agent_id)
        if terminal is not None:
            shown = terminal

            def exited(code: int) -> None:
                ended: TerminalExit = {
                    "agent_id": agent_id,
                    "agent_name": agent_name,
                    "exit_code": code,
                }
                for client in list(self._clients):
                    client.flush(shown)  # its last output before the news of its end
                self.broadcast("TerminalExit", json_object(ended))

            watches.append(terminal.on_exit(exited))
        self._watches[agent_id] = watches

    def _chat(self, agent_id: str, agent_name: str, entry: JsonObject) -> None:
        seq = self._transcripts.add(agent_id, entry)
        who: ChatEventWho = {"agent_id": agent_id, "agent_name": agent_name}
        self.broadcast("ChatEvent", {**json_object(who), **entry, "seq": seq})

    def _unwatch(self, agent_id: str) -> None:
        for unsubscribe in self._watches.pop(agent_id, []):
            unsubscribe()


class Client(ClientStreams):
    """One WebSocket connection: its streams, replies and closing."""

    def __init__(self, server: UiServer, ws: web.WebSocketResponse, request: web.Request) -> None:
        self._server = server
        self._ws = ws
        self._request = request
        interval_s, limit = server.outbox_limits
        outbox = ClientOutbox(interval_s=interval_s, output_limit_bytes=limit)
        sends = (ws.send_str, ws.send_bytes)
        super().__init__(outbox, sends, server.next_attach_id, self._too_slow, server.screens)

    def _too_slow(self) -> None:
        log.warning("UI client too slow: its queue of messages is full; closing it")
        self._server.spawn(self.shut(TOO_SLOW, b"client too slow; reconnect"))

    def reply(
        self, request_id: JsonValue, *, result: JsonValue = None, error: IdeaError | None = None
    ) -> None:
        message: JsonObject = {"id": request_id, "ok": error is None}
        if error is None:
            message["result"] = result
        else:
            message["error"] = {**error.to_dict()}
        self.push(encode_message(message))

    async def write_loop(self) -> None:
        try:
            await self.pump.run()
        except (ConnectionError, RuntimeError) as exc:
            log.debug("UI client gone: %s", exc)

    async def shut(self, code: int, reason: bytes) -> None:
        self.release()
        try:
            async with asyncio.timeout(CLOSE_TIMEOUT_S):
                await self._ws.close(code=code, message=reason)
        except (TimeoutError, ConnectionError, RuntimeError):
            # A client that reads nothing cannot take a close frame either: drop the connection.
            if self._request.transport is not None:
                self._request.transport.abort()


# The events this server pushes itself, beside the domain's (``EVENT_TYPES``): name -> payload.
class ChatEventWho(TypedDict):
    """``ChatEvent`` is this, the entry and its ``seq``."""

    agent_id: str
    agent_name: str


class ProjectOpened(TypedDict):
    id: str
    name: str
    root: str


class TerminalExit(TypedDict):
    agent_id: str
    agent_name: str
    exit_code: int


SERVER_EVENTS: dict[str, object] = {
    "ChatEvent": Annotated[SessionEntry, Intersect(ChatEventWho, Seq)],
    "ProjectOpened": ProjectOpened,
    "TerminalExit": TerminalExit,
}


def encode_message(message: JsonObject) -> str:
    """A text frame: compact JSON with non-ASCII characters as themselves. Escaped, "é" takes six
    characters, so a reply carrying a client's text would be up to six times its size, past the
    bound of what may wait for a client. Only text with no UTF-8 form (a lone surrogate) is sent
    escaped."""
    text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return json.dumps(message, separators=(",", ":"))
    return text


def _as_idea_error(exc: Exception) -> IdeaError:
    if isinstance(exc, IdeaError):
        return exc
    log.exception("UI method failed unexpectedly", exc_info=exc)
    return Internal(f"unexpected error: {exc}")
