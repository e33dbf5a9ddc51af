"""The MCP server for ONE connection (DESIGN.md §9.4), transport-agnostic: bytes in, bytes out.

Invariant: whatever a client sends, ``receive`` never raises and the connection keeps working;
every request with a valid id gets exactly one answer echoing that id (an invalid message gets
one error with id null), except a request the client cancelled, which gets none as the MCP spec
asks. ``initialize``, ``ping``, ``tools/list``, ``idea_list_agents`` and every error are
answered before ``receive`` returns, without a task; each other ``tools/call`` runs in its own
task, so a long ``idea_ask_agent`` never delays a ping, another call or the
``notifications/cancelled`` that withdraws or interrupts it.

``send`` receives exactly one JSON-RPC message per call as one UTF-8 line ending with ``"\\n"``
(the bytes of ``idea.endpoint.jsonrpc.line``); it queues them for the client and never blocks, so
a message is never cut in half, whatever is cancelled.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
from collections.abc import Callable
from typing import Any, Protocol, TypeGuard

import idea
from idea.application.caller import ProgressListener
from idea.application.tasks import TaskSet
from idea.domain.commands import AskAgent, Command
from idea.domain.errors import IdeaError
from idea.domain.json_types import JsonObject, JsonValue
from idea.domain.outcome import OrchestratorOutcome
from idea.endpoint import jsonrpc
from idea.infrastructure.clis.declaration import MCP_SERVER_NAME
from idea.infrastructure.doors.mcp.tools import (
    TOOLS,
    TOOLS_BY_NAME,
    ProgressReporter,
    Tool,
    data_result,
    error_result,
    outcome_result,
)

log = logging.getLogger(__name__)

SUPPORTED_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
LATEST_VERSION = SUPPORTED_VERSIONS[0]
STRUCTURED_CONTENT_SINCE = "2025-06-18"
PROGRESS_INTERVAL_S = 10.0
MAX_MESSAGE_BYTES = 16 * 1024 * 1024

INSTRUCTIONS = (
    "IdeA runs several coding agents on this project. idea_list_agents shows them; "
    "idea_ask_agent delegates a task to one and returns its answer; keep your own row on the "
    "board current with idea_workstate_set."
)

RequestId = str | int | float
Send = Callable[[bytes], None]


class McpBackend(Protocol):
    """What the MCP server needs from the project runtime (implemented over the orchestrator)."""

    async def dispatch(
        self, command: Command, requester_id: str, progress: ProgressListener | None
    ) -> OrchestratorOutcome:
        """Run ``command`` for ``requester_id`` (source MCP). Raises ``IdeaError``; cancelling
        the caller withdraws a queued ask or interrupts a running one."""
        ...

    def list_agents(self) -> list[JsonObject]:
        """Every agent: name, id, profile, mode, description, live, status. Raises ``IdeaError``."""
        ...


class _Reject(Exception):
    """The message gets a JSON-RPC error instead of a result."""

    def __init__(self, code: int, message: str, request_id: RequestId | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.request_id = request_id


def encode(message: dict[str, Any]) -> bytes:
    """One message, one compact line, as ``jsonrpc.line`` writes it, but NaN/Infinity are refused
    (``ValueError``: not JSON) and a string UTF-8 cannot carry (a lone surrogate the client sent
    as ``\\udxxx``) is escaped instead, so such an id is still echoed exactly."""
    return _json(message) + b"\n"


# Made once: ``json.dumps`` with options builds a new encoder on every call.
_to_text = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode
_to_ascii = json.JSONEncoder(separators=(",", ":"), allow_nan=False).encode


def _json(value: Any) -> bytes:
    try:
        return _to_text(value).encode("utf-8")
    except UnicodeEncodeError:
        return _to_ascii(value).encode("ascii")


def _no_constants(name: str) -> JsonValue:
    raise ValueError(f"{name} is not JSON")


_decoder = json.JSONDecoder(parse_constant=_no_constants)


def _decode(raw: bytes) -> JsonValue:
    try:
        text = raw.decode("utf-8")  # the C codec; "utf-8-sig" runs Python code on every call
        value: JsonValue = _decoder.decode(text[1:] if text.startswith("\ufeff") else text)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise _Reject(jsonrpc.PARSE_ERROR, f"parse error: {type(exc).__name__}") from None
    return value


def _valid_id(value: JsonValue) -> TypeGuard[RequestId]:
    if isinstance(value, bool):
        return False
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, str | int)


def _id_key(value: RequestId) -> tuple[bool, RequestId]:
    return (isinstance(value, str), value)  # "1" and 1 are different requests


class McpConnection:
    """The MCP session of one client connection; ``requester_id`` is the calling agent."""

    def __init__(
        self,
        backend: McpBackend,
        requester_id: str,
        send: Send,
        *,
        progress_interval_s: float = PROGRESS_INTERVAL_S,
        max_message_bytes: int = MAX_MESSAGE_BYTES,
    ) -> None:
        self._backend = backend
        self._requester_id = requester_id
        self._send = send
        self._progress_interval_s = progress_interval_s
        self._max_message_bytes = max_message_bytes
        self._version = LATEST_VERSION
        # The calls in flight, owned by the TaskSet; ``_calls`` finds one by its request id.
        self._tasks = TaskSet(f"MCP server for {requester_id}")
        self._calls: dict[tuple[bool, RequestId], asyncio.Task[None]] = {}
        # The last agent list and its ``result`` as JSON: asked again unchanged, it is not encoded
        # again (agents change seldom; models list them often).
        self._agents_result: tuple[list[JsonObject], bool, bytes] | None = None
        self._closed = False
        self._broken = False

    @property
    def pending_requests(self) -> int:
        """Tool calls still in flight."""
        return len(self._calls)

    @property
    def protocol_version(self) -> str:
        return self._version

    def receive(self, raw: bytes) -> None:
        """Process one incoming message (one line, with or without its newline): answered at
        once, or by a task this starts. Never raises."""
        if self._closed:
            return
        try:
            self._handle(raw)
        except Exception:  # pragma: no cover - _handle answers every failure itself
            log.exception("mcp: message from %s dropped", self._requester_id)

    def _handle(self, raw: bytes) -> None:
        request_id: RequestId | None = None
        try:
            if len(raw) > self._max_message_bytes:
                raise _Reject(
                    jsonrpc.INVALID_REQUEST,
                    f"message of {len(raw)} bytes exceeds the limit of {self._max_message_bytes}",
                )
            if not raw or raw.isspace():
                return  # a blank line is no message
            message = _decode(raw)
            parsed = self._parse(message)
            if parsed is None:
                return
            method, params, request_id = parsed
            if request_id is None:
                self._notification(method, params)
            else:
                self._request(request_id, method, params)
        except _Reject as reject:
            self._emit(jsonrpc.error(reject.request_id, reject.code, reject.message))
        except Exception:
            log.exception("mcp: unexpected failure handling a message from %s", self._requester_id)
            self._emit(jsonrpc.error(request_id, jsonrpc.INTERNAL_ERROR, "internal error"))

    async def close(self) -> None:
        """Cancel every call in flight (queued asks are withdrawn, running ones interrupted)."""
        self._closed = True
        await self._tasks.close()

    # -- parsing ---------------------------------------------------------------------------

    @staticmethod
    def _parse(message: JsonValue) -> tuple[str, JsonObject, RequestId | None] | None:
        """(method, params, id or None for a notification); None for a message to ignore."""
        if isinstance(message, list):
            raise _Reject(jsonrpc.INVALID_REQUEST, "batches are not supported: one message a line")
        if not isinstance(message, dict):
            raise _Reject(jsonrpc.INVALID_REQUEST, "a JSON-RPC message must be an object")
        if "method" not in message and ("result" in message or "error" in message):
            return None  # a response; this server never sends requests
        request_id: RequestId | None = None
        if "id" in message:
            raw_id = message["id"]
            if not _valid_id(raw_id):
                raise _Reject(jsonrpc.INVALID_REQUEST, "id must be a string or a number")
            request_id = raw_id
        if message.get("jsonrpc") != "2.0":
            raise _Reject(jsonrpc.INVALID_REQUEST, 'jsonrpc must be "2.0"', request_id)
        method = message.get("method")
        if not isinstance(method, str):
            raise _Reject(jsonrpc.INVALID_REQUEST, "method must be a string", request_id)
        params = message.get("params")
        if params is None:
            params = {}
        if not isinstance(params, dict):
            if request_id is None:
                return None  # a notification is never answered
            raise _Reject(jsonrpc.INVALID_PARAMS, "params must be an object", request_id)
        return method, params, request_id

    # -- notifications and requests --------------------------------------------------------

    def _notification(self, method: str, params: JsonObject) -> None:
        if method != "notifications/cancelled":
            return  # notifications/initialized and anything else: nothing to do
        target = params.get("requestId")
        if _valid_id(target):
            task = self._calls.get(_id_key(target))
            if task is not None:
                task.cancel()

    def _request(self, request_id: RequestId, method: str, params: JsonObject) -> None:
        if method == "ping":
            answer: JsonObject = {}
        elif method == "tools/call":
            inline = self._start_call(request_id, params)
            if inline is not None:
                self._write(inline)
            return  # else answered by its own task
        elif method == "initialize":
            answer = self._initialize(request_id, params)
        elif method == "tools/list":
            answer = {"tools": [tool.definition() for tool in TOOLS]}
        else:
            raise _Reject(jsonrpc.METHOD_NOT_FOUND, f"method not found: {method}", request_id)
        self._emit(jsonrpc.result(request_id, answer))

    def _initialize(self, request_id: RequestId, params: JsonObject) -> JsonObject:
        asked = params.get("protocolVersion", LATEST_VERSION)
        if not isinstance(asked, str):
            raise _Reject(jsonrpc.INVALID_PARAMS, "protocolVersion must be a string", request_id)
        self._version = asked if asked in SUPPORTED_VERSIONS else LATEST_VERSION
        return {
            "protocolVersion": self._version,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": MCP_SERVER_NAME, "version": idea.__version__},
            "instructions": INSTRUCTIONS,
        }

    def _start_call(self, request_id: RequestId, params: JsonObject) -> bytes | None:
        """Start a tool call in its own task, or return the answer of one answered at once."""
        name = params.get("name")
        if not isinstance(name, str):
            raise _Reject(jsonrpc.INVALID_PARAMS, "params.name must be a string", request_id)
        tool = TOOLS_BY_NAME.get(name)
        if tool is None:
            known = ", ".join(TOOLS_BY_NAME)
            raise _Reject(
                jsonrpc.INVALID_PARAMS, f"Unknown tool: {name} (tools: {known})", request_id
            )
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise _Reject(jsonrpc.INVALID_PARAMS, "params.arguments must be an object", request_id)
        meta = params.get("_meta")
        if meta is not None and not isinstance(meta, dict):
            raise _Reject(jsonrpc.INVALID_PARAMS, "params._meta must be an object", request_id)
        raw_token = meta.get("progressToken") if meta is not None else None
        token: RequestId | None = None
        if _valid_id(raw_token):
            token = raw_token
        elif raw_token is not None:
            raise _Reject(
                jsonrpc.INVALID_PARAMS,
                "_meta.progressToken must be a string or a number",
                request_id,
            )
        key = _id_key(request_id)
        if key in self._calls:
            raise _Reject(
                jsonrpc.INVALID_REQUEST,
                "this id is already used by a request in flight",
                request_id,
            )
        if tool.action is None:
            # Nothing to wait for and nothing to cancel: answered at once, like ping.
            return self._list_agents(request_id, tool, arguments)
        task = self._tasks.spawn(
            self._call(request_id, tool, arguments, token),
            name=f"mcp {self._requester_id} {tool.name} {request_id!r}",
        )
        self._calls[key] = task
        # A callback, not a ``finally``: a task cancelled before its first step never runs its body.
        task.add_done_callback(lambda done: self._forget(key, done))
        return None

    def _list_agents(self, request_id: RequestId, tool: Tool, arguments: JsonObject) -> bytes:
        try:
            tool.check_arguments(arguments)
            agents = self._backend.list_agents()
        except IdeaError as exc:
            return encode(jsonrpc.result(request_id, error_result(exc)))
        structured = self._version >= STRUCTURED_CONTENT_SINCE
        cached = self._agents_result
        if (
            cached is None
            or cached[1] != structured
            or (cached[0] is not agents and cached[0] != agents)
        ):
            listed: list[JsonValue] = [*agents]
            result = _json(data_result({"agents": listed}, structured))
            cached = self._agents_result = (agents, structured, result)
        # Bytes for bytes what ``encode(jsonrpc.result(request_id, result))`` writes.
        return b"".join(
            (b'{"jsonrpc":"2.0","id":', _json(request_id), b',"result":', cached[2], b"}\n")
        )

    def _forget(self, key: tuple[bool, RequestId], task: asyncio.Task[None]) -> None:
        if self._calls.get(key) is task:
            del self._calls[key]

    async def _call(
        self,
        request_id: RequestId,
        tool: Tool,
        arguments: JsonObject,
        token: RequestId | None,
    ) -> None:
        """Answer one tool call; a cancelled call is not answered."""
        try:
            try:
                answer = await self._run_tool(tool, arguments, token)
            except IdeaError as exc:
                answer = error_result(exc)
            message = jsonrpc.result(request_id, answer)
            try:
                data = encode(message)
            except (TypeError, ValueError):  # the backend returned something JSON cannot carry
                log.exception("mcp: %s returned a result that is not JSON", tool.name)
                data = encode(jsonrpc.error(request_id, jsonrpc.INTERNAL_ERROR, "internal error"))
            self._write(data)
        except Exception:  # a cancellation (BaseException) passes: a cancelled call is not answered
            log.exception("mcp: %s failed unexpectedly", tool.name)
            self._emit(jsonrpc.error(request_id, jsonrpc.INTERNAL_ERROR, f"{tool.name} failed"))

    async def _run_tool(
        self, tool: Tool, arguments: JsonObject, token: RequestId | None
    ) -> JsonObject:
        structured = self._version >= STRUCTURED_CONTENT_SINCE
        command = tool.command(arguments)
        if token is None or not isinstance(command, AskAgent):
            outcome = await self._backend.dispatch(command, self._requester_id, None)
            return outcome_result(tool, outcome, structured)
        reporter = ProgressReporter(self._emit, token, command.target, self._progress_interval_s)
        try:
            outcome = await self._backend.dispatch(command, self._requester_id, reporter.update)
        finally:
            await reporter.stop()  # progress must stop before the result is sent
        return outcome_result(tool, outcome, structured)

    # -- output ----------------------------------------------------------------------------

    def _emit(self, message: dict[str, Any]) -> None:
        self._write(encode(message))

    def _write(self, data: bytes) -> None:
        if self._broken:
            return
        try:
            self._send(data)
        except Exception:
            # The transport is gone; the listener will close this connection.
            log.warning("mcp: cannot write to %s's connection", self._requester_id, exc_info=True)
            self._broken = True
