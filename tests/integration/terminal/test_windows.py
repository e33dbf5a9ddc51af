"""The terminal contract against the Windows adapter over a real ConPTY (pywinpty), plus what
only Windows can show: a shim or a missing ``.exe`` is refused, the console's own handles are
left as they were."""

from __future__ import annotations

import os
import sys
import textwrap

import pytest

from idea.application.session_ports import TerminalSpec
from idea.domain.errors import Unavailable
from tests.contracts.terminal_session_contract import (
    Output,
    TerminalSessionContract,
    sentinel,
    wait_exit,
)
from tests.windows_lane import under_wine, windows_only

if sys.platform == "win32":
    from idea.infrastructure.terminal.windows import WindowsPtyLauncher

pytestmark = windows_only


class PythonPrograms:
    """The contract's programs, as the Windows python (a real .exe) running small scripts."""

    def __init__(self, cwd: str) -> None:
        self.cwd = cwd
        self.env = {
            key: value
            for key, value in os.environ.items()
            if key.upper() in {"PATH", "SYSTEMROOT", "TEMP", "TMP", "USERPROFILE", "PATHEXT"}
        }
        self.env["PYTHONIOENCODING"] = "utf-8"

    def python(self, script: str, *args: str) -> TerminalSpec:
        argv = (sys.executable, "-c", textwrap.dedent(script), *args)
        return TerminalSpec(argv, self.cwd, self.env)

    def echo_line(self) -> TerminalSpec:
        return self.python("line = input(); print('got:' + line, flush=True)")

    def exit_with(self, code: int) -> TerminalSpec:
        return self.python(f"raise SystemExit({code})")

    def long_running(self, ready: str) -> TerminalSpec:
        return self.python(
            "import sys, time; print(sys.argv[1], flush=True); time.sleep(1000)", ready
        )

    def missing(self, name: str) -> TerminalSpec:
        return TerminalSpec((name,), self.cwd, self.env)


@pytest.fixture
def launcher():
    return WindowsPtyLauncher(grace_s=0.3)


@pytest.fixture
def programs(tmp_path):
    return PythonPrograms(str(tmp_path))


class TestWindowsConPtyContract(TerminalSessionContract):
    @pytest.mark.xfail(
        under_wine(),
        reason="wine 8's console draws a character outside the BMP as two U+FFFD; the program "
        "gets it intact (test_a_character_outside_the_bmp_reaches_the_program)",
        strict=True,
    )
    async def test_unicode_goes_both_ways_intact(self, start, programs):
        await super().test_unicode_goes_both_ways_intact(start, programs)


async def test_a_character_outside_the_bmp_reaches_the_program(launcher, programs):
    session = await launcher.start(
        programs.python("line = input(); print('got:' + ascii(line), flush=True)")
    )
    try:
        out = Output(session)
        session.write("smile 🙂 中文\n")
        await out.wait_for("got:'smile \\U0001f642 \\u4e2d\\u6587'")
        assert await wait_exit(session) == 0
    finally:
        await session.stop()


async def test_a_cmd_shim_is_refused_naming_it(launcher, programs, tmp_path):
    shim = tmp_path / "tool.cmd"
    shim.write_text("@echo off\r\necho hi\r\n", encoding="utf-8")
    with pytest.raises(Unavailable, match=r"not a real \.exe"):
        await launcher.start(TerminalSpec((str(shim),), programs.cwd, programs.env))


async def test_the_parents_std_handles_are_restored(launcher, programs):
    import ctypes  # noqa: PLC0415

    kernel32 = ctypes.WinDLL("kernel32")
    kernel32.GetStdHandle.restype = ctypes.c_void_p
    before = [kernel32.GetStdHandle(n) for n in (-10, -11, -12)]
    ready = sentinel()
    session = await launcher.start(programs.long_running(ready))
    try:
        out = Output(session)
        await out.wait_for(ready)
        assert [kernel32.GetStdHandle(n) for n in (-10, -11, -12)] == before
    finally:
        await session.stop()


async def test_output_of_a_child_reaches_the_terminal(launcher, programs):
    ready = sentinel()
    session = await launcher.start(
        programs.python(
            "import subprocess, sys; subprocess.run([sys.executable, '-c', "
            f"'print(\"{ready}\", flush=True)']); print('parent-done', flush=True)"
        )
    )
    try:
        out = Output(session)
        await out.wait_for(ready)
        await out.wait_for("parent-done")
        assert await wait_exit(session) == 0
    finally:
        await session.stop()


async def test_a_folder_and_arguments_outside_ascii_reach_the_program(launcher, programs, tmp_path):
    folder = tmp_path / "Mes projets" / "项目 été"
    folder.mkdir(parents=True)
    spec = programs.python(
        "import os, sys; print('cwd:' + ascii(os.getcwd()), 'arg:' + ascii(sys.argv[1]), "
        "flush=True)",
        'un "argument" été 中',
    )
    # Wide: a wrapped line would cut the texts looked for.
    session = await launcher.start(TerminalSpec(spec.argv, str(folder), spec.env, cols=500))
    try:
        out = Output(session)
        await out.wait_for("arg:'un \"argument\" \\xe9t\\xe9 \\u4e2d'")
        assert f"cwd:{str(folder)!a}" in out.text
        assert await wait_exit(session) == 0
    finally:
        await session.stop()
