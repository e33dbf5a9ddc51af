"""A stand-in for ``opencode run --format=json`` (1.18.33), stdlib only.

Run as ``python opencode.py run --format=json [--session=<id>] [--model=<m>]``. It keeps the
real CLI's contract where the adapter depends on it: the prompt is read from stdin until it is
closed; every event is one JSON line naming the session (``sessionID``): a new ``ses_…`` id, or
the one ``--session`` gives; a turn is ``step_start``, ``text`` and ``step_finish`` (its
``tokens`` and ``cost``), and ends when the process exits. There is no closing event.

Replies: ``echo: <prompt>``. A prompt containing ``SLOW`` prints ``step_start`` and hangs until
killed; ``FAIL`` prints an ``error`` event and exits 1; ``RATELIMIT`` does the same with the
HTTP 429 an OpenCode provider reports (``retry-after: 3600``), as if OpenCode gave up on it.

Each run appends one JSON line to ``$FAKE_OPENCODE_LOG`` (if set) once it has read its prompt:
argv, pid, session and prompt. With ``$FAKE_OPENCODE_GATE`` set, a run first appends
``{"waiting": pid}`` and reads nothing until a file exists at that path (a long prompt then
fills the pipe and its writer waits).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import uuid

RESETS_IN_S = 3600
# ``input`` without the cache, as 1.18.33 counts it.
TOKENS = {"total": 59, "input": 42, "output": 9, "reasoning": 0, "cache": {"read": 8, "write": 0}}


def main() -> int:
    parser = argparse.ArgumentParser(prog="opencode", allow_abbrev=False)
    parser.add_argument("command", choices=["run"])
    parser.add_argument("--format", default="default")
    parser.add_argument("--session")
    parser.add_argument("--model")
    args = parser.parse_args()
    log = os.environ.get("FAKE_OPENCODE_LOG")
    gate = os.environ.get("FAKE_OPENCODE_GATE")
    if gate:
        _append(log, {"waiting": os.getpid()})
        while not os.path.exists(gate):
            time.sleep(0.01)
    prompt = sys.stdin.read()
    session = args.session or f"ses_{uuid.uuid4().hex[:26]}"
    _append(log, {"argv": sys.argv[1:], "pid": os.getpid(), "session": session, "prompt": prompt})

    def emit(kind: str, **fields: object) -> None:
        event = {"type": kind, "timestamp": int(time.time() * 1000), "sessionID": session}
        print(json.dumps({**event, **fields}), flush=True)

    emit("step_start", part={"type": "step-start", "id": "prt_1"})
    if "SLOW" in prompt:
        while True:
            time.sleep(3600)
    if "FAIL" in prompt or "RATELIMIT" in prompt:
        data: dict[str, object] = {"message": "Bad request: the fake refuses", "statusCode": 400}
        if "RATELIMIT" in prompt:
            headers = {"retry-after": str(RESETS_IN_S)}
            data = {"message": "Rate limit reached", "statusCode": 429, "responseHeaders": headers}
        emit("error", error={"name": "APIError", "data": data})
        return 1
    emit("text", part={"type": "text", "text": f"echo: {prompt}"})
    part = {"type": "step-finish", "reason": "stop", "tokens": TOKENS, "cost": 0}
    emit("step_finish", part=part)
    return 0


def _append(log: str | None, entry: dict[str, object]) -> None:
    if log:
        with open(log, "a", encoding="utf-8") as out:
            out.write(json.dumps(entry) + "\n")


if __name__ == "__main__":
    sys.exit(main())
