"""A stand-in for Claude Code 2.1.332 in ``-p`` stream-json mode (AGENT_CLI_PROTOCOLS.md §A).

Standard library only; run it as ``python claude.py <flags>``. It behaves as the real CLI
was observed to, for the part IdeA uses:

* flags parsed like the real one (``--mcp-config``/``--allowedTools`` are variadic unless given
  as ``--flag=value``), and refused with the real messages and exit 1: stream-json output
  without ``--verbose``, a missing ``--mcp-config`` file (a prompt swallowed by the variadic flag
  ends up there), an unknown option, an unknown ``--resume`` id (stderr, then an error
  ``result`` line);
* one JSON line per message on stdin (``user`` lines, ``control_request`` ``initialize`` and
  ``interrupt``); per turn ``system/init`` (``session_id``, ``mcp_servers`` read from the
  ``--mcp-config`` files, plus ``<cwd>/.mcp.json`` unless ``--strict-mcp-config``: ``connected``
  if the command exists, else ``failed``), assistant/user lines, then one ``result``;
  ``command_lifecycle`` lines around the turn when the user line has a ``uuid``;
* transcripts in ``$CLAUDE_CONFIG_DIR`` or ``$HOME/.claude``: ``projects/<cwd>/<id>.jsonl``, so
  ``--resume=<id>`` keeps the id; the appended system prompt is recorded on a conversation's first
  request and the record wins over a later launch's text, unless ``--system-prompt-snapshot off``;
* at stdin EOF it exits once its turn is over: 0 if the last turn succeeded, else 1.

The "model" is a script keyed on words in the prompt: ``SLOW`` never finishes until interrupted,
``STUCK`` never finishes at all (interrupts are acknowledged, then ignored), ``FAIL`` ends with an
API-error result (``subtype: success``, ``is_error: true``), ``RATELIMIT`` ends with a 429 error
result after a rejected ``rate_limit_event`` whose window resets in ``RESETS_IN_S``, ``CRASH``
writes to stderr and exits 3
mid-turn, ``USE_TOOL`` shows a scripted ``mcp__idea__ping`` call answered ``pong`` (no real call),
``WHAT_CONTEXT`` answers ``context: <appended system prompt in effect>``, ``MARKDOWN`` answers
``MARKDOWN_REPLY`` (headings, a table, code, a task list), ``HOSTILE`` answers ``HOSTILE_REPLY``
(markup that would run script if a UI let it), ``ONE_LINE_REPLY <n>`` answers ``one_line(n)``
(one line of ``n`` characters, no newline); anything else is answered ``echo: <prompt>``.
With ``STREAM`` in the prompt too, the answer comes in ``STREAM_PIECE``-character assistant
messages ``STREAM_PAUSE_S`` apart, as a reply being written; ``ONE_LINE_REPLY <n> STREAM [<k>]``
comes in ``k``-character pieces (default ``LINE_PIECE``) with no pause, as fast as they are read.
``HUGE_REPLY <MB>`` answers ``<MB>`` megabytes (10**6 bytes of ASCII, ``huge_text``) in
``HUGE_PIECE``-byte assistant messages, the whole text in the ``result``; ``HUGE_LINE <MB>``
answers them in one assistant message (one line of that size), repeated in the ``result``, as the
real CLI prints a long message.

Usage as 2.1.332 reports it: every answered turn's ``result.usage`` is ``TURN_USAGE`` and costs
``TURN_COST``; ``total_cost_usd`` is the conversation's running total (recorded in the transcript,
so a ``--resume`` carries it on) and ``model_usage_since_last_result`` the turn's own.

With ``FAKE_CLAUDE_ARGV_LOG`` set, each start appends ``{"argv": [...], "cwd": ...}`` to that file.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import time
import uuid
from pathlib import Path

VERSION = "2.1.332"
MODEL = "claude-sonnet-4-5"
BUILTIN_TOOLS = ["Task", "Bash", "Glob", "Grep", "Read", "Edit", "Write", "WebFetch"]
TURN_USAGE = {
    "input_tokens": 40,
    "cache_creation_input_tokens": 3,
    "cache_read_input_tokens": 6,
    "output_tokens": 12,
}
TURN_COST = 0.0025
RESETS_IN_S = 3600
STREAM_PIECE, STREAM_PAUSE_S = 9, 0.01
LINE_PIECE = 16_384
HUGE_PIECE = 64 * 1024
HUGE = re.compile(r"HUGE_(REPLY|LINE) (\d+(?:\.\d+)?)")
NO_USAGE = dict.fromkeys(TURN_USAGE, 0)
MARKDOWN_REPLY = """## Plan for `parse()`

The parser in `src/parser.py` ignores **quoting** and *whitespace*.

| Case | Input | Expected |
| --- | --- | ---: |
| plain | `a,b` | `["a", "b"]` |
| quoted | `"a,b",c` | `["a,b", "c"]` |

```python
import csv

def parse(line: str) -> list[str]:
    return [f.strip() for f in next(csv.reader([line]))]
```

- [x] strip whitespace
- [ ] honour quotes

> Note: `csv.reader` handles the quoting rules.

See the [csv module docs](https://docs.python.org/3/library/csv.html)."""
# Each line would set ``window.__pwned`` (or hide the app) if the UI ran what an agent writes.
HOSTILE_REPLY = """# Hostile

<script>window.__pwned = "script"</script>

<img src=x onerror="window.__pwned = 'img'">

<svg onload="window.__pwned = 'svg'"></svg>

<iframe src="javascript:parent.__pwned = 'iframe'"></iframe>

<style>.chat-view, .cell { display: none !important }</style>

<details open ontoggle="window.__pwned = 'details'">x</details>

<a href="javascript:window.__pwned = 'html-link'">html link</a>

[md link](javascript:window.__pwned='md-link')

[data link](data:text/html;base64,PHNjcmlwdD5wYXJlbnQuX19wd25lZD0xPC9zY3JpcHQ+)

![pixel](https://127.0.0.1:9/pixel.png)

<div style="position:fixed;inset:0;background:red">cover the app</div>

[web link](https://example.com/docs)

```"><img src=x onerror="window.__pwned = 'fence'">
code
```

END OF HOSTILE"""

LINE_START, LINE_END = "LINE_START ", " LINE_END"


def one_line(n: int) -> str:
    """``n`` characters (the two markers at least) on one line: start, words, end."""
    words = "lorem ipsum dolor sit amet " * (n // 27 + 1)
    return LINE_START + words[: max(0, n - len(LINE_START) - len(LINE_END))] + LINE_END


# flag -> (option name, arity): "bool", "value", "optional" (value if the next arg is not a
# flag) or "variadic" (one value, then every following arg that does not start with "-").
FLAGS = {
    "-p": ("print", "bool"),
    "--print": ("print", "bool"),
    "--verbose": ("verbose", "bool"),
    "--strict-mcp-config": ("strict_mcp_config", "bool"),
    "--include-partial-messages": ("include_partial_messages", "bool"),
    "--replay-user-messages": ("replay_user_messages", "bool"),
    "--input-format": ("input_format", "value"),
    "--output-format": ("output_format", "value"),
    "--append-system-prompt": ("append_system_prompt", "value"),
    "--system-prompt": ("system_prompt", "value"),
    "--system-prompt-snapshot": ("system_prompt_snapshot", "value"),
    "--model": ("model", "value"),
    "--permission-mode": ("permission_mode", "value"),
    "--settings": ("settings", "value"),
    "-r": ("resume", "optional"),
    "--resume": ("resume", "optional"),
    "--mcp-config": ("mcp_config", "variadic"),
    "--allowedTools": ("allowed_tools", "variadic"),
    "--allowed-tools": ("allowed_tools", "variadic"),
    "--disallowedTools": ("disallowed_tools", "variadic"),
}


class Refused(Exception):
    """A launch the real CLI refuses: message on stderr, exit 1."""


def parse_args(args: list[str]) -> tuple[dict, list[str]]:
    """Commander's rules, as the real CLI applies them."""
    opts: dict = {"mcp_config": [], "allowed_tools": [], "disallowed_tools": []}
    positional: list[str] = []
    variadic: str | None = None
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if arg == "--":
            positional += rest
            break
        if variadic is not None and not arg.startswith("-"):
            opts[variadic].append(arg)
            continue
        variadic = None
        name, eq, value = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        key, arity = FLAGS.get(name, (None, None))
        if eq and arity in ("value", "optional", "variadic"):
            # ``--flag=value`` never continues a variadic option: the safe form.
            opts[key] = [*opts[key], value] if arity == "variadic" else value
        elif not arg.startswith("-") or arg == "-":
            positional.append(arg)
        elif eq or key is None:
            raise Refused(f"error: unknown option '{arg}'")
        elif arity == "bool":
            opts[key] = True
        elif arity == "optional":
            opts[key] = rest.pop(0) if rest and not rest[0].startswith("-") else True
        elif not rest:
            raise Refused(f"error: option '{arg} <value>' argument missing")
        elif arity == "value":
            opts[key] = rest.pop(0)
        else:
            opts[key].append(rest.pop(0))
            variadic = key
    return opts, positional


def validate(opts: dict, positional: list[str]) -> None:
    snapshot = opts.get("system_prompt_snapshot", "on")
    if snapshot not in ("on", "off"):
        raise Refused(
            f"error: option '--system-prompt-snapshot <on|off>' argument '{snapshot}' is "
            "invalid. Allowed choices are on, off."
        )
    output_format = opts.get("output_format", "text")
    input_format = opts.get("input_format", "text")
    if opts.get("print") and output_format == "stream-json" and not opts.get("verbose"):
        raise Refused("Error: When using --print, --output-format=stream-json requires --verbose")
    if input_format not in ("text", "stream-json"):
        raise Refused(f'Error: Unknown input format "{input_format}".')
    if input_format == "stream-json" and output_format != "stream-json":
        raise Refused("Error: --input-format=stream-json requires output-format=stream-json.")
    if input_format == "stream-json" and not opts.get("print"):
        raise Refused("Error: --input-format=stream-json requires --print.")
    if input_format != "stream-json" or positional or opts.get("resume") is True:
        # Not part of what this fake imitates: say so instead of pretending.
        raise Refused("fake_claude: only -p with stream-json input/output and no prompt argument")


def load_mcp(opts: dict, cwd: Path) -> tuple[list[dict], list[dict]]:
    """``(mcp_servers, mcp_server_errors)`` as ``system/init`` reports them."""
    declared: dict[str, tuple[object, str]] = {}
    project_file = cwd / ".mcp.json"
    if not opts.get("strict_mcp_config") and project_file.is_file():
        config = json.loads(project_file.read_text(encoding="utf-8"))
        declared |= {n: (e, "project") for n, e in (config.get("mcpServers") or {}).items()}
    errors: list[str] = []
    for value in opts["mcp_config"]:
        try:
            config = json.loads(value)
        except ValueError:
            path = Path(cwd, value).resolve()
            if not path.is_file():
                errors.append(f"MCP config file not found: {path}")
                continue
            config = json.loads(path.read_text(encoding="utf-8"))
        servers = config.get("mcpServers") if isinstance(config, dict) else None
        if not isinstance(servers, dict):
            errors.append("mcpServers: Invalid input: expected record, received undefined")
            continue
        declared |= {name: (entry, "dynamic") for name, entry in servers.items()}
    if errors:
        raise Refused("Error: Invalid MCP configuration:\n" + "\n".join(errors))
    statuses, problems = [], []
    for name, (entry, source) in declared.items():
        command = entry.get("command") if isinstance(entry, dict) else None
        if not isinstance(command, str):
            message = f'Skipped — invalid MCP server config for "{name}": '
            message += "command: expected string, received undefined"
            problems.append({"name": name, "type": "invalid_config", "message": message})
            continue
        found = shutil.which(command) or (os.path.isabs(command) and os.access(command, os.X_OK))
        status = "connected" if found else "failed"
        statuses.append({"name": name, "status": status, "source": source})
    return statuses, problems


def huge_text(size: int) -> str:
    """``size`` bytes of numbered lines, so that a cut can be seen where it falls."""
    lines, total, n = [], 0, 0
    while total < size:
        line = f"line {n:09d} of a huge reply\n"
        lines.append(line)
        total, n = total + len(line), n + 1
    return "".join(lines)[:size]


def emit(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")
    sys.stdout.flush()


class Cli:
    def __init__(self, opts: dict, cwd: Path) -> None:
        self.opts = opts
        self.cwd = cwd
        self.mcp_servers, self.mcp_errors = load_mcp(opts, cwd)
        self.session_id = str(uuid.uuid4())
        self.hanging: dict | None = None  # the turn of a SLOW/STUCK prompt
        self.queued: list[dict] = []  # user lines sent while a turn runs
        self.last_ok = True
        self.num_results = 0
        self.total_cost = 0.0

    @property
    def transcript(self) -> Path:
        base = os.environ.get("CLAUDE_CONFIG_DIR") or str(Path.home() / ".claude")
        folder = re.sub(r"[^A-Za-z0-9]", "-", str(self.cwd))
        return Path(base) / "projects" / folder / f"{self.session_id}.jsonl"

    def open_session(self) -> None:
        resume = self.opts.get("resume")
        if not resume:
            return
        self.session_id = resume
        if self.transcript.exists():
            for line in self.transcript.read_text(encoding="utf-8").splitlines():
                entry = json.loads(line)
                if entry.get("type") == "cost":
                    self.total_cost = entry["total"]  # a resume carries the total on
        else:
            message = f"No conversation found with session ID: {resume}"
            sys.stderr.write(message + "\n")
            sys.stderr.flush()
            emit(
                {"type": "result", "subtype": "error_during_execution", "duration_ms": 0}
                | {"is_error": True, "num_turns": 0, "stop_reason": None, "session_id": resume}
                | {"errors": [message], "uuid": str(uuid.uuid4()), "result_index": 0}
            )
            raise SystemExit(1)

    def record(self, entry: dict) -> None:
        self.transcript.parent.mkdir(parents=True, exist_ok=True)
        with self.transcript.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps({**entry, "sessionId": self.session_id}) + "\n")

    def appended_prompt(self) -> str:
        """The appended system prompt in effect: the recorded one unless snapshots are off."""
        current = self.opts.get("append_system_prompt", "")
        if self.opts.get("system_prompt_snapshot") == "off":
            return current
        if self.transcript.exists():
            for line in self.transcript.read_text(encoding="utf-8").splitlines():
                entry = json.loads(line)
                if entry.get("type") == "system-prompt-snapshot":
                    return entry["append"]
        self.record({"type": "system-prompt-snapshot", "append": current})
        return current

    # --- stdin ---

    def handle(self, line: dict) -> None:
        if line.get("type") == "control_request":
            self.control(line.get("request_id"), (line.get("request") or {}).get("subtype"))
        elif line.get("type") == "user":
            if self.hanging is not None:
                self.queued.append(line)
            else:
                self.turn(line)

    def control(self, request_id: str | None, subtype: str | None) -> None:
        if subtype not in ("initialize", "interrupt"):
            error = f"Unsupported control request subtype: {subtype}"
            response = {"subtype": "error", "request_id": request_id, "error": error}
            emit({"type": "control_response", "response": response})
            return
        body = {"still_queued": []} if subtype == "interrupt" else {"commands": []}
        response = {"subtype": "success", "request_id": request_id, "response": body}
        emit({"type": "control_response", "response": response})
        turn = self.hanging
        if subtype == "interrupt" and turn is not None and "STUCK" not in turn["prompt"]:
            self.hanging = None
            self.message(turn, "user", [{"type": "text", "text": "[Request interrupted by user]"}])
            diagnostic = "[ede_diagnostic] result_type=user last_content_type=n/a stop_reason=null"
            self.result(turn, "error_during_execution", None, "aborted_streaming", [diagnostic])
            self.lifecycle(turn, "cancelled")
            while self.hanging is None and self.queued:
                self.turn(self.queued.pop(0))

    # --- turns ---

    def common(self) -> dict:
        return {"session_id": self.session_id, "uuid": str(uuid.uuid4())}

    def lifecycle(self, turn: dict, state: str) -> None:
        if turn["uuid"]:
            line = {"type": "command_lifecycle", "command_uuid": turn["uuid"], "state": state}
            emit(line | self.common())

    def turn(self, line: dict) -> None:
        message = line.get("message") or {}
        content = message.get("content")
        prompt = (
            content
            if isinstance(content, str)
            else "".join(b.get("text", "") for b in content or [] if b.get("type") == "text")
        )
        turn = {"uuid": line.get("uuid"), "prompt": prompt, "started": time.monotonic()}
        self.record({"type": "user", "message": message})
        self.lifecycle(turn, "queued")
        self.lifecycle(turn, "started")
        connected = [s["name"] for s in self.mcp_servers if s["status"] == "connected"]
        init = {
            "type": "system",
            "subtype": "init",
            "cwd": str(self.cwd),
            "tools": BUILTIN_TOOLS + [f"mcp__{name}__ping" for name in connected],
            "mcp_servers": self.mcp_servers,
            "model": self.opts.get("model") or MODEL,
            "permissionMode": "default",
            "claude_code_version": VERSION,
        }
        if self.mcp_errors:
            init["mcp_server_errors"] = self.mcp_errors
        emit(init | self.common())
        if "SLOW" in prompt or "STUCK" in prompt:
            self.hanging = turn
            return
        if "CRASH" in prompt:
            sys.stderr.write("fake_claude: simulated crash in the middle of a turn\n")
            sys.stderr.flush()
            os._exit(3)
        if "FAIL" in prompt:
            text = "API Error: 500 scripted failure"
            self.message(turn, "assistant", [{"type": "text", "text": text}], error="api_error")
            self.result(turn, "success", text, "api_error", is_error=True)
            return
        if "RATELIMIT" in prompt:
            info = {"status": "rejected", "resetsAt": int(time.time()) + RESETS_IN_S}
            info["rateLimitType"] = "five_hour"
            emit({"type": "rate_limit_event", "rate_limit_info": info} | self.common())
            text = "API Error: Request rejected (429) · You've hit your limit"
            self.message(turn, "assistant", [{"type": "text", "text": text}], error="rate_limit")
            self.result(turn, "success", text, "api_error", is_error=True, status=429)
            return
        if "USE_TOOL" in prompt:
            tool_id = f"toolu_fake_{uuid.uuid4().hex[:8]}"
            use = {"type": "tool_use", "id": tool_id, "name": "mcp__idea__ping", "input": {}}
            self.message(turn, "assistant", [use])
            pong = [{"type": "text", "text": "pong"}]
            result = {"tool_use_id": tool_id, "type": "tool_result", "content": pong}
            self.message(turn, "user", [result])
        context = self.appended_prompt()
        text = f"context: {context}" if "WHAT_CONTEXT" in prompt else f"echo: {prompt}"
        if "MARKDOWN" in prompt:
            text = MARKDOWN_REPLY
        elif "HOSTILE" in prompt:
            text = HOSTILE_REPLY
        step, pause = STREAM_PIECE, STREAM_PAUSE_S
        if one := re.search(r"ONE_LINE_REPLY (\d+)(?: STREAM (\d+))?", prompt):
            text = one_line(int(one[1]))
            step, pause = int(one[2] or LINE_PIECE), 0.0
        huge = HUGE.search(prompt)
        if huge:
            text = huge_text(int(float(huge[2]) * 10**6))
            piece = HUGE_PIECE if huge[1] == "REPLY" else len(text)
            for start in range(0, len(text), piece):
                self.message(
                    turn, "assistant", [{"type": "text", "text": text[start : start + piece]}]
                )
        elif "STREAM" in prompt:
            for start in range(0, len(text), step):
                piece = text[start : start + step]
                self.message(turn, "assistant", [{"type": "text", "text": piece}])
                time.sleep(pause)
        else:
            self.message(turn, "assistant", [{"type": "text", "text": text}])
        self.result(turn, "success", text, "completed")

    def message(self, turn: dict, role: str, content: list[dict], **extra: str) -> None:
        message: dict = {"role": role, "content": content}
        line: dict = {"type": role, "parent_tool_use_id": None, **extra}
        if role == "assistant":
            model = "<synthetic>" if extra.get("error") else self.opts.get("model") or MODEL
            message |= {"id": f"msg_fake_{uuid.uuid4().hex[:8]}", "type": "message"}
            message |= {"model": model, "stop_reason": None}
            if turn["uuid"]:
                line["user_message_uuid"] = turn["uuid"]
        self.record({"type": role, "message": message})
        emit(line | {"message": message} | self.common())

    def result(
        self,
        turn: dict,
        subtype: str,
        text: str | None,
        reason: str,
        errors: list[str] | None = None,
        is_error: bool | None = None,
        status: int | None = None,
    ) -> None:
        failed = errors is not None if is_error is None else is_error
        answered = not failed
        cost = TURN_COST if answered else 0.0
        self.total_cost = round(self.total_cost + cost, 10)
        self.record({"type": "cost", "total": self.total_cost})
        since = {MODEL: {"inputTokens": TURN_USAGE["input_tokens"], "costUSD": cost}}
        line: dict = {"type": "result", "subtype": subtype, "is_error": failed}
        line |= {"duration_ms": int((time.monotonic() - turn["started"]) * 1000), "num_turns": 1}
        line |= {"stop_reason": "end_turn" if text is not None else None}
        line |= {"total_cost_usd": self.total_cost, "usage": TURN_USAGE if answered else NO_USAGE}
        line |= {"model_usage_since_last_result": since if answered else {}}
        line |= {"permission_denials": [], "terminal_reason": reason}
        if status is not None:
            line |= {"api_error_status": status, "api_error_type": "rate_limit_error"}
        line |= {"result_index": self.num_results}
        if text is not None:  # error results carry ``errors`` instead of ``result``
            line["result"] = text
        if errors is not None:
            line["errors"] = errors
        if turn["uuid"]:
            line |= {"user_message_uuid": turn["uuid"], "user_message_uuids": [turn["uuid"]]}
        emit(line | self.common())
        self.num_results += 1
        self.last_ok = not failed
        if not failed:
            self.lifecycle(turn, "completed")

    def run(self) -> int:
        for raw in sys.stdin.buffer:
            text = raw.decode("utf-8", errors="replace").strip()
            try:
                line = json.loads(text) if text else None
            except ValueError:
                sys.stderr.write(f"fake_claude: not JSON on stdin: {text[:80]}\n")
                continue
            if isinstance(line, dict):
                self.handle(line)
        while self.hanging is not None:  # the CLI finishes its turn before exiting: never
            time.sleep(3600)
        return 0 if self.last_ok else 1


def main(args: list[str]) -> int:
    log = os.environ.get("FAKE_CLAUDE_ARGV_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"argv": args, "cwd": os.getcwd()}) + "\n")
    try:
        opts, positional = parse_args(args)
        validate(opts, positional)
        cli = Cli(opts, Path.cwd())
        cli.open_session()
    except Refused as exc:
        sys.stderr.write(f"{exc}\n")
        return 1
    return cli.run()


if __name__ == "__main__":
    sys.stdout.reconfigure(encoding="utf-8")  # type: ignore[attr-defined]
    raise SystemExit(main(sys.argv[1:]))
