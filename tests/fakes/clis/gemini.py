"""A stand-in for ``gemini -p … --output-format stream-json`` (protocols/AGENT_CLI_PROTOCOLS.md §C).

Stdlib only; run as ``python gemini.py --prompt=… --output-format=stream-json …``. It keeps
the real CLI's contract where the adapter depends on it:

- exit 55 with the real message unless ``GEMINI_CLI_TRUST_WORKSPACE=true``;
- exit 41 ``Invalid auth method selected.`` unless the user settings
  (``$GEMINI_CLI_HOME`` or ``$HOME``/.gemini/settings.json) set ``security.auth.selectedType``;
- workspace settings are ``<cwd>/.gemini/settings.json`` (JSON with comments); context files are
  ``GEMINI.md`` (or ``context.fileName``) in the cwd and in ``context.includeDirectories``;
- sessions are kept per cwd under ``$HOME/.gemini/fake-gemini/``: ``--session-id`` of an existing
  session → exit 42 ``Session ID "…" already exists…``; ``--resume`` of an unknown session, or of
  one that holds no message yet → exit 42 ``Invalid session identifier``. As in the real CLI the
  session file exists (empty) before ``init``, and holds the prompt right after the user echo;
- stdout: ``init``, the user ``message``, assistant ``message`` deltas, ``result``, with timestamps.

Replies: ``echo: <prompt>`` in two deltas. Prompts containing ``SLOW`` start a child process and
hang until killed; ``HANG_BEFORE_INIT`` hangs before ``init`` (its session exists but is empty);
``FAIL`` ends with ``result{status: "error"}`` and exit 1; ``RATELIMIT`` ends the same way with
the message 0.61.0 prints for a quota 429 it does not retry (``… Please retry in 3600s.``);
``TOOL`` reports a call of the ``idea`` server's ``ping`` tool first; ``WARN`` emits a warning
``error`` event first. Every run's ``result.stats`` are ``STATS`` (zeros for a refused one).

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
import uuid
from pathlib import Path

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
    sessions = home / ".gemini" / "fake-gemini" / hashlib.sha256(str(cwd).encode()).hexdigest()[:16]
    sessions.mkdir(parents=True, exist_ok=True)

    session_id = args.session_id or args.resume or str(uuid.uuid4())
    session_file = sessions / f"{session_id}.json"
    exists = session_file.exists()
    history = json.loads(session_file.read_text(encoding="utf-8")) if exists else []
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
    if args.session_id and exists:
        print(
            f'Error starting session: Session ID "{session_id}" already exists. Use --resume '
            "to resume it, or provide a different ID.",
            file=sys.stderr,
        )
        return 42
    if args.resume and not history:
        print(
            f'Error resuming session: Invalid session identifier "{session_id}".\n'
            f"  Searched for sessions in {sessions}.\n"
            "  Use --list-sessions to see available sessions, then use --resume {number}, "
            "--resume {uuid}, or --resume latest.",
            file=sys.stderr,
        )
        return 42
    save(session_file, history)

    prompt = args.prompt
    if "HANG_BEFORE_INIT" in prompt:
        hang()
    emit("init", session_id=session_id, model=args.model)
    emit("message", role="user", content=prompt)
    history.append({"role": "user", "content": prompt})
    save(session_file, history)
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
    reply = f"echo: {prompt}"
    half = len(reply) // 2
    emit("message", role="assistant", content=reply[:half], delta=True)
    emit("message", role="assistant", content=reply[half:], delta=True)
    history.append({"role": "model", "content": reply})
    save(session_file, history)
    emit("result", status="success", stats={**STATS, "tool_calls": int("TOOL" in prompt)})
    return 0


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


def save(path: Path, history: list) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(history), encoding="utf-8")
    os.replace(tmp, path)


def log(**fields: object) -> None:
    target = os.environ.get("FAKE_GEMINI_LOG")
    if target:
        with open(target, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(fields) + "\n")


if __name__ == "__main__":
    # The real CLI (node) writes UTF-8 whatever the platform; a Windows python's pipe is cp1252.
    sys.stdout.reconfigure(encoding="utf-8")  # type: ignore[attr-defined]
    sys.exit(main())
