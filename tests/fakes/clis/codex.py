"""A stdlib stand-in for ``codex app-server`` that speaks its JSON-RPC lines as codex 0.171.0 does.

Run as ``python codex.py [-c key=value ...] app-server [--listen=stdio://]``. The wire shapes
are those observed on the real binary (protocols/AGENT_CLI_PROTOCOLS.md §B.5): no ``"jsonrpc"``
field, ``initialize`` then ``thread/start``/``thread/resume``, ``turn/start`` answered before the
``turn/started`` … ``turn/completed`` notifications, a ``warning`` about model metadata per turn.

Prompt script: P is answered ``echo: P`` in a few deltas; ``SLOW`` streams ``working`` then waits
for ``turn/interrupt`` (then ``turn/completed`` status ``interrupted``); ``FAIL`` sends an ``error``
notification and ends ``failed``; ``RATELIMIT`` ends ``failed`` with ``usageLimitExceeded`` after
an ``account/rateLimits/updated`` whose spent primary window resets in ``RESETS_IN_S``, as 0.171.0
does for a usage-limit 429; ``FLAKY`` sends a non-terminal ``error`` (``willRetry``) first;
``DIE`` writes to stderr and exits 3 mid-turn; ``APPROVE`` asks the client for a command approval
and answers with its decision; ``CALL <tool> <json>`` calls that tool of the ``idea`` MCP server
(spawned from the thread's ``config.mcp_servers`` by a stdlib MCP client; a ``required`` one that
cannot start fails the thread) and answers with the tool's text.

Every answered turn costs ``TURN_TOKENS`` (``thread/tokenUsage/updated``: ``last`` that, ``total``
the thread's running sum); a resumed thread's totals are sent again, naming its last turn, once
the client starts a turn (0.171.0 sends them soon after ``thread/resume``, racing the turn).

Threads persist under ``$CODEX_HOME`` (else ``$HOME/.codex``) ``/sessions``; resuming an unknown id
fails like the real one. ``-c`` values must parse as TOML. If ``FAKE_CODEX_LOG`` names a file, the
argv, the ``-c`` overrides and every thread start/resume request are appended to it as JSON lines.
"""

from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
import tomllib
import uuid
from pathlib import Path
from subprocess import DEVNULL, PIPE
from typing import Any

VERSION = "0.171.0"
INVALID_REQUEST = -32600
APPROVAL_MODES = ("auto", "prompt", "writes", "approve")
MODEL_WARNING = (
    "Model metadata for `mock-model` not found. Defaulting to fallback metadata; this can "
    "degrade performance and cause issues."
)
RESETS_IN_S = 3600
# One model call's usage; Codex counts the cached input inside ``inputTokens``.
TURN_TOKENS = {
    "inputTokens": 120,
    "cachedInputTokens": 20,
    "cacheWriteInputTokens": 0,
    "outputTokens": 30,
    "reasoningOutputTokens": 0,
    "totalTokens": 150,
}
USAGE_LIMIT_MESSAGE = (
    "You've hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit "
    "https://chatgpt.com/settings/usage to purchase more credits or try again at 3:29 PM."
)
_out_lock = threading.Lock()


def send(message: dict[str, Any]) -> None:
    line = json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n"
    with _out_lock:
        sys.stdout.write(line)
        sys.stdout.flush()


def notify(method: str, params: dict[str, Any]) -> None:
    send({"method": method, "params": params})


def mcp_status(thread_id: str, name: str, status: str, error: str | None = None) -> None:
    params = {"threadId": thread_id, "name": name, "status": status, "error": error}
    notify("mcpServer/startupStatus/updated", params)


def log(entry: dict[str, Any]) -> None:
    path = os.environ.get("FAKE_CODEX_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")


class RpcError(Exception):
    pass


class McpClient:
    """Just enough of an MCP stdio client: initialize, tools/list, tools/call."""

    def __init__(self, name: str, cfg: dict[str, Any]) -> None:
        self.name, self.cfg, self.ids = name, cfg, 0
        env = {**os.environ, **cfg.get("env", {})}
        try:
            argv = [cfg["command"], *cfg.get("args", [])]
            self.proc = subprocess.Popen(
                argv, stdin=PIPE, stdout=PIPE, stderr=DEVNULL, env=env, encoding="utf-8"
            )
        except OSError as exc:
            reason = f"{exc.strerror} (os error {exc.errno})"
            raise RpcError(f"MCP client for `{name}` failed to start: {reason}") from exc
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        timeout = float(cfg.get("startup_timeout_sec", 30))
        hello = {"name": "fake-codex", "version": VERSION}
        init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": hello}
        self.request("initialize", init, timeout)
        self._write({"method": "notifications/initialized"})
        self.tools = [t["name"] for t in self.request("tools/list", {}, timeout)["tools"]]

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _write(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict[str, Any], timeout: float) -> dict[str, Any]:
        self.ids += 1
        self._write({"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params})
        while True:
            try:
                line = self.lines.get(timeout=timeout)
            except queue.Empty:
                raise RpcError(f"MCP server `{self.name}` timed out on {method}") from None
            if line is None:
                raise RpcError(f"MCP server `{self.name}` closed its output")
            try:
                message = json.loads(line)
            except json.JSONDecodeError:
                continue  # a banner line
            if isinstance(message, dict) and message.get("id") == self.ids:
                if "error" in message:
                    raise RpcError(str(message["error"].get("message")))
                return message.get("result") or {}

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def check_mcp_config(config: Any) -> dict[str, dict[str, Any]]:
    if config is None:
        return {}
    servers = config.get("mcp_servers", {}) if isinstance(config, dict) else None
    if not isinstance(servers, dict):
        raise RpcError("invalid config: mcp_servers must be a table")
    for name, cfg in servers.items():
        ok = (
            isinstance(cfg, dict)
            and isinstance(cfg.get("command"), str)
            and all(isinstance(a, str) for a in cfg.get("args", []))
            and all(isinstance(v, str) for v in cfg.get("env", {}).values())
            and isinstance(cfg.get("tool_timeout_sec", 60.0), int | float)
            and cfg.get("default_tools_approval_mode", "auto") in APPROVAL_MODES
        )
        if not ok:
            raise RpcError(f"invalid config: mcp_servers.{name}: {cfg!r}")
    return servers


class Server:
    def __init__(self, home: Path) -> None:
        self.home = home
        self.initialized = False
        self.thread: dict[str, Any] | None = None
        self.mcp: dict[str, McpClient] = {}
        self.turn_id: str | None = None
        self.active: str | None = None
        self.prompt = ""
        self.interrupted = threading.Event()
        self.replies: dict[Any, queue.Queue[dict[str, Any]]] = {}
        self.next_id = 0
        self.tokens = dict.fromkeys(TURN_TOKENS, 0)
        self.restored: str | None = None  # a resumed thread whose totals are yet to be sent

    # --- requests -------------------------------------------------------------------------

    def handle(self, message: dict[str, Any]) -> None:
        if "method" not in message:  # the answer to one of our requests
            self.replies.setdefault(message.get("id"), queue.Queue()).put(message)
            return
        if "id" not in message:
            return  # `initialized` and other notifications
        method, params = message["method"], message.get("params") or {}
        try:
            result = self.dispatch(method, params)
        except RpcError as exc:
            send({"error": {"code": INVALID_REQUEST, "message": str(exc)}, "id": message["id"]})
            return
        send({"id": message["id"], "result": result})
        if method == "thread/resume":
            self.restored = str(params.get("threadId"))
        if method == "turn/start" and self.restored is not None:
            # Sent late, as 0.171.0 does: once the client may already be starting a turn.
            self.restore_usage(self.restored)
            self.restored = None
        if method == "turn/start":  # its notifications follow the answer, as with the real one
            turn = (self.turn_id, self.prompt)
            threading.Thread(target=self.run_turn, args=turn, daemon=True).start()

    def dispatch(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "initialize":
            self.initialized = True
            family = "unix" if os.name == "posix" else "windows"
            info = {"userAgent": f"fake/{VERSION}", "codexHome": str(self.home)}
            return {**info, "platformFamily": family, "platformOs": sys.platform}
        if not self.initialized:
            raise RpcError("Not initialized")
        if method in ("thread/start", "thread/resume"):
            log({"method": method, "params": params})
            return self.open_thread(method, params)
        if method == "turn/start":
            return self.start_turn(params)
        if method == "turn/interrupt":
            # Like codex 0.171.0: refused until the turn is active (turn/started sent).
            if self.active is None or params.get("turnId") != self.active:
                raise RpcError("no active turn to interrupt")
            self.interrupted.set()
            return {}
        raise RpcError(f"Invalid request: unknown variant `{method}`")

    def open_thread(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        servers = check_mcp_config(params.get("config"))
        if method == "thread/resume":
            thread_id = str(params.get("threadId"))
            if not re.fullmatch(r"[0-9a-fA-F-]{36}", thread_id):
                raise RpcError(f"invalid session id: {thread_id}")
            if not self.rollout(thread_id).exists():
                raise RpcError(f"no rollout found for thread id {thread_id}")
        else:
            thread_id = str(uuid.uuid4())
            self.rollout(thread_id).parent.mkdir(parents=True, exist_ok=True)
            self.rollout(thread_id).write_text("", encoding="utf-8")
        for name, cfg in servers.items():
            mcp_status(thread_id, name, "starting")
            try:
                self.mcp[name] = McpClient(name, cfg)
            except RpcError as exc:
                if cfg.get("required"):
                    raise
                mcp_status(thread_id, name, "failed", str(exc))
                continue
            mcp_status(thread_id, name, "ready")
        cwd, model = params.get("cwd") or os.getcwd(), params.get("model") or "mock-model"
        path = str(self.rollout(thread_id))
        self.thread = {"id": thread_id, "sessionId": thread_id, "model": model, "path": path}
        self.thread.update(status={"type": "idle"}, cwd=cwd, cliVersion=VERSION, turns=[])
        policy = params.get("approvalPolicy") or "on-request"
        return {"thread": self.thread, "model": model, "cwd": cwd, "approvalPolicy": policy}

    def restore_usage(self, thread_id: str) -> None:
        """Like 0.171.0 after ``thread/resume``: the thread's totals, naming its last turn."""
        lines = self.rollout(thread_id).read_text(encoding="utf-8").splitlines()
        if lines:
            last = json.loads(lines[-1])
            self.tokens = last["tokens"]
            usage = {"total": self.tokens, "last": TURN_TOKENS, "modelContextWindow": 258400}
            params = {"threadId": thread_id, "turnId": last["turn"], "tokenUsage": usage}
            notify("thread/tokenUsage/updated", params)

    def rollout(self, thread_id: str) -> Path:
        return self.home / "sessions" / f"rollout-{thread_id}.jsonl"

    def start_turn(self, params: dict[str, Any]) -> dict[str, Any]:
        if self.thread is None or params.get("threadId") != self.thread["id"]:
            raise RpcError(f"thread not found: {params.get('threadId')}")
        if self.turn_id is not None:
            raise RpcError("a turn is already running")
        inputs = params.get("input", [])
        self.prompt = "".join(i.get("text", "") for i in inputs if i.get("type") == "text")
        self.turn_id = str(uuid.uuid4())
        self.interrupted.clear()
        turn = {"id": self.turn_id, "items": [], "status": "inProgress", "error": None}
        notify("warning", {"threadId": self.thread["id"], "message": MODEL_WARNING})
        return {"turn": turn}

    # --- a turn ---------------------------------------------------------------------------

    def run_turn(self, turn_id: str, prompt: str) -> None:
        assert self.thread is not None
        thread_id = self.thread["id"]
        ids = {"threadId": thread_id, "turnId": turn_id}
        time.sleep(0.05)  # codex takes a moment to set a turn up: interrupts before it are refused
        notify("thread/status/changed", {"threadId": thread_id, "status": {"type": "active"}})
        turn = {"id": turn_id, "items": [], "status": "inProgress"}
        self.active = turn_id
        notify("turn/started", {"threadId": thread_id, "turn": turn})
        content = [{"type": "text", "text": prompt, "text_elements": []}]
        user = {"type": "userMessage", "id": str(uuid.uuid4()), "content": content}
        notify("item/started", {"item": user, **ids})
        notify("item/completed", {"item": user, **ids})
        status, error, text = "completed", None, f"echo: {prompt}"
        if "DIE" in prompt:
            sys.stderr.write("fake codex: fatal: simulated crash\n")
            sys.stderr.flush()
            os._exit(3)
        if "SLOW" in prompt:
            # Streams a little (a message that never completes), then waits to be interrupted.
            delta = {**ids, "itemId": "msg_slow", "delta": "working"}
            notify("item/agentMessage/delta", delta)
            self.interrupted.wait()
            status, text = "interrupted", ""
        elif "FAIL" in prompt:
            error = {"message": "scripted failure", "codexErrorInfo": "other"}
            notify("error", {"error": error, "willRetry": False, **ids})
            status, text = "failed", ""
        elif "RATELIMIT" in prompt:
            spent = {"usedPercent": 100, "windowDurationMins": 300}
            spent["resetsAt"] = int(time.time()) + RESETS_IN_S
            limits = {"limitId": "codex", "limitName": None, "primary": spent, "secondary": None}
            notify("account/rateLimits/updated", {"rateLimits": limits})
            error = {"message": USAGE_LIMIT_MESSAGE, "codexErrorInfo": "usageLimitExceeded"}
            error["additionalDetails"] = None
            notify("error", {"error": error, "willRetry": False, **ids})
            status, text = "failed", ""
        else:
            if "FLAKY" in prompt:
                retry = {"message": "Reconnecting... 1/5 (stream disconnected)"}
                notify("error", {"error": retry, "willRetry": True, **ids})
            if "APPROVE" in prompt:
                text = f"approval: {self.ask_approval(ids)}"
            elif match := re.search(r"CALL (\S+) (\{.*\})", prompt):
                text = self.call_tool(ids, match[1], json.loads(match[2]))
        items = []
        if status == "completed":
            items = [self.agent_message(ids, text)]
            self.tokens = {key: self.tokens[key] + TURN_TOKENS[key] for key in TURN_TOKENS}
            usage = {"total": self.tokens, "last": TURN_TOKENS, "modelContextWindow": 258400}
            notify("thread/tokenUsage/updated", {**ids, "tokenUsage": usage})
        with self.rollout(thread_id).open("a", encoding="utf-8") as f:
            entry = {"turn": turn_id, "prompt": prompt, "status": status, "tokens": self.tokens}
            f.write(json.dumps(entry) + "\n")
        self.turn_id = self.active = None
        notify("thread/status/changed", {"threadId": thread_id, "status": {"type": "idle"}})
        turn = {"id": turn_id, "items": items, "status": status, "error": error}
        notify("turn/completed", {"threadId": thread_id, "turn": turn})

    def agent_message(self, ids: dict[str, str], text: str) -> dict[str, Any]:
        item = {"type": "agentMessage", "id": f"msg_{uuid.uuid4().hex[:8]}", "text": ""}
        notify("item/started", {"item": item, **ids})
        cut = max(1, len(text) // 3)
        for start in range(0, len(text), cut):
            delta = text[start : start + cut]
            notify("item/agentMessage/delta", {**ids, "itemId": item["id"], "delta": delta})
        item = {**item, "text": text}
        notify("item/completed", {"item": item, **ids})
        return item

    def ask_approval(self, ids: dict[str, str]) -> str:
        self.next_id += 1
        request_id = self.next_id
        replies = self.replies.setdefault(request_id, queue.Queue())
        params = {**ids, "itemId": "call_1", "command": "rm -rf build", "reason": None}
        send(
            {"id": request_id, "method": "item/commandExecution/requestApproval", "params": params}
        )
        reply = replies.get(timeout=30)
        return str((reply.get("result") or {}).get("decision", reply.get("error")))

    def call_tool(self, ids: dict[str, str], tool: str, arguments: dict[str, Any]) -> str:
        item: dict[str, Any] = {"type": "mcpToolCall", "id": f"call_{uuid.uuid4().hex[:8]}"}
        item.update(server="idea", tool=tool, arguments=arguments, status="inProgress")
        item.update(result=None, error=None)
        notify("item/started", {"item": item, **ids})
        client = self.mcp.get("idea")
        try:
            if client is None:
                raise RpcError("unknown MCP server 'idea'")
            if client.cfg.get("default_tools_approval_mode") != "approve":
                raise RpcError("MCP tool call requires approval, but approval policy is never")
            timeout = float(client.cfg.get("tool_timeout_sec", 60.0))
            result = client.request("tools/call", {"name": tool, "arguments": arguments}, timeout)
            content = result.get("content") or []
            result = {"content": content, "structuredContent": None, "_meta": None}
            item.update(status="completed", result=result)
            text = "\n".join(c.get("text", "") for c in content if c.get("type") == "text")
        except RpcError as exc:
            item.update(status="failed", error={"message": str(exc)})
            text = f"tool failed: {exc}"
        notify("item/completed", {"item": item, **ids})
        return text

    def close(self) -> None:
        self.interrupted.set()
        for client in self.mcp.values():
            client.close()


def parse_args(argv: list[str]) -> tuple[str | None, dict[str, Any]]:
    command, overrides, args = None, {}, iter(argv)
    for arg in args:
        value = next(args, None) if arg in ("-c", "--config") else None
        if arg.startswith("--config="):
            value = arg.split("=", 1)[1]
        if value is not None:
            key, sep, raw = value.partition("=")
            if not sep:
                raise SystemExit(f"fake codex: -c override without a value: {value!r}")
            try:
                overrides[key] = tomllib.loads(f"v = {raw}")["v"]
            except tomllib.TOMLDecodeError as exc:
                raise SystemExit(f"fake codex: invalid -c override {value!r}: {exc}") from exc
        elif command is None and not arg.startswith("-"):
            command = arg
    return command, overrides


def main() -> int:
    for stream in (sys.stdin, sys.stdout, sys.stderr):
        stream.reconfigure(encoding="utf-8")  # type: ignore[union-attr]
    command, overrides = parse_args(sys.argv[1:])
    log({"argv": sys.argv[1:], "overrides": overrides, "cwd": os.getcwd()})
    if command != "app-server":
        sys.stderr.write(f"fake codex: only `app-server` is implemented, not {command!r}\n")
        return 2
    base = os.environ.get("CODEX_HOME") or os.path.join(os.path.expanduser("~"), ".codex")
    server = Server(Path(base))
    try:
        for line in sys.stdin:
            if line.strip():
                server.handle(json.loads(line))
    finally:
        server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
