"""``idea mcp-server --endpoint E --project P --requester A --key-file K`` (DESIGN.md §9.2).

Invariants: nothing but JSON-RPC lines ever reaches stdout (``sys.stdout`` is pointed at stderr
before anything else can print); every failure before the relay starts is one stderr line and an
exit code within ~2 s of start (2: bad arguments, unreadable key, rejected; 1: app unreachable or
not authenticated); SIGINT and SIGTERM end the process at once, whatever it is waiting on.
Start-up time matters (one bridge per agent CLI): only stdlib, msgpack and ``idea.endpoint``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections.abc import Sequence
from types import FrameType
from typing import NamedTuple

from idea.bridge.channel import ConnectError, connect
from idea.bridge.relay import PREFIX, relay
from idea.bridge.relay_common import EXIT_USAGE

EXIT_UNREACHABLE = 1
HANDSHAKE_BUDGET = 1.5  # seconds from start to welcome: connect, proof, hello
DUMP_MODULES_ENV = "IDEA_BRIDGE_DUMP_MODULES"
OPTIONS = ("--endpoint", "--project", "--requester", "--key-file")
USAGE = "usage: idea mcp-server --endpoint E --project P --requester A --key-file K"


class Options(NamedTuple):
    endpoint: str
    project: str
    requester: str
    key_file: str


class UsageError(Exception):
    """Bad command line; ``str(exc)`` names the option."""


def parse_options(argv: Sequence[str]) -> Options:
    """``--opt value`` or ``--opt=value`` for each of the four options, each exactly once."""
    values: dict[str, str] = {}
    args = list(argv)
    i = 0
    while i < len(args):
        arg = args[i]
        name, equals, value = arg.partition("=")
        if name not in OPTIONS:
            raise UsageError(f"unknown argument {arg!r} ({USAGE})")
        if not equals:
            if i + 1 >= len(args) or args[i + 1] in OPTIONS:
                raise UsageError(f"{name} needs a value")
            i += 1
            value = args[i]
        if not value:
            raise UsageError(f"{name} must not be empty")
        if name in values:
            raise UsageError(f"{name} is given twice")
        values[name] = value
        i += 1
    for name in OPTIONS:
        if name not in values:
            raise UsageError(f"missing {name}")
    return Options(*(values[name] for name in OPTIONS))


def read_key(path: str) -> bytes:
    try:
        with open(path, "rb") as file:
            key = file.read()
    except OSError as exc:
        raise UsageError(f"cannot read --key-file {path}: {exc.strerror or exc}") from None
    if not key:
        raise UsageError(f"--key-file {path} is empty")
    return key


class _Stop(BaseException):
    """SIGINT/SIGTERM, raised in the main thread to unwind whatever it waits on."""


def _on_signal(signum: int, frame: FrameType | None) -> None:
    # A second signal while unwinding (Claude sends SIGINT then SIGTERM): leave at once.
    for stop in _stop_signals():
        signal.signal(stop, _exit_now)
    raise _Stop(signum)


def _exit_now(signum: int, frame: FrameType | None) -> None:
    os._exit(0)


def _stop_signals() -> list[signal.Signals]:
    names = ("SIGINT", "SIGTERM", "SIGHUP")
    return [getattr(signal, name) for name in names if hasattr(signal, name)]


def _say(text: str) -> None:
    sys.stderr.write(PREFIX + text + "\n")
    sys.stderr.flush()


def main(argv: Sequence[str]) -> int:
    """Run the bridge; returns the process exit code."""
    start = time.monotonic()
    for stop in _stop_signals():
        signal.signal(stop, _on_signal)
    try:
        return _run(argv, start)
    except _Stop:
        return 0
    finally:
        _dump_modules()


def _run(argv: Sequence[str], start: float) -> int:
    if list(argv[:1]) in (["-h"], ["--help"]):
        _say(USAGE)
        return 0
    # Keep the real stdout for JSON-RPC, unbuffered (nothing left to flush at exit), and send
    # any stray print to stderr.
    stdout_fd = 1
    if sys.stdout is not None:
        sys.stdout.flush()
        stdout_fd = sys.stdout.fileno()
    sys.stdout = sys.stderr
    try:
        options = parse_options(argv)
        key = read_key(options.key_file)
    except UsageError as exc:
        _say(str(exc))
        return EXIT_USAGE
    try:
        channel = connect(options.endpoint, key, options.requester, timeout=_remaining(start))
    except ConnectError as exc:
        _say(str(exc))
        return EXIT_UNREACHABLE
    stdin = open(0, "rb", closefd=False)  # noqa: SIM115  (only its descriptor is used on POSIX)
    stdout = open(stdout_fd, "wb", buffering=0, closefd=False)  # noqa: SIM115
    if hasattr(os, "set_blocking"):
        with contextlib.suppress(OSError):
            os.set_blocking(stdout_fd, True)
    return relay(
        stdin,
        stdout,
        channel,
        sys.stderr,
        project=options.project,
        requester=options.requester,
        welcome_timeout=max(_remaining(start), 0.1),
    )


def _remaining(start: float) -> float:
    return max(HANDSHAKE_BUDGET - (time.monotonic() - start), 0.05)


def _dump_modules() -> None:
    """Tests: write the loaded module names to ``$IDEA_BRIDGE_DUMP_MODULES`` at exit."""
    path = os.environ.get(DUMP_MODULES_ENV)
    if path:
        with open(path, "w", encoding="utf-8") as file:
            file.write("\n".join(sorted(sys.modules)) + "\n")
