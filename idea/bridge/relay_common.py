"""What the relay and its two drivers (``relay_select``, ``relay_threads``) share: exit codes,
timeouts, the stream protocols and the one stderr line format. ``EXIT_USAGE`` is the whole
``idea`` command's (DESIGN.md §3: bad arguments exit 2); it lives here, stdlib only, because
``idea.cli`` and every light entry point of the bridge may import it."""

from __future__ import annotations

from typing import Protocol, TextIO

EXIT_OK = 0
EXIT_APP_GONE = 1
EXIT_REJECTED = 2
EXIT_USAGE = 2
WELCOME_TIMEOUT = 1.5
DRAIN_S = (
    0.5  # after stdin EOF, answers on their way are awaited this long (clients SIGTERM 2 s on)
)
PREFIX = "idea mcp-server: "
APP_CLOSED = "the IdeA app closed the connection"


class LineReader(Protocol):
    def readline(self) -> bytes: ...


class ByteWriter(Protocol):
    def write(self, data: bytes | memoryview, /) -> int | None: ...

    def flush(self) -> object: ...


def say(stderr: TextIO, text: str) -> None:
    stderr.write(PREFIX + text + "\n")
    stderr.flush()


def app_gone_report(stderr: TextIO, failed: int, broken: str) -> int:
    """The one stderr line when the app went away; returns the exit code."""
    count = f"; {failed} pending request(s) failed" if failed else ""
    say(stderr, f"{APP_CLOSED}{broken}{count}")
    return EXIT_APP_GONE
