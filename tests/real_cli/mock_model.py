"""A scripted model server on loopback that speaks just enough of three provider APIs.

The real ``claude``, ``codex`` and ``gemini`` CLIs are pointed at it (see ``clis.py``):

* Anthropic Messages: ``POST /v1/messages`` (SSE when ``stream`` is true, JSON otherwise),
  ``POST /v1/messages/count_tokens`` and ``GET /v1/models``;
* OpenAI Responses (Codex, ``wire_api = "responses"``): ``POST /v1/responses`` (SSE) and
  ``GET /v1/models``;
* Gemini: ``POST /v1beta/models/<m>:streamGenerateContent?alt=sse``, ``:generateContent``
  and ``:countTokens``;
* OpenAI Chat Completions (Qwen Code, OpenCode): ``POST /v1/chat/completions`` (SSE chunks
  ending with ``data: [DONE]`` when ``stream`` is true, JSON otherwise), tool calls as
  ``tool_calls`` of type ``function``.

A test scripts the replies. Every *turn request* (a generation request that offers tools, i.e.
the agent loop asking the model what to do next) consumes the next scripted reply: either a
final text (a ``str``) or a ``ToolCall``. After a ``ToolCall`` the CLI runs the tool and sends
the result back in a new turn request, which consumes the next reply (usually a text).
Auxiliary generation requests (Claude Code's title/topic helpers, Gemini's "next speaker"
check and model routing, ...) do not consume the script: they are answered with a neutral canned
reply (a schema-shaped JSON object when the request asks for JSON).

Three more kinds of reply exist: ``Hold()`` opens the SSE stream and then sends nothing until
the client disconnects (an interrupted turn) or the mock stops, bounded; ``Fail(message)``
answers HTTP 400 ``invalid_request_error`` in the provider's shape, which ends the turn with an
error (no CLI treats it as transient); ``RateLimited(resets_in_s)`` answers HTTP 429 in the shape
each CLI gives up on at once (see ``RateLimited``). A *reply function*
(``MockModel(respond=...)``) computes the reply of every turn request the script does not cover;
``echo_reply`` answers ``echo: <prompt>``, holds prompts containing ``SLOW``, fails prompts
containing ``FAIL`` and refuses prompts containing ``RATELIMIT`` (the behaviour
``tests/contracts/agent_session_contract.py`` expects of a CLI).

Every answered turn request reports its own known token counts, different for each request
(``request_tokens``; ``Request.tokens`` records them): the n-th turn request of the mock uses
``Tokens(100 * n, 10 * n, 20 * n, 5 * n)`` (input, output, cache read, cache write): n times the
first's, so that a CLI's cost, linear in the tokens, is n times the first's too;
expressed as each API does (Anthropic apart; OpenAI and Gemini count the cached tokens inside the
input and have no cache write). Auxiliary requests report zero.

Every request is recorded (``mock.requests``) so a test can check what the CLI sent: the tools
it offered (``tools_offered``), the tool results (``last_tool_result``), the system prompt
(``system_prompt``), the user text (``last_user_text``) and the prompt as typed
(``last_prompt``, without the context blocks the CLIs add to the user message).

    with MockModel() as mock:
        mock.script([ToolCall("mcp__tiny__ping"), "Tool said pong."])
        ...run a CLI against mock.url...
        assert "mcp__tiny__ping" in tools_offered(mock.turns[0])
        assert last_tool_result(mock.turns[1]) == "pong"
"""

from __future__ import annotations

import contextlib
import gzip
import itertools
import json
import re
import select
import socket
import threading
import time
import zlib
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

__all__ = [
    "Fail",
    "Hold",
    "MockModel",
    "RateLimited",
    "Request",
    "Responder",
    "Tokens",
    "ToolCall",
    "echo_reply",
    "last_prompt",
    "last_tool_result",
    "last_user_text",
    "system_prompt",
    "tool_results",
    "tools_offered",
    "unwrap_tool_output",
]

MODEL = "mock-model"


@dataclass(frozen=True)
class ToolCall:
    """A scripted reply that asks the CLI to call tool ``name`` with ``arguments``.

    ``name`` is the name the CLI exposes: ``mcp__<server>__<tool>`` for Claude Code and Codex,
    ``mcp_<server>_<tool>`` for Gemini CLI. For Codex, whose MCP tools are offered inside a
    ``namespace`` tool, the call is sent in namespaced form automatically.
    """

    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Hold:
    """A reply that never comes: the response's headers are sent, then the SSE stream stays open
    without an event until the client disconnects (the CLI interrupted the turn or was killed),
    the mock stops, or ``seconds`` pass (then the connection is closed and ``errors`` says so)."""

    seconds: float = 60.0


@dataclass(frozen=True)
class Fail:
    """An HTTP 400 ``invalid_request_error`` in the shape of the provider's API: not a transient
    error, so the CLI ends the turn with an error (Claude Code 2.1.332 first re-sends the request
    a few times with variants of its ``thinking``/tool settings, each answered the same way)."""

    message: str = "mock: invalid request"


@dataclass(frozen=True)
class RateLimited:
    """An HTTP 429 that tells each CLI the limit resets in ``resets_in_s``, shaped so that it
    gives up at once instead of retrying (observed on the pinned versions):

    * Anthropic: ``rate_limit_error`` with ``x-should-retry: false`` (Claude Code then names no
      reset: only subscription refusals carry one);
    * OpenAI Responses: ``usage_limit_reached`` with ``resets_at`` and the ``x-codex-primary-*``
      headers of a spent window (Codex relays that window's ``resetsAt``);
    * Chat Completions: ``insufficient_quota`` whose message says ``It will reset at <ISO>``
      (Qwen Code fails fast on such a message; OpenCode retries every 429 without end);
    * Gemini: ``RESOURCE_EXHAUSTED`` as the Gemini API refuses a spent daily quota: its message
      says ``limit: 0`` and ``Please retry in <N>s``, its details a ``QuotaFailure`` whose quotaId
      is ``…PerDay…`` and a ``RetryInfo`` of ``<N>s``. Each of these alone makes Gemini CLI
      0.61.0 (``classifyGoogleError``) call it a ``TerminalQuotaError``, the first check (``limit:
      0``) keeping the API's message, so the reset reaches the result: it fails the turn at once,
      with no fallback model to try (a single-model chain, no fallback handler when headless).
      Without details and ``limit: 0`` a 429 is terminal only while its "retry in" exceeds
      300 s; any other 429 is retried, 10 attempts from 5 s apart up to 30 s.
    """

    resets_in_s: int = 3600


@dataclass(frozen=True)
class Tokens:
    """A model call's token counts: fresh input, output, cache read, cache write."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0

    def __add__(self, other: Tokens) -> Tokens:
        return Tokens(
            self.input + other.input,
            self.output + other.output,
            self.cache_read + other.cache_read,
            self.cache_write + other.cache_write,
        )


def request_tokens(n: int, api: str) -> Tokens:
    """What the ``n``-th turn request (1-based) reports, as far as ``api`` can say it."""
    written = 5 * n if api == "anthropic" else 0  # only Anthropic reports cache writes
    return Tokens(100 * n, 10 * n, 20 * n, written)


Reply = str | ToolCall | Hold | Fail | RateLimited
Responder = Callable[["Request"], Reply]


@dataclass
class Request:
    """One HTTP request the mock received."""

    # "anthropic" | "openai" (Responses) | "chat" (Chat Completions) | "gemini" | "unknown"
    api: str
    method: str
    path: str  # without the query string
    query: str
    headers: dict[str, str]
    body: Any  # parsed JSON (None when there was no body)
    kind: str  # "turn" (consumed a scripted reply), "aux" (canned reply) or "other"
    reply: Reply | None = None
    # For a ``Hold``: how it ended, "disconnected", "stopped" or "expired" (None while held).
    released: str | None = None
    # The token counts the answer reported (None when it was no model answer).
    tokens: Tokens | None = None


class MockModel:
    """Threaded HTTP server on 127.0.0.1 (random port) answering with scripted replies."""

    def __init__(
        self,
        replies: Iterable[Reply] = (),
        *,
        aux_text: str = "Mock auxiliary reply.",
        respond: Responder | None = None,
    ) -> None:
        """``respond`` computes the reply of a turn request when no scripted reply is left for
        it (e.g. ``echo_reply``); without it such a request is an error (script exhausted)."""
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._script: deque[Reply] = deque(replies)
        self._routed: list[tuple[Callable[[Request], bool], deque[Reply]]] = []
        self._requests: list[Request] = []
        self._errors: list[str] = []
        self._ids = itertools.count(1)
        self._answered = itertools.count(1)  # turn requests answered with a model reply
        self.aux_text = aux_text
        self.respond = respond
        # Held streams wait on the read end; ``stop`` writes to the other end to release them.
        self._release: tuple[socket.socket, socket.socket] | None = None
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> MockModel:
        mock = self

        class Handler(_Handler):
            model = mock

        self._release = socket.socketpair()
        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._release is not None:
            with contextlib.suppress(OSError):
                self._release[1].send(b"x")  # wakes every held stream (nobody reads it)
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        # Held streams notice the release within their select(); give them a bounded moment
        # so their sockets are closed before the test's clean-up looks at processes.
        deadline = time.monotonic() + 5
        with self._changed:
            self._changed.wait_for(
                lambda: (
                    not any(
                        isinstance(r.reply, Hold) and r.released is None for r in self._requests
                    )
                ),
                max(0.0, deadline - time.monotonic()),
            )
        if self._release is not None:
            for end in self._release:
                end.close()
            self._release = None

    def __enter__(self) -> MockModel:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- test API ----------------------------------------------------------------------------

    @property
    def port(self) -> int:
        assert self._server is not None, "MockModel is not started"
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """Base URL without a path: ``ANTHROPIC_BASE_URL`` and ``GOOGLE_GEMINI_BASE_URL``."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_url(self) -> str:
        """Base URL for a Codex ``model_providers.<id>.base_url`` (``…/v1``)."""
        return f"{self.url}/v1"

    def script(
        self, replies: Iterable[Reply], *, when: Callable[[Request], bool] | None = None
    ) -> None:
        """Queue replies; each turn request consumes one, in order.

        With ``when``, the replies form a separate queue used only for turn requests that match
        it (checked in registration order, before the shared queue): the way to script several
        agents sharing one mock, e.g. ``when=lambda r: "agent-b" in system_prompt(r)``.
        """
        with self._lock:
            if when is None:
                self._script.extend(replies)
            else:
                self._routed.append((when, deque(replies)))

    @property
    def pending(self) -> list[Reply]:
        """Scripted replies not consumed yet (routed queues first, then the shared one)."""
        with self._lock:
            return [r for _, queue in self._routed for r in queue] + list(self._script)

    @property
    def requests(self) -> list[Request]:
        """Every request received, in arrival order."""
        with self._lock:
            return list(self._requests)

    @property
    def turns(self) -> list[Request]:
        """The requests that consumed a scripted reply (or found the script empty)."""
        return [r for r in self.requests if r.kind == "turn"]

    @property
    def errors(self) -> list[str]:
        """Unexpected things: unknown endpoints, turns after the script ran out, bad bodies."""
        with self._lock:
            return list(self._errors)

    def wait_until(self, predicate: Callable[[list[Request]], bool], timeout: float = 30.0) -> None:
        """Block until ``predicate(requests)`` holds (re-checked at every request and every
        release of a held stream), or raise AssertionError. ``predicate`` runs under the mock's
        lock: it may read the requests it is given, not call the mock."""
        with self._changed:
            met = self._changed.wait_for(lambda: predicate(list(self._requests)), timeout)
        if not met:
            raise AssertionError(f"mock: condition not met within {timeout}s\n{self.describe()}")

    def wait_for_turns(self, count: int, timeout: float = 30.0) -> list[Request]:
        """Block until ``count`` turn requests have arrived (or raise AssertionError)."""
        with self._changed:
            ok = self._changed.wait_for(
                lambda: sum(r.kind == "turn" for r in self._requests) >= count, timeout
            )
            if not ok:
                raise AssertionError(f"expected {count} turn requests within {timeout}s")
        return self.turns

    def describe(self) -> str:
        """A short log of what was received, for assertion messages."""
        lines = [
            f"{r.method} {r.path} [{r.api}/{r.kind}] -> {r.reply!r}"
            + (f" ({r.released})" if r.released else "")
            for r in self.requests
        ]
        lines += [f"error: {e}" for e in self.errors]
        return "\n".join(lines) or "(no requests)"

    # -- used by the handler -----------------------------------------------------------------

    def _next_id(self) -> int:
        return next(self._ids)

    def _tokens(self, request: Request) -> Tokens:
        """The token counts ``request``'s answer reports (recorded on it)."""
        tokens = Tokens()
        if request.kind == "turn":
            tokens = request_tokens(next(self._answered), request.api)
        request.tokens = tokens
        return tokens

    def _take_reply(self, request: Request) -> Reply:
        with self._lock:
            routed = list(self._routed)
        for when, queue in routed:  # predicates run unlocked: they may use the helpers below
            if queue and when(request):
                with self._lock:
                    if queue:
                        return queue.popleft()
        with self._lock:
            if self._script:
                return self._script.popleft()
            respond = self.respond
            if respond is None:
                self._errors.append(f"script exhausted at {request.method} {request.path}")
                return "Mock script exhausted."
        return respond(request)

    def _record(self, request: Request) -> None:
        with self._changed:
            self._requests.append(request)
            self._changed.notify_all()

    def _error(self, message: str) -> None:
        with self._lock:
            self._errors.append(message)

    def _hold(self, request: Request, connection: socket.socket, seconds: float) -> None:
        """Wait until the client closes ``connection``, the mock stops, or ``seconds`` pass."""
        assert self._release is not None
        waker = self._release[0]
        deadline = time.monotonic() + seconds
        outcome = "expired"
        while (remaining := deadline - time.monotonic()) > 0:
            try:
                readable, _, _ = select.select([connection, waker], [], [], remaining)
            except (OSError, ValueError):
                outcome = "disconnected"
                break
            if waker in readable:
                outcome = "stopped"
                break
            if connection in readable:
                try:
                    data = connection.recv(4096)
                except (ConnectionResetError, OSError):
                    data = b""
                if not data:
                    outcome = "disconnected"
                    break
                # Anything else the client sends on a held request is ignored.
        if outcome == "expired":
            self._error(f"held {request.path} for {seconds:g}s without a disconnect")
        with self._changed:
            request.released = outcome
            self._changed.notify_all()


# ---- request inspection helpers ------------------------------------------------------------


def tools_offered(request: Request) -> list[str]:
    """Names of the tools the CLI offered the model in this request.

    Codex ``namespace`` tools are flattened to ``<namespace>__<tool>`` (``mcp__tiny__ping``),
    Gemini ``functionDeclarations`` are listed by name (``mcp_tiny_ping``).
    """
    body = request.body if isinstance(request.body, dict) else {}
    names: list[str] = []
    if request.api == "gemini":
        for tool in body.get("tools") or []:
            for decl in tool.get("functionDeclarations") or []:
                names.append(decl.get("name", ""))
        return names
    for tool in body.get("tools") or []:
        if tool.get("type") == "namespace":
            prefix = tool.get("name", "")
            names.extend(f"{prefix}__{sub.get('name', '')}" for sub in tool.get("tools") or [])
        elif "name" in tool:
            names.append(tool["name"])
        elif isinstance(tool.get("function"), dict):
            names.append(tool["function"].get("name", ""))
        else:
            names.append(str(tool.get("type", "")))
    return names


def tool_results(request: Request) -> list[str]:
    """Texts of all tool results present in the request's conversation, oldest first."""
    body = request.body if isinstance(request.body, dict) else {}
    out: list[str] = []
    if request.api == "anthropic":
        for message in body.get("messages") or []:
            content = message.get("content")
            if isinstance(content, list):
                for block in content:
                    if isinstance(block, dict) and block.get("type") == "tool_result":
                        out.append(_text_of(block.get("content")))
    elif request.api == "openai":
        for item in body.get("input") or []:
            if isinstance(item, dict) and item.get("type") in {
                "function_call_output",
                "custom_tool_call_output",
            }:
                out.append(_text_of(item.get("output")))
    elif request.api == "gemini":
        for content in body.get("contents") or []:
            for part in content.get("parts") or []:
                response = part.get("functionResponse") if isinstance(part, dict) else None
                if isinstance(response, dict):
                    out.append(_gemini_response_text(response.get("response")))
    elif request.api == "chat":
        for message in _chat_messages(body, "tool"):
            out.append(_text_of(message.get("content")))
    return out


def last_tool_result(request: Request, *, raw: bool = False) -> str | None:
    """Text of the newest tool result in the request, or None if it carries none.

    Unless ``raw``, the wrappers the CLIs put around a tool's output are removed: Codex
    prefixes ``Wall time: … seconds\nOutput:\n``, Gemini CLI wraps MCP output in
    ``<untrusted_context>…</untrusted_context>``. Claude Code sends the text as is.
    """
    results = tool_results(request)
    if not results:
        return None
    return results[-1] if raw else unwrap_tool_output(results[-1])


_CODEX_WALL_TIME = re.compile(
    r"\AWall time: [0-9.]+ seconds\n(?:Process exited with code -?\d+\n)?Output:\n"
)
_GEMINI_UNTRUSTED = re.compile(r"\A<untrusted_context>\n?(.*?)\n?</untrusted_context>\Z", re.DOTALL)


def unwrap_tool_output(text: str) -> str:
    """Strip the Codex / Gemini CLI framing around a tool's output (see ``last_tool_result``)."""
    text = _CODEX_WALL_TIME.sub("", text, count=1)
    match = _GEMINI_UNTRUSTED.match(text)
    return match.group(1) if match else text


def system_prompt(request: Request) -> str:
    """All system/developer instruction text of the request, joined with newlines."""
    body = request.body if isinstance(request.body, dict) else {}
    if request.api == "anthropic":
        return _text_of(body.get("system"))
    if request.api == "openai":
        parts = [_text_of(body.get("instructions"))]
        for item in body.get("input") or []:
            if isinstance(item, dict) and item.get("role") in {"developer", "system"}:
                parts.append(_text_of(item.get("content")))
        return "\n".join(p for p in parts if p)
    if request.api == "gemini":
        instruction = body.get("systemInstruction") or body.get("system_instruction")
        if isinstance(instruction, dict):
            return _text_of(instruction.get("parts"))
        return _text_of(instruction)
    if request.api == "chat":
        messages = _chat_messages(body, "system", "developer")
        return "\n".join(t for t in (_text_of(m.get("content")) for m in messages) if t)
    return ""


def last_user_text(request: Request) -> str:
    """Text of the newest user message that is not only tool results."""
    body = request.body if isinstance(request.body, dict) else {}
    if request.api == "anthropic":
        messages = body.get("messages") or []
        for message in reversed(messages):
            if message.get("role") != "user":
                continue
            text = _text_of(message.get("content"))
            if text:
                return text
    elif request.api == "openai":
        for item in reversed(body.get("input") or []):
            if isinstance(item, dict) and item.get("role") == "user":
                return _text_of(item.get("content"))
    elif request.api == "gemini":
        for content in reversed(body.get("contents") or []):
            if content.get("role") == "user":
                text = _text_of(content.get("parts"))
                if text:
                    return text
    elif request.api == "chat":
        for message in reversed(_chat_messages(body, "user")):
            text = _text_of(message.get("content"))
            if text:
                return text
    return ""


# Blocks the CLIs put into the user's message besides the prompt itself: Claude Code's
# reminders, Codex's environment/AGENTS.md blocks, Gemini CLI's session context.
_ADDED_BLOCK = re.compile(
    r"\A\s*(?:<system-reminder>|<environment_context>|<user_instructions>|<session_context>"
    r"|<INSTRUCTIONS>|# AGENTS\.md)"
)


def last_prompt(request: Request) -> str:
    """The prompt of the newest user message as typed: its last text part that is neither a
    tool result nor a context block the CLI added ("" if there is none).

    Gemini CLI sends a ``<session_context>`` part in the same user message as the prompt, Claude
    Code may add ``<system-reminder>`` blocks and Codex ``<environment_context>`` messages;
    after an interrupted or failed turn the previous prompt may share the message, the newest
    prompt being its last part.
    """
    body = request.body if isinstance(request.body, dict) else {}
    if request.api == "anthropic":
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        candidates = [m.get("content") for m in messages if m.get("role") == "user"]
    elif request.api == "openai":
        items = [i for i in body.get("input") or [] if isinstance(i, dict)]
        candidates = [i.get("content") for i in items if i.get("role") == "user"]
    elif request.api == "gemini":
        contents = [c for c in body.get("contents") or [] if isinstance(c, dict)]
        candidates = [c.get("parts") for c in contents if c.get("role") == "user"]
    elif request.api == "chat":
        candidates = [m.get("content") for m in _chat_messages(body, "user")]
    else:
        return ""
    for content in reversed(candidates):
        texts = [t for t in _prompt_parts(content) if not _ADDED_BLOCK.match(t)]
        if texts:
            return texts[-1]
    return ""


def _chat_messages(body: Any, *roles: str) -> list[dict[str, Any]]:
    """The Chat Completions ``messages`` of the given roles, in order."""
    messages = body.get("messages") if isinstance(body, dict) else None
    return [m for m in messages or [] if isinstance(m, dict) and m.get("role") in roles]


def _prompt_parts(content: Any) -> list[str]:
    """The plain text parts of one user message (tool results and function responses skipped)."""
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    out = []
    for part in content:
        if isinstance(part, str):
            out.append(part)
        elif (
            isinstance(part, dict)
            and part.get("type") in {None, "text", "input_text"}
            and isinstance(part.get("text"), str)
            and not part.get("thought")
        ):
            out.append(part["text"])
    return out


def echo_reply(request: Request) -> Reply:
    """The contract CLI's behaviour: ``echo: <prompt>``; a prompt containing ``SLOW`` is held
    until the client gives up; one containing ``FAIL`` gets a non-retryable HTTP 400, one
    containing ``RATELIMIT`` a 429 the CLI gives up on (``RateLimited``)."""
    prompt = last_prompt(request)
    if "SLOW" in prompt:
        return Hold()
    if "FAIL" in prompt:
        return Fail(f"mock: refusing the prompt {prompt!r}")
    if "RATELIMIT" in prompt:
        return RateLimited()
    return f"echo: {prompt}"


def _text_of(value: Any) -> str:
    """Concatenate the text of a string, a content block, or a list of blocks/parts."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(t for t in (_text_of(v) for v in value) if t)
    if isinstance(value, dict):
        if isinstance(value.get("text"), str):
            return value["text"]
        if "content" in value:
            return _text_of(value["content"])
    return ""


def _gemini_response_text(response: Any) -> str:
    if isinstance(response, dict):
        for key in ("output", "content", "result", "error"):
            if key in response:
                value = response[key]
                return value if isinstance(value, str) else _text_of(value) or json.dumps(value)
        return json.dumps(response)
    return _text_of(response)


# ---- HTTP handler ----------------------------------------------------------------------------

_GEMINI_PATH = re.compile(r"^/(?:v1beta|v1|v1alpha)/models/(?P<model>[^/:]+):(?P<verb>\w+)$")


class _Handler(BaseHTTPRequestHandler):
    model: MockModel
    protocol_version = "HTTP/1.1"
    server_version = "IdeaMockModel/1"

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep pytest output clean; the mock's own log is in model.requests

    # -- plumbing ------------------------------------------------------------------------------

    def _read_body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            raw = self._read_chunked()
        else:
            raw = self.rfile.read(length) if length else b""
        encoding = self.headers.get("Content-Encoding", "").lower()
        if encoding == "gzip":
            raw = gzip.decompress(raw)
        elif encoding == "deflate":
            raw = zlib.decompress(raw)
        elif encoding:
            self.model._error(f"unsupported request Content-Encoding {encoding!r} on {self.path}")
            return None
        if not raw:
            return None
        try:
            return json.loads(raw)
        except ValueError:
            self.model._error(f"non-JSON body on {self.command} {self.path}")
            return raw.decode("utf-8", "replace")

    def _read_chunked(self) -> bytes:
        chunks = []
        while True:
            size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while self.rfile.readline() not in {b"\r\n", b"\n", b""}:
                    pass
                return b"".join(chunks)
            chunks.append(self.rfile.read(size))
            self.rfile.readline()

    def _send(
        self, status: int, body: bytes, content_type: str, headers: Mapping[str, str] | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if content_type.startswith("text/event-stream"):
            self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def _json(self, payload: Any, status: int = 200) -> None:
        self._send(status, json.dumps(payload).encode(), "application/json")

    def _sse(self, events: list[tuple[str | None, Any]]) -> None:
        out = []
        for name, data in events:
            prefix = f"event: {name}\n" if name else ""
            out.append(f"{prefix}data: {json.dumps(data)}\n\n")
        self._send(200, "".join(out).encode(), "text/event-stream; charset=utf-8")

    def _special(self, api: str, request: Request) -> bool:
        """Answer a ``Hold`` or a ``Fail`` reply; False for an ordinary reply."""
        reply = request.reply
        if isinstance(reply, Fail):
            self._json(_error_body(api, reply.message), 400)
            return True
        if isinstance(reply, RateLimited):
            body, headers = _rate_limited(api, reply.resets_in_s)
            self._send(429, json.dumps(body).encode(), "application/json", headers)
            return True
        if not isinstance(reply, Hold):
            return False
        self.close_connection = True
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream; charset=utf-8")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client went away already: the hold below ends at once
        self.model._hold(request, self.connection, reply.seconds)
        return True

    def _request(self, api: str, kind: str, body: Any) -> Request:
        split = urlsplit(self.path)
        return Request(
            api=api,
            method=self.command,
            path=split.path,
            query=split.query,
            headers={k.lower(): v for k, v in self.headers.items()},
            body=body,
            kind=kind,
        )

    def _not_found(self, body: Any) -> None:
        request = self._request("unknown", "other", body)
        self.model._record(request)
        self.model._error(f"unhandled {self.command} {self.path}")
        self._json({"error": {"type": "not_found_error", "message": "mock: no such route"}}, 404)

    # -- routing -------------------------------------------------------------------------------

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        if path == "/v1/models":
            is_anthropic = "anthropic-version" in self.headers or "x-api-key" in self.headers
            self.model._record(
                self._request("anthropic" if is_anthropic else "openai", "other", None)
            )
            # `data` is what Anthropic's and OpenAI's list endpoints return; Codex reads `models`.
            entry = {"id": MODEL, "type": "model", "display_name": MODEL, "object": "model"}
            self._json({"data": [entry], "models": [], "has_more": False})
            return
        if path == "/v1beta/models":
            self.model._record(self._request("gemini", "other", None))
            self._json({"models": [{"name": f"models/{MODEL}"}]})
            return
        self._not_found(None)

    def do_HEAD(self) -> None:
        self._send(200, b"", "text/plain")

    def do_POST(self) -> None:
        body = self._read_body()
        path = urlsplit(self.path).path
        if path == "/v1/messages":
            self._anthropic_messages(body)
        elif path == "/v1/messages/count_tokens":
            self.model._record(self._request("anthropic", "other", body))
            self._json({"input_tokens": _estimate_tokens(body)})
        elif path in {"/v1/responses", "/responses"}:
            self._openai_responses(body)
        elif path in {"/v1/chat/completions", "/chat/completions"}:
            self._chat_completions(body)
        elif match := _GEMINI_PATH.match(path):
            self._gemini(match["verb"], match["model"], body)
        else:
            self._not_found(body)

    # -- Anthropic Messages --------------------------------------------------------------------

    def _anthropic_messages(self, body: Any) -> None:
        body = body if isinstance(body, dict) else {}
        is_turn = bool(body.get("tools"))
        request = self._request("anthropic", "turn" if is_turn else "aux", body)
        reply: Reply = self.model._take_reply(request) if is_turn else self.model.aux_text
        if isinstance(reply, ToolCall) and not any(t == reply.name for t in tools_offered(request)):
            self.model._error(f"tool {reply.name!r} called but not offered by the CLI")
        request.reply = reply
        self.model._record(request)
        if self._special("anthropic", request):
            return
        assert not isinstance(reply, Hold | Fail | RateLimited)

        n = self.model._next_id()
        model = body.get("model") or MODEL
        if isinstance(reply, ToolCall):
            block: dict[str, Any] = {
                "type": "tool_use",
                "id": f"toolu_mock_{n}",
                "name": reply.name,
                "input": dict(reply.arguments),
            }
            stop = "tool_use"
        else:
            block = {"type": "text", "text": reply}
            stop = "end_turn"
        tokens = self.model._tokens(request)
        usage = {
            "input_tokens": tokens.input,
            "output_tokens": tokens.output,
            "cache_creation_input_tokens": tokens.cache_write,
            "cache_read_input_tokens": tokens.cache_read,
        }
        message = {
            "id": f"msg_mock_{n}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [block],
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": usage,
        }
        if not body.get("stream"):
            self._json(message)
            return
        start = {
            **message,
            "content": [],
            "stop_reason": None,
            "usage": {**usage, "output_tokens": 1},
        }
        if block["type"] == "tool_use":
            opening = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        else:
            opening = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        self._sse(
            [
                ("message_start", {"type": "message_start", "message": start}),
                (
                    "content_block_start",
                    {"type": "content_block_start", "index": 0, "content_block": opening},
                ),
                ("ping", {"type": "ping"}),
                (
                    "content_block_delta",
                    {"type": "content_block_delta", "index": 0, "delta": delta},
                ),
                ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                (
                    "message_delta",
                    {
                        "type": "message_delta",
                        "delta": {"stop_reason": stop, "stop_sequence": None},
                        "usage": {"output_tokens": tokens.output},
                    },
                ),
                ("message_stop", {"type": "message_stop"}),
            ]
        )

    # -- OpenAI Responses (Codex) --------------------------------------------------------------

    def _openai_responses(self, body: Any) -> None:
        body = body if isinstance(body, dict) else {}
        is_turn = bool(body.get("tools"))
        request = self._request("openai", "turn" if is_turn else "aux", body)
        reply: Reply = self.model._take_reply(request) if is_turn else self.model.aux_text
        request.reply = reply
        self.model._record(request)
        if self._special("openai", request):
            return
        assert not isinstance(reply, Hold | Fail | RateLimited)

        n = self.model._next_id()
        response_id = f"resp_mock_{n}"
        model = body.get("model") or MODEL
        if isinstance(reply, ToolCall):
            item = {
                "type": "function_call",
                "id": f"fc_mock_{n}",
                "call_id": f"call_mock_{n}",
                "arguments": json.dumps(dict(reply.arguments)),
                "status": "completed",
                **self._codex_tool_name(request, reply.name),
            }
            added = {**item, "status": "in_progress"}
            deltas: list[tuple[str | None, Any]] = []
        else:
            item = {
                "type": "message",
                "id": f"msg_mock_{n}",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": reply, "annotations": []}],
            }
            added = {**item, "status": "in_progress", "content": []}
            deltas = [
                (
                    "response.output_text.delta",
                    {
                        "type": "response.output_text.delta",
                        "item_id": item["id"],
                        "output_index": 0,
                        "content_index": 0,
                        "delta": reply,
                    },
                )
            ]
        tokens = self.model._tokens(request)
        tokens_in = tokens.input + tokens.cache_read  # the Responses API counts cached input in
        response = {
            "id": response_id,
            "object": "response",
            "model": model,
            "status": "in_progress",
            "output": [],
        }
        done = {
            **response,
            "status": "completed",
            "output": [item],
            "usage": {
                "input_tokens": tokens_in,
                "input_tokens_details": {"cached_tokens": tokens.cache_read},
                "output_tokens": tokens.output,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": tokens_in + tokens.output,
            },
        }
        self._sse(
            [
                ("response.created", {"type": "response.created", "response": response}),
                (
                    "response.output_item.added",
                    {"type": "response.output_item.added", "output_index": 0, "item": added},
                ),
                *deltas,
                (
                    "response.output_item.done",
                    {"type": "response.output_item.done", "output_index": 0, "item": item},
                ),
                ("response.completed", {"type": "response.completed", "response": done}),
            ]
        )

    # -- OpenAI Chat Completions (Qwen Code, OpenCode) ----------------------------------------

    def _chat_completions(self, body: Any) -> None:
        body = body if isinstance(body, dict) else {}
        is_turn = bool(body.get("tools"))
        request = self._request("chat", "turn" if is_turn else "aux", body)
        reply: Reply = self.model._take_reply(request) if is_turn else self.model.aux_text
        if isinstance(reply, ToolCall) and reply.name not in tools_offered(request):
            self.model._error(f"tool {reply.name!r} called but not offered by the CLI")
        request.reply = reply
        self.model._record(request)
        if self._special("chat", request):
            return
        assert not isinstance(reply, Hold | Fail | RateLimited)

        n = self.model._next_id()
        model = body.get("model") or MODEL
        message: dict[str, Any] = {"role": "assistant"}
        if isinstance(reply, ToolCall):
            call = {
                "index": 0,
                "id": f"call_mock_{n}",
                "type": "function",
                "function": {"name": reply.name, "arguments": json.dumps(dict(reply.arguments))},
            }
            message.update(content=None, tool_calls=[call])
            finish = "tool_calls"
        else:
            message["content"] = reply
            finish = "stop"
        tokens = self.model._tokens(request)
        tokens_in = tokens.input + tokens.cache_read  # prompt_tokens count the cached ones in
        usage = {
            "prompt_tokens": tokens_in,
            "completion_tokens": tokens.output,
            "total_tokens": tokens_in + tokens.output,
            "prompt_tokens_details": {"cached_tokens": tokens.cache_read},
        }
        head = {"id": f"chatcmpl-mock-{n}", "created": int(time.time()), "model": model}
        if not body.get("stream"):
            choice = {"index": 0, "message": message, "finish_reason": finish}
            self._json({**head, "object": "chat.completion", "choices": [choice], "usage": usage})
            return
        chunk = {**head, "object": "chat.completion.chunk"}
        delta = {k: v for k, v in message.items() if v is not None}
        events = [
            {**chunk, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
            {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
            {**chunk, "choices": [], "usage": usage},
        ]
        lines = [f"data: {json.dumps(event)}\n\n" for event in events] + ["data: [DONE]\n\n"]
        self._send(200, "".join(lines).encode(), "text/event-stream; charset=utf-8")

    def _codex_tool_name(self, request: Request, name: str) -> dict[str, str]:
        body = request.body if isinstance(request.body, dict) else {}
        for tool in body.get("tools") or []:
            if tool.get("type") == "namespace":
                prefix = tool.get("name", "")
                for sub in tool.get("tools") or []:
                    if f"{prefix}__{sub.get('name')}" == name:
                        return {"name": sub["name"], "namespace": prefix}
            elif tool.get("name") == name:
                return {"name": name}
        self.model._error(f"tool {name!r} called but not offered by the CLI")
        return {"name": name}

    # -- Gemini --------------------------------------------------------------------------------

    def _gemini(self, verb: str, model: str, body: Any) -> None:
        body = body if isinstance(body, dict) else {}
        if verb == "countTokens":
            self.model._record(self._request("gemini", "other", body))
            self._json({"totalTokens": _estimate_tokens(body)})
            return
        if verb not in {"generateContent", "streamGenerateContent"}:
            self._not_found(body)
            return
        is_turn = any(t.get("functionDeclarations") for t in body.get("tools") or [])
        request = self._request("gemini", "turn" if is_turn else "aux", body)
        if is_turn:
            reply: Reply = self.model._take_reply(request)
            if isinstance(reply, ToolCall) and reply.name not in tools_offered(request):
                self.model._error(f"tool {reply.name!r} called but not offered by the CLI")
        else:
            reply = _gemini_aux_reply(body, self.model.aux_text)
        request.reply = reply
        self.model._record(request)
        if self._special("gemini", request):
            return
        assert not isinstance(reply, Hold | Fail | RateLimited)

        if isinstance(reply, ToolCall):
            part: dict[str, Any] = {
                "functionCall": {"name": reply.name, "args": dict(reply.arguments)}
            }
        else:
            part = {"text": reply}
        tokens = self.model._tokens(request)
        tokens_in = tokens.input + tokens.cache_read  # promptTokenCount counts the cached ones in
        chunk = {
            "candidates": [
                {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {
                "promptTokenCount": tokens_in,
                "candidatesTokenCount": tokens.output,
                "cachedContentTokenCount": tokens.cache_read,
                "totalTokenCount": tokens_in + tokens.output,
            },
            "modelVersion": model,
            "responseId": f"mock-{self.model._next_id()}",
        }
        if verb == "generateContent":
            self._json(chunk)
        else:
            self._sse([(None, chunk)])


def _gemini_aux_reply(body: dict[str, Any], text: str) -> str:
    """Gemini CLI's helper calls ask for JSON (next-speaker check, routing): answer sensibly."""
    config = body.get("generationConfig") or {}
    schema = config.get("responseJsonSchema") or config.get("responseSchema")
    if config.get("responseMimeType") == "application/json" or schema:
        properties = (schema or {}).get("properties") or {}
        answer: dict[str, Any] = {}
        for key, spec in properties.items():
            kind = str(spec.get("type", "")).lower() if isinstance(spec, dict) else ""
            if key == "next_speaker":
                answer[key] = "user"
            elif key == "complexity_score":
                # The model router's classifier (Gemini 3 models): an INTEGER schema, but the
                # CLI validates 1..100 (a 0 or a string gives a ZodError stack on stderr).
                answer[key] = 1
            elif isinstance(spec, dict) and spec.get("enum"):
                answer[key] = spec["enum"][0]
            elif kind == "boolean":
                answer[key] = False
            elif kind in {"number", "integer"}:
                answer[key] = 0
            else:
                answer[key] = "mock"
        return json.dumps(answer)
    return text


def _error_body(api: str, message: str) -> dict[str, Any]:
    """An HTTP 400 body as each provider shapes it."""
    if api == "anthropic":
        return {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
    if api == "gemini":
        return {"error": {"code": 400, "message": message, "status": "INVALID_ARGUMENT"}}
    return {
        "error": {
            "type": "invalid_request_error",
            "message": message,
            "param": None,
            "code": None,
        }
    }


def _rate_limited(api: str, resets_in_s: int) -> tuple[dict[str, Any], dict[str, str]]:
    """An HTTP 429 body and headers as each provider shapes them (see ``RateLimited``)."""
    resets_at = int(time.time()) + resets_in_s
    if api == "anthropic":
        message = "Number of request tokens has exceeded your per-minute rate limit"
        body: dict[str, Any] = {"type": "error", "error": {"type": "rate_limit_error"}}
        body["error"]["message"] = message
        return body, {"x-should-retry": "false", "retry-after": str(resets_in_s)}
    if api == "openai":
        error = {"type": "usage_limit_reached", "message": "The usage limit has been reached"}
        error |= {"plan_type": "plus", "resets_at": resets_at}
        window = {"used-percent": "100", "window-minutes": "300", "reset-at": str(resets_at)}
        return {"error": error}, {f"x-codex-primary-{k}": v for k, v in window.items()}
    if api == "gemini":
        # The Gemini API's refusal of a spent daily quota, its google.rpc details included.
        metric = "generativelanguage.googleapis.com/generate_content_free_tier_requests"
        message = (
            "You exceeded your current quota, please check your plan and billing details.\n"
            f"* Quota exceeded for metric: {metric}, limit: 0\n"
            f"Please retry in {resets_in_s}s."
        )
        violation = {
            "quotaMetric": metric,
            "quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
            "quotaDimensions": {"location": "global"},
        }
        details = [
            {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [violation]},
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": f"{resets_in_s}s"},
        ]
        error = {"code": 429, "message": message, "status": "RESOURCE_EXHAUSTED"}
        return {"error": {**error, "details": details}}, {}
    when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(resets_at))
    message = f"Quota exceeded for this API key. It will reset at {when}."
    error = {"type": "insufficient_quota", "code": "insufficient_quota", "message": message}
    return {"error": error}, {"retry-after": str(resets_in_s)}


def _estimate_tokens(body: Any) -> int:
    return max(1, len(json.dumps(body)) // 400) if body else 1
