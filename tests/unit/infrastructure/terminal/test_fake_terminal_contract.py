"""The terminal contract run against the in-memory fake, plus the fake's scripting hooks."""

from __future__ import annotations

import pytest

from idea.application.session_ports import TerminalSpec
from tests.contracts.terminal_session_contract import Output, TerminalSessionContract, wait_exit
from tests.fakes.ports.terminal import FakeProgram, FakeTerminalLauncher, FakeTerminalSession


def _echo_line(session: FakeTerminalSession, line: str) -> None:
    session.emit(f"got:{line}\r\n")
    session.exit(0)


PROGRAMS = {
    "read-line": FakeProgram(on_line=_echo_line),
    "exit-with": FakeProgram(on_start=lambda s: s.exit(int(s.spec.argv[1]))),
    "long-running": FakeProgram(on_start=lambda s: s.emit(f"{s.spec.argv[1]}\r\n")),
}


def spec(*argv: str) -> TerminalSpec:
    return TerminalSpec(argv=argv, cwd="/project", env={})


class FakePrograms:
    def echo_line(self) -> TerminalSpec:
        return spec("read-line")

    def exit_with(self, code: int) -> TerminalSpec:
        return spec("exit-with", str(code))

    def long_running(self, ready: str) -> TerminalSpec:
        return spec("long-running", ready)

    def missing(self, name: str) -> TerminalSpec:
        return spec(name)


class TestFakeTerminalContract(TerminalSessionContract):
    @pytest.fixture
    def launcher(self):
        return FakeTerminalLauncher(PROGRAMS)

    @pytest.fixture
    def programs(self):
        return FakePrograms()


async def test_the_echo_program_echoes_and_records_what_is_written():
    launcher = FakeTerminalLauncher()
    session = await launcher.start(spec("echo"))
    out = Output(session)
    session.write("ls\r")
    await out.wait_for("ls\r\n")
    assert session.written == ["ls\r"]
    assert launcher.sessions == [session]
    session.resize(30, 100)
    assert session.size == (30, 100)
    await session.stop()
    assert session.stop_calls == 1
    assert await wait_exit(session) == session.exit_code
