"""The server's screen of a real TUI: Claude Code and Codex drawn in a pseudo-terminal (offline,
against the mock model), their output followed lazily by ``TerminalScreen`` as the UI server does,
and its snapshot drawn anew gives the screen an emulator that parsed every byte shows.

The TUIs draw what they like (a welcome, a trust question, the prompt box): the test asserts no
particular screen, only that the snapshot is that screen, whole, and that the screen is not blank.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

import ptyprocess
import pytest

from idea.infrastructure.terminal.screen import TerminalScreen
from idea.infrastructure.terminal.utf8 import Utf8Stream
from idea.infrastructure.terminal.vt import VtScreen, VtStream
from tests.real_cli.clis import kill_tree, missing_reason, setup_claude, setup_codex
from tests.real_cli.mock_model import MockModel, echo_reply

pytestmark = pytest.mark.slow

ROWS, COLS = 30, 100
SETTLE_S = 1.5  # a TUI that printed nothing for this long has drawn its screen


def rows_of(screen: VtScreen) -> list[str]:
    return [
        "".join(screen.buffer[y][x].data for x in range(screen.columns)).rstrip()
        for y in range(screen.lines)
    ]


def drawn(text: str) -> VtScreen:
    screen = VtScreen(COLS, ROWS)
    VtStream(screen).feed(text)
    return screen


def run_tui(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[str, str]:
    """What the TUI printed until it settled: (every byte, decoded; the lazy screen's snapshot),
    the lazy screen following it as the server's does."""
    proc = ptyprocess.PtyProcessUnicode.spawn(argv, env=env, cwd=str(cwd), dimensions=(ROWS, COLS))
    lazy = TerminalScreen(ROWS, COLS)
    decoder = Utf8Stream()
    seen: list[str] = []
    try:
        os.set_blocking(proc.fd, False)
        deadline = time.monotonic() + 60
        quiet_since = time.monotonic()
        while time.monotonic() < deadline:
            try:
                data = os.read(proc.fd, 65536)
            except BlockingIOError:
                data = b""
            except OSError:
                break
            if data:
                text = decoder.feed(data)
                seen.append(text)
                lazy.feed(text)
                quiet_since = time.monotonic()
            elif seen and time.monotonic() - quiet_since > SETTLE_S:
                break
            else:
                time.sleep(0.02)
        return "".join(seen), lazy.snapshot()
    finally:
        kill_tree(proc.pid)  # and reaps it: only our side of the terminal is left to close
        with contextlib.suppress(OSError):
            proc.fileobj.close()


@pytest.mark.timeout(120)
@pytest.mark.parametrize("cli", ["claude", "codex"])
def test_the_snapshot_of_a_real_tui_is_the_screen_it_drew(cli: str, tmp_path: Path) -> None:
    if reason := missing_reason(cli):
        pytest.skip(reason)
    with MockModel(respond=echo_reply) as mock:
        setup = (setup_claude if cli == "claude" else setup_codex)(mock.url, tmp_path)
        env = {**setup.env, "TERM": "xterm-256color", "COLUMNS": str(COLS), "LINES": str(ROWS)}
        everything, snapshot = run_tui(setup.argv(), env, setup.cwd)
    truth = drawn(everything)
    assert any(row.strip() for row in rows_of(truth)), f"{cli} drew nothing: {everything[-500:]!r}"
    shown = drawn(snapshot)
    assert rows_of(shown) == rows_of(truth)
    assert (shown.cursor.x, shown.cursor.y) == (truth.cursor.x, truth.cursor.y)
    assert shown.alternate == truth.alternate  # the TUI's own buffer, if it took one
