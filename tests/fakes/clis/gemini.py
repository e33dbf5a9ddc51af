"""A stand-in for ``gemini -p … --output-format stream-json`` (protocols/AGENT_CLI_PROTOCOLS.md §C).

Stdlib only; run as ``python gemini.py --prompt=… --output-format=stream-json …``. It keeps
the real CLI's contract where the adapter depends on it:

- exit 55 with the real message unless ``GEMINI_CLI_TRUST_WORKSPACE=true``;
- exit 41 ``Invalid auth method selected.`` unless the user settings
  (``$GEMINI_CLI_HOME`` or ``$HOME``/.gemini/settings.json) set ``security.auth.selectedType``;
- workspace settings are ``<cwd>/.gemini/settings.json`` (JSON with comments); context files are
  ``GEMINI.md`` (or ``context.fileName``) in the cwd and in ``context.includeDirectories``;
- sessions are files as 0.61.0 writes them: JSON lines in
  ``$HOME/.gemini/tmp/<slug>/chats/session-<YYYY-MM-DDTHH-MM>-<id[:8]>.jsonl`` (``<slug>`` for the
  cwd, named in ``<slug>/.project_root``; ``$FAKE_GEMINI_MINUTE`` replaces the minute), replayed
  like the CLI replays them: a message by id, ``$set`` merging (its ``messages`` replace all).
  ``--session-id`` of an existing session → exit 42 ``Session ID "…" already exists…``;
  ``--resume`` when no file holds a resumable message (a prompt, not the ``<session_context>``,
  or a reply) → exit 42 ``No previous sessions found for this project.``, of an unknown session →
  exit 42 ``Invalid session identifier``. Every run first records itself as a new session (a
  header and ``$set`` of the session context alone) under the current minute's name, which is the
  resumed file itself within the minute it began; a resumed run then writes the history back
  (``$set`` of all its messages) before ``init``. A run killed before that has left nothing to
  resume, as the real CLI's does. The prompt is recorded right after the user echo;
- stdout: ``init``, the user ``message``, assistant ``message`` deltas, ``result``, with timestamps.

Replies: ``echo: <prompt>`` in two deltas. Prompts containing ``SLOW`` start a child process and
hang until killed; ``HANG_BEFORE_INIT`` hangs before ``init`` (its session holds no message yet);
``HANG_WHILE_RESUMING`` hangs, on a resumed run, before the history is written back (and appends
``{"hanging": "resuming", "pid": …}`` to the log);
``FAIL`` ends with ``result{status: "error"}`` and exit 1; ``RATELIMIT`` ends the same way with
the message 0.61.0 prints for a quota 429 it does not retry (``… Please retry in 3600s.``);
``TOOL`` reports a call of the ``idea`` server's ``ping`` tool first; ``WARN`` emits a warning
``error`` event first; ``HUGE_REPLY <MB>`` answers ``<MB>`` megabytes (10**6 bytes of numbered
ASCII lines) in ``HUGE_PIECE``-byte deltas, as a long reply streams. An answered run lingers
``$FAKE_GEMINI_LINGER_S`` seconds after its result before it exits, as the real CLI does under
load while it saves its session. Every run's ``result.stats`` are ``STATS`` (zeros for a refused
one).

Each run that gets past the trust and auth checks appends one JSON line to ``$FAKE_GEMINI_LOG``
(if set): argv, cwd, pid, the ``idea`` server it found, the include directories, the context
files it read and the history of the session it asked for; ``SLOW`` appends ``{"child": pid}``
once its child runs.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import re
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

HUGE = re.compile(r"HUGE_REPLY (\d+(?:\.\d+)?)")
HUGE_PIECE = 64 * 1024

UNTRUSTED = (
    "\x1b[31mGemini CLI is not running in a trusted directory. To proceed, either use "
    "`--skip-trust`, set the `GEMINI_CLI_TRUST_WORKSPACE=true` environment variable, or trust "
    "this directory in interactive mode. For more details, see "
    "https://geminicli.com/docs/cli/trusted-folders/#headless-and-automated-environments\x1b[0m"
)
RESETS_IN_S = 3600
QUOTA_MESSAGE = (
    "[API Error: Quota exceeded for metric: generate_content_requests, limit: 10. Please retry "
    f"in {RESETS_IN_S}s.]\nPlease wait and try again later. To increase your limits, request a "
    "quota increase through AI Studio, or switch to another /auth method"
)
# As 0.61.0 prints them: ``input_tokens`` counts the cached ones, ``input`` does not.
STATS = {"total_tokens": 59, "input_tokens": 50, "output_tokens": 9, "cached": 8, "input": 42}
NO_STATS = dict.fromkeys(STATS, 0)
SESSION_CONTEXT = [{"text": "<session_context>\nThis is the fake Gemini CLI.\n</session_context>"}]
_COMMENT = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.DOTALL)


def main() -> int:
    parser = argparse.ArgumentParser(prog="gemini", allow_abbrev=False)
    parser.add_argument("-p", "--prompt")
    parser.add_argument("-o", "--output-format", default="text")
    parser.add_argument("-m", "--model", default="auto")
    parser.add_argument("--session-id")
    parser.add_argument("-r", "--resume")
    parser.add_argument("--include-directories", action="append", default=[])
    parser.add_argument("--approval-mode", choices=["default", "auto_edit", "yolo", "plan"])
    args = parser.parse_args()
    if args.prompt is None or args.output_format != "stream-json":
        print("fake_gemini only knows -p with --output-format stream-json", file=sys.stderr)
        return 42
    if os.environ.get("GEMINI_CLI_TRUST_WORKSPACE") != "true":
        print(UNTRUSTED, file=sys.stderr)
        return 55
    home = Path(os.environ.get("GEMINI_CLI_HOME") or os.environ["HOME"])
    user = read_settings(home / ".gemini" / "settings.json")
    if not user.get("security", {}).get("auth", {}).get("selectedType"):
        print("Invalid auth method selected.", file=sys.stderr)
        return 41
    cwd = Path.cwd()
    workspace = read_settings(cwd / ".gemini" / "settings.json")
    include = [*workspace.get("context", {}).get("includeDirectories", [])]
    include += [d for arg in args.include_directories for d in arg.split(",")]
    chats = chats_dir(home, cwd)
    session_id = args.session_id or args.resume or str(uuid.uuid4())
    resumable = resumable_sessions(chats)
    resumed = resumable.get(session_id)
    restored = replay(resumed) if resumed else []  # read before this run writes anything
    history = conversation(restored)
    log(
        argv=sys.argv[1:],
        cwd=str(cwd),
        pid=os.getpid(),
        session_id=session_id,
        history=history,
        idea_server=workspace.get("mcpServers", {}).get("idea"),
        mcp_servers=sorted(workspace.get("mcpServers", {})),
        include_directories=include,
        context_files=context_files(workspace, user, [str(cwd), *include]),
    )
    if args.session_id and any(session_id_of(f) == session_id for f in files_of(chats, session_id)):
        print(
            f'Error starting session: Session ID "{session_id}" already exists. Use --resume '
            "to resume it, or provide a different ID.",
            file=sys.stderr,
        )
        return 42
    if args.resume and not resumable:
        print(
            "Error resuming session: No previous sessions found for this project.", file=sys.stderr
        )
        return 42
    if args.resume and resumed is None:
        print(
            f'Error resuming session: Invalid session identifier "{session_id}".\n'
            f"  Searched for sessions in {chats}.\n"
            "  Use --list-sessions to see available sessions, then use --resume {number}, "
            "--resume {uuid}, or --resume latest.",
            file=sys.stderr,
        )
        return 42

    # As the real CLI does: a new session is recorded first, the resumed one restored after.
    now = os.environ.get("FAKE_GEMINI_MINUTE") or datetime.datetime.now(datetime.UTC).strftime(
        "%Y-%m-%dT%H-%M"
    )
    fresh = chats / f"session-{now}-{session_id[:8]}.jsonl"
    append(fresh, {"sessionId": session_id, "projectHash": project_hash(cwd), **stamped()})
    append(fresh, {"$set": {"messages": [message("user", SESSION_CONTEXT)], **stamped()}})
    session_file = fresh
    prompt = args.prompt
    if resumed is not None:
        if "HANG_WHILE_RESUMING" in prompt:
            log(hanging="resuming", pid=os.getpid())
            hang()
        session_file = resumed
        append(session_file, {"$set": {"sessionId": session_id}})
        append(session_file, {"$set": {"messages": restored, **stamped()}})
    if "HANG_BEFORE_INIT" in prompt:
        hang()
    emit("init", session_id=session_id, model=args.model)
    emit("message", role="user", content=prompt)
    append(session_file, message("user", [{"text": prompt}]))
    if "SLOW" in prompt:
        child = subprocess.Popen(
            [sys.executable, "-c", "import time; time.sleep(3600)"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
        )
        log(child=child.pid)
        hang()
    if "WARN" in prompt:
        emit("error", severity="warning", message="Loop detected, stopping execution")
    if "TOOL" in prompt:
        tool_id = "mcp_idea_ping__mcp_idea_ping_1_0"
        emit("tool_use", tool_name="mcp_idea_ping", tool_id=tool_id, parameters={})
        emit("tool_result", tool_id=tool_id, status="success", output="pong")
    if "FAIL" in prompt:
        emit("result", status="error", error={"type": "Error", "message": "scripted failure"})
        return 1
    if "RATELIMIT" in prompt:
        error = {"type": "unknown", "message": QUOTA_MESSAGE}
        emit("result", status="error", error=error, stats={**NO_STATS, "tool_calls": 0})
        return 1
    huge = HUGE.search(prompt)
    if huge:
        reply = huge_text(int(float(huge[1]) * 10**6))
        for start in range(0, len(reply), HUGE_PIECE):
            emit("message", role="assistant", content=reply[start : start + HUGE_PIECE], delta=True)
        append(session_file, message("gemini", reply[:1000]))
    else:
        reply = f"echo: {prompt}"
        half = len(reply) // 2
        emit("message", role="assistant", content=reply[:half], delta=True)
        emit("message", role="assistant", content=reply[half:], delta=True)
        append(session_file, message("gemini", reply))
    emit("result", status="success", stats={**STATS, "tool_calls": int("TOOL" in prompt)})
    # The real CLI still saves and flushes after its result: under load that takes seconds.
    time.sleep(float(os.environ.get("FAKE_GEMINI_LINGER_S") or 0))
    return 0


def huge_text(size: int) -> str:
    """``size`` bytes of numbered lines, so that a cut can be seen where it falls."""
    lines, total, n = [], 0, 0
    while total < size:
        line = f"line {n:09d} of a huge reply\n"
        lines.append(line)
        total, n = total + len(line), n + 1
    return "".join(lines)[:size]


def emit(kind: str, **fields: object) -> None:
    now = datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds")
    line = {"type": kind, "timestamp": now.replace("+00:00", "Z"), **fields}
    sys.stdout.write(json.dumps(line, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def hang() -> None:
    threading.Event().wait()


def read_settings(path: Path) -> dict:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    value = json.loads(_COMMENT.sub(lambda m: m[0] if m[0].startswith('"') else " ", text))
    return value if isinstance(value, dict) else {}


def context_files(workspace: dict, user: dict, folders: list[str]) -> dict[str, str]:
    names = workspace.get("context", {}).get("fileName") or user.get("context", {}).get("fileName")
    names = names if isinstance(names, list) else [names or "GEMINI.md"]
    found = {}
    for folder in folders:
        for name in names:
            path = Path(folder) / name
            if path.is_file():
                found[str(path)] = path.read_text(encoding="utf-8")
    return found


def chats_dir(home: Path, cwd: Path) -> Path:
    """``<home>/.gemini/tmp/<slug>/chats`` for ``cwd``, its ``.project_root`` written."""
    slug = f"{cwd.name or 'project'}-{project_hash(cwd)[:8]}"
    folder = home / ".gemini" / "tmp" / slug
    (folder / "chats").mkdir(parents=True, exist_ok=True)
    (folder / ".project_root").write_text(str(cwd), encoding="utf-8")
    return folder / "chats"


def project_hash(cwd: Path) -> str:
    return hashlib.sha256(str(cwd).encode()).hexdigest()


def files_of(chats: Path, session_id: str) -> list[Path]:
    return sorted(chats.glob(f"session-*-{session_id[:8]}.jsonl"))


def records(path: Path) -> list[dict]:
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue  # a line cut short by a kill: the real CLI skips it too
        if isinstance(record, dict):
            found.append(record)
    return found


def session_id_of(path: Path) -> str | None:
    return next((r["sessionId"] for r in records(path) if "sessionId" in r), None)


def replay(path: Path) -> list[dict]:
    """The session's messages as the CLI replays its file."""
    messages: dict[str, dict] = {}
    for record in records(path):
        if isinstance(record.get("id"), str):
            messages[record["id"]] = record
        elif isinstance(record.get("$set"), dict) and "messages" in record["$set"]:
            messages = {m["id"]: m for m in record["$set"]["messages"]}
    return list(messages.values())


def conversation(messages: list[dict]) -> list[dict]:
    """What the session holds, as the log shows it: the prompts and replies."""
    turns = []
    for m in messages:
        text = m["content"] if isinstance(m["content"], str) else m["content"][0]["text"]
        if not text.startswith("<session_context>"):
            turns.append({"role": "user" if m["type"] == "user" else "model", "content": text})
    return turns


def resumable_sessions(chats: Path) -> dict[str, Path]:
    """Session id → the newest file holding a resumable message (as ``--resume`` lists them)."""
    found: dict[str, Path] = {}
    for path in sorted(chats.glob("session-*.jsonl"), key=lambda p: p.stat().st_mtime_ns):
        session_id = session_id_of(path)
        if session_id and conversation(replay(path)):
            found[session_id] = path
    return found


def stamped() -> dict:
    now = datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds")
    return {"lastUpdated": now.replace("+00:00", "Z")}


def message(kind: str, content: object) -> dict:
    now = stamped()["lastUpdated"]
    return {"id": str(uuid.uuid4()), "timestamp": now, "type": kind, "content": content}


def append(path: Path, record: dict) -> None:
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(record) + "\n")


def log(**fields: object) -> None:
    target = os.environ.get("FAKE_GEMINI_LOG")
    if target:
        with open(target, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(fields) + "\n")


if __name__ == "__main__":
    # The real CLI (node) writes UTF-8 whatever the platform; a Windows python's pipe is cp1252.
    sys.stdout.reconfigure(encoding="utf-8")  # type: ignore[attr-defined]
    sys.exit(main())
