"""An in-memory terminal: the fake of the ``TerminalLauncher`` / ``TerminalSession`` ports.

It behaves like a pseudo-terminal with echo on: what is written is echoed to subscribers, and each
complete input line goes to the program's script. Programs are looked up by ``argv[0]`` in the
launcher's table (``echo`` is built in); an unknown name fails to start with ``Unavailable``, like
a program that is not installed. Like the real adapters, all output and the exit are delivered on
later loop iterations (``call_soon``), never inside the call that caused them.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from idea.application.session_ports import TerminalSpec, Unsubscribe
from idea.domain.errors import Invalid, Unavailable
from idea.infrastructure.terminal.scrollback import Scrollback

# What a shell killed by SIGHUP reports.
HANGUP_EXIT = -1


def _nothing(*_: object) -> None:
    return None


@dataclass(frozen=True)
class FakeProgram:
    """A script: ``on_start(session)`` once, then ``on_line(session, line)`` per input line."""

    on_start: Callable[[FakeTerminalSession], None] = _nothing
    on_line: Callable[[FakeTerminalSession, str], None] = _nothing


class FakeTerminalSession:
    def __init__(self, spec: TerminalSpec, program: FakeProgram, pid: int) -> None:
        self.spec = spec
        self.program = program
        self.size = (spec.rows, spec.cols)
        self.written: list[str] = []
        self.stop_calls = 0
        self._pid = pid
        self._loop = asyncio.get_running_loop()
        self._scrollback = Scrollback(spec.scrollback_bytes)
        self._listeners: dict[int, Callable[[str], None]] = {}
        self._exit_listeners: dict[int, Callable[[int], None]] = {}
        self._token = 0
        self._line = ""
        self._exit_code: int | None = None
        self._exiting = False
        self._exited: asyncio.Future[int] = self._loop.create_future()
        self._loop.call_soon(program.on_start, self)

    # -- the port ---------------------------------------------------------------------------

    @property
    def pid(self) -> int:
        return self._pid

    @property
    def exit_code(self) -> int | None:
        return self._exit_code

    def write(self, data: str) -> None:
        if self._exit_code is not None:
            raise Unavailable("the terminal's program has exited")
        self.written.append(data)
        self.emit(data.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\r\n"))
        self._line += data.replace("\r\n", "\n").replace("\r", "\n")
        while "\n" in self._line:
            line, self._line = self._line.split("\n", 1)
            self._loop.call_soon(self._run_line, line)

    def resize(self, rows: int, cols: int) -> None:
        if rows < 1 or cols < 1:
            raise Invalid(f"terminal size must be at least 1x1, got {rows}x{cols}")
        if self._exit_code is None:
            self.size = (rows, cols)

    def subscribe(self, listener: Callable[[str], None]) -> Unsubscribe:
        return self._add(self._listeners, listener)

    def on_exit(self, listener: Callable[[int], None]) -> Unsubscribe:
        if self._exit_code is not None:
            with contextlib.suppress(Exception):
                listener(self._exit_code)
            return _nothing
        return self._add(self._exit_listeners, listener)

    def scrollback(self) -> str:
        return self._scrollback.snapshot().decode("utf-8", "replace")

    async def wait(self) -> int:
        return await asyncio.shield(self._exited)

    async def stop(self) -> None:
        self.stop_calls += 1
        if self._exit_code is None:
            self.exit(HANGUP_EXIT)
        await self.wait()

    # -- scripting --------------------------------------------------------------------------

    def emit(self, text: str) -> None:
        """The program prints ``text`` (delivered on a later loop iteration)."""
        self._loop.call_soon(self._deliver, text)

    def exit(self, code: int) -> None:
        """The program exits with ``code`` after the output emitted so far."""
        if not self._exiting:
            self._exiting = True
            self._loop.call_soon(self._finish, code)

    # -- internals --------------------------------------------------------------------------

    def _add(
        self, registry: dict[int, Callable[..., None]], fn: Callable[..., None]
    ) -> Unsubscribe:
        token = self._token
        self._token += 1
        registry[token] = fn

        def unsubscribe() -> None:
            registry.pop(token, None)

        return unsubscribe

    def _run_line(self, line: str) -> None:
        if not self._exiting:
            self.program.on_line(self, line)

    def _deliver(self, text: str) -> None:
        if self._exit_code is not None:
            return
        self._scrollback.append(text.encode("utf-8"))
        for listener in tuple(self._listeners.values()):
            # Like the real adapters: one failing listener breaks neither the stream nor the others.
            with contextlib.suppress(Exception):
                listener(text)

    def _finish(self, code: int) -> None:
        if self._exit_code is not None:
            return
        self._exit_code = code
        self._exited.set_result(code)
        listeners = tuple(self._exit_listeners.values())
        self._exit_listeners.clear()
        for listener in listeners:
            with contextlib.suppress(Exception):
                listener(code)


class FakeTerminalLauncher:
    """Starts fake programs by name; records every session it started."""

    def __init__(self, programs: Mapping[str, FakeProgram] | None = None) -> None:
        self.programs: dict[str, FakeProgram] = {"echo": FakeProgram(), **(programs or {})}
        self.sessions: list[FakeTerminalSession] = []
        self._next_pid = 40_000

    async def start(self, spec: TerminalSpec) -> FakeTerminalSession:
        if not spec.argv:
            raise Invalid("a terminal needs a program to run")
        if spec.rows < 1 or spec.cols < 1:
            raise Invalid(f"terminal size must be at least 1x1, got {spec.rows}x{spec.cols}")
        program = self.programs.get(spec.argv[0])
        if program is None:
            raise Unavailable(f"cannot start {spec.argv[0]!r}: not found or not executable")
        self._next_pid += 1
        session = FakeTerminalSession(spec, program, self._next_pid)
        self.sessions.append(session)
        return session
