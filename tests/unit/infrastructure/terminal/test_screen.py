from __future__ import annotations

import json
from pathlib import Path

import pyte
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from pyte import modes as mo
from pyte.screens import Char

from idea.domain.errors import Invalid
from idea.infrastructure.terminal.screen import (
    FOLLOW_BUDGET,
    TerminalScreen,
    tail_bound,
    tail_start,
)
from idea.infrastructure.terminal.vt import VtScreen, VtStream

pytestmark = pytest.mark.timeout(60)

ROWS, COLS = 6, 12


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def csi(*params: int, final: str, private: bool = False) -> str:
    return "\x1b[" + ("?" if private else "") + ";".join(map(str, params)) + final


small = st.integers(min_value=0, max_value=8)
position = st.integers(min_value=0, max_value=14)
colour = st.integers(min_value=0, max_value=255)


def sgr_from(index: st.SearchStrategy[int], odd: list[int]) -> st.SearchStrategy[str]:
    """SGR sequences, their 256-colour indexes drawn from ``index``, odd ones from ``odd``."""
    return st.one_of(
        st.sampled_from([0, 1, 3, 4, 5, 7, 9, 22, 23, 24, 25, 27, 29, 39, 49]).map(lambda a: [a]),
        st.integers(30, 37).map(lambda a: [a]),
        st.integers(40, 47).map(lambda a: [a]),
        st.integers(90, 97).map(lambda a: [a]),
        st.integers(100, 107).map(lambda a: [a]),
        st.tuples(st.sampled_from([38, 48]), index).map(lambda t: [t[0], 5, t[1]]),
        st.tuples(st.sampled_from([38, 48]), colour, colour, colour).map(
            lambda t: [t[0], 2, *t[1:]]
        ),
        st.lists(st.sampled_from(odd), max_size=5),  # cut or odd
    ).map(lambda params: csi(*params, final="m"))


# Not 300: pyte keeps 38;2;0;0;300 as "000012c", a colour no terminal has (the snapshot drops it).
sgr = sgr_from(colour, [0, 1, 2, 5, 38, 48, 255])
text = st.one_of(
    st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), min_size=1, max_size=30),
    st.sampled_from(["中", "文字", "🙂", "👍x", "é", "e\u0301", "ß", "\u200b", "a\x01b"]),
    st.text(st.sampled_from("─│╭╮✓●é中🙂 ab"), min_size=1, max_size=12),
)
moves = st.one_of(
    st.sampled_from(["\r", "\n", "\b", "\t", "\r\n", "\x1bD", "\x1bM", "\x1bE"]),
    st.tuples(st.sampled_from("ABCDGd"), small).map(lambda t: csi(t[1], final=t[0])),
    st.tuples(position, position).map(lambda t: csi(*t, final="H")),
)
erase = st.one_of(
    st.tuples(st.sampled_from("JK"), st.integers(0, 2)).map(lambda t: csi(t[1], final=t[0])),
    st.tuples(st.sampled_from("X@PLM"), small).map(lambda t: csi(t[1], final=t[0])),
)
MODES = [1, 6, 7, 12, 25, 1000, 1006, 2004]
modes = st.one_of(
    st.tuples(st.sampled_from(MODES), st.sampled_from("hl")).map(
        lambda t: csi(t[0], final=t[1], private=True)
    ),
    st.tuples(st.sampled_from([4, 20]), st.sampled_from("hl")).map(lambda t: csi(t[0], final=t[1])),
    st.tuples(position, position).map(lambda t: csi(*t, final="r")),
    st.just("\x1b[r"),
    st.sampled_from(["\x1b7", "\x1b8"]),
)
alternate = st.tuples(st.sampled_from([47, 1047, 1049]), st.sampled_from("hl")).map(
    lambda t: csi(t[0], final=t[1], private=True)
)
# Sequences pyte refuses (it raises), ignores, or reads its own way; and a cut one.
odd = st.sampled_from(
    [
        "\x1b[?1;2H",
        "\x1b[1;2;3H",
        "\x1b[>4;2m",
        "\x1b[?u",
        "\x1b[5 q",
        "\x1b[1$p",
        "\x9b2J",
        "\x9b?25l",
        "\x1b]0;title\x07",
        "\x1b[3\r1m",
        "\x1b[1?h",
        "\x1b[",
        "\x1b",
    ]
)
common = st.one_of(text, text, text, sgr, moves, moves, erase, modes, odd)
stream_without_alt = st.lists(common, max_size=60).map("".join)
stream = st.lists(st.one_of(common, alternate), max_size=60).map("".join)


class PyteStream(pyte.Stream):
    """pyte's own parser, going on past the sequences it raises on."""

    def _send_to_parser(self, data):
        try:
            return super()._send_to_parser(data)
        except Exception:
            return True


def feed(screen: pyte.Screen, data: str) -> pyte.Screen:
    VtStream(screen).feed(data)
    return screen


def cells(screen: pyte.Screen, buffer: dict | None = None) -> list[list[tuple]]:
    buffer = screen.buffer if buffer is None else buffer
    rows = []
    for y in range(screen.lines):
        line = buffer.get(y)
        rows.append([tuple(line[x]) if line else tuple(screen.default_char) for x in range(COLS)])
    return rows


def raw_state(screen: pyte.Screen) -> tuple:
    cursor = screen.cursor
    return (
        cells(screen),
        (cursor.x, cursor.y, tuple(cursor.attrs), cursor.hidden),
        sorted(screen.mode),
        screen.margins,
        [(s.cursor.x, s.cursor.y, tuple(s.cursor.attrs)) for s in screen.savepoints],
    )


def wide(cell: tuple) -> bool:
    return bool(cell[0]) and pyte.screens.wcwidth(cell[0][0]) == 2


def visible(row: list[tuple]) -> list[tuple]:
    """A stub ("") not drawn by the wide character on its left can only be shown as a blank."""
    out = []
    for x, cell in enumerate(row):
        attached = x > 0 and wide(row[x - 1]) and row[x - 1][1:] == cell[1:]
        out.append((" ", *cell[1:]) if cell[0] == "" and not attached else cell)
    return out


def orphans(screen: VtScreen) -> bool:
    buffers = [screen.buffer, screen.main_buffer or {}]
    return any(visible(row) != row for b in buffers for row in cells(screen, b))


def shown_state(screen: VtScreen) -> tuple:
    """What a snapshot promises: cells as shown, cursor, pen, modes, margins, which buffer."""
    cursor = screen.cursor
    main = None if screen.main_buffer is None else cells(screen, screen.main_buffer)
    x = cursor.x if cursor.x < screen.columns else "pending wrap"
    kept = [m for m in sorted(screen.mode) if m in (mo.IRM, mo.LNM) or m >> 5 in [*MODES, 66]]
    return (
        [visible(row) for row in cells(screen)],
        None if main is None else [visible(row) for row in main],
        (x, cursor.y, tuple(cursor.attrs)),
        kept,  # the cursor's visibility is mode 25 (pyte's DECRC also restores a stale copy)
        screen.margins,
        screen.alternate,
    )


def replay(snapshot: str) -> VtScreen:
    return feed(VtScreen(COLS, ROWS), snapshot)


# -- the fast draw is pyte's draw ----------------------------------------------------------------


class PyteDraw(VtScreen):
    """This screen with pyte's own draw: the rest (alternate screen, erase) is the same."""

    draw = pyte.Screen.draw


# What the screen does as pyte does (it erases and deletes lines as xterm does, see VtScreen).
pyte_odd = odd.filter(lambda seq: not seq.endswith("J"))
# pyte keeps the 256-colour indexes below 16 as hex, the screen as the themed colours they name.
pyte_sgr = sgr_from(st.integers(16, 255), [0, 1, 2, 38, 48, 255])
pyte_stream = st.lists(
    st.one_of(text, text, text, pyte_sgr, moves, moves, modes, pyte_odd), max_size=60
)


@settings(max_examples=400, deadline=None)
@given(stream)
def test_fast_draw_is_pyte_draw(data):
    assert raw_state(feed(VtScreen(COLS, ROWS), data)) == raw_state(
        feed(PyteDraw(COLS, ROWS), data)
    )


@settings(max_examples=300, deadline=None)
@given(pyte_stream.map("".join))
def test_the_screen_is_plain_pyte_where_it_does_not_mean_to_differ(data):
    assert raw_state(feed(VtScreen(COLS, ROWS), data)) == raw_state(
        feed(pyte.Screen(COLS, ROWS), data)
    )


@pytest.mark.parametrize(
    ("params", "same_as"),
    [
        ((38, 5, 1), (31,)),
        ((48, 5, 9), (101,)),
        ((1, 38, 5, 15, 4), (1, 97, 4)),
        ((38, 5, 1, 48, 5, 0), (31, 40)),
        ((48, 5, 13, 38, 2, 1, 2, 3, 7), (105, 38, 2, 1, 2, 3, 7)),
        ((38, 5, 16), (38, 5, 16)),  # the cube and the greys: pyte's hex is exact
        ((38, 5), (38, 5)),  # cut, or odd: as pyte reads them
        ((38, 5, 300), (38, 5, 300)),
        ((38, 2, 1, 2), (38, 2, 1, 2)),
        ((38, 1, 31), (38, 1, 31)),
        ((5, 38, 7), (5, 38, 7)),
    ],
)
def test_indexes_below_16_are_the_themed_colours_they_name(params, same_as):
    ours = feed(VtScreen(COLS, ROWS), csi(*params, final="m")).cursor.attrs
    assert ours == feed(pyte.Screen(COLS, ROWS), csi(*same_as, final="m")).cursor.attrs


def test_erase_blanks_every_cell_with_the_background_only_as_xterm_does():
    screen = feed(VtScreen(4, 2), "ab\x1b[44;4;7m\x1b[2J")
    assert {screen.buffer[y][x] for y in range(2) for x in range(4)} == {
        Char(" ", bg="blue")
    }  # pyte: only "a" and "b" blanked, underlined and reversed
    feed(screen, "\x1b[m\x1b[H\x1b[K\x1b[41mx\x1b[1X")
    assert [screen.buffer[0][x] for x in range(3)] == [
        Char("x", bg="red"),
        Char(" ", bg="red"),
        Char(" "),
    ]
    assert feed(screen, "\x1b[3J").buffer[0][0].data == "x"  # the scrollback's, not the screen's


def test_a_line_deleted_from_under_an_unwritten_one_is_emptied():
    screen = feed(VtScreen(4, 3), "a\r\nb\x1b[H\x1b[M")
    assert screen.display == ["b   ", "    ", "    "]  # pyte: ["b   ", "b   ", "    "]


@settings(max_examples=400, deadline=None)
@given(st.lists(stream_without_alt, max_size=4))
def test_the_csi_fast_path_is_pyte_parser(chunks):
    fast, slow = pyte.Screen(COLS, ROWS), pyte.Screen(COLS, ROWS)
    fast_stream, slow_stream = VtStream(fast), PyteStream(slow)
    for chunk in chunks:  # a sequence may be cut between two chunks
        fast_stream.feed(chunk)
        slow_stream.feed(chunk)
    assert raw_state(fast) == raw_state(slow)
    assert (fast.title, fast.icon_name) == (slow.title, slow.icon_name)


@pytest.mark.parametrize("wrap", ["", "\x1b[?7l"])
@pytest.mark.parametrize("insert", ["", "\x1b[4h"])
def test_long_ascii_runs_wrap_and_stop_at_the_last_column_like_pyte(wrap, insert):
    data = wrap + insert + "\x1b[3;5H" + "x" * 50 + "\x1b[1mtail" + "中" + "abc" * 9
    assert raw_state(feed(VtScreen(COLS, ROWS), data)) == raw_state(
        feed(PyteDraw(COLS, ROWS), data)
    )


def test_a_zero_width_character_drops_the_rest_of_the_run_as_pyte_does():
    data = "ab\u200bcd\r\nnext"
    assert raw_state(feed(VtScreen(COLS, ROWS), data)) == raw_state(
        feed(PyteDraw(COLS, ROWS), data)
    )
    assert feed(VtScreen(COLS, ROWS), data).display[0].rstrip() == "ab"


# -- snapshot round trip -------------------------------------------------------------------------


@settings(max_examples=400, deadline=None)
@given(stream)
def test_snapshot_redraws_the_same_screen(data):
    screen = TerminalScreen(ROWS, COLS)
    screen.feed(data)
    original = feed(VtScreen(COLS, ROWS), data)
    assert shown_state(replay(screen.snapshot())) == shown_state(original)


@settings(max_examples=300, deadline=None)
@given(stream, stream.map(lambda s: s.replace("\x1b8", "")))
def test_what_follows_a_snapshot_draws_as_it_would_have(before, after):
    original = feed(VtScreen(COLS, ROWS), before)
    assume(not orphans(original))
    screen = TerminalScreen(ROWS, COLS)
    screen.feed(before)
    replayed = replay(screen.snapshot())
    assert shown_state(feed(replayed, after)) == shown_state(feed(original, after))


def test_the_snapshot_is_compact_and_never_ends_a_row_with_a_newline():
    screen = TerminalScreen(24, 80)
    screen.feed("\x1b[32mgreen green green\x1b[m plain\r\n" * 30)
    snap = screen.snapshot()
    assert "\n" not in snap
    assert snap.count("\x1b[32m") == 23  # once a row, not once a cell (the last row is empty)
    assert len(snap) < 24 * 40


def test_colours_256_and_truecolor_are_kept():
    screen = TerminalScreen(3, 20)
    screen.feed("\x1b[38;5;196ma\x1b[48;5;21mb\x1b[38;2;1;2;3mc\x1b[48;2;250;128;0md\x1b[93me")
    screen.feed("\x1b[38;5;9;48;5;4mf")  # the themed 16: as the program named them
    snap = screen.snapshot()
    assert "38;5;196" in snap and "48;5;21" in snap
    assert "38;2;1;2;3" in snap and "48;2;250;128;0" in snap
    assert "91;44" in snap
    line = replay_sized(snap, 3, 20).buffer[0]
    fg = ["ff0000", "ff0000", "010203", "010203", "brightbrown", "brightred"]
    assert [line[x].fg for x in range(6)] == fg
    assert (line[3].bg, line[5].bg) == ("fa8000", "blue")


def replay_sized(snapshot: str, rows: int, cols: int) -> VtScreen:
    return feed(VtScreen(cols, rows), snapshot)


def test_wide_characters_and_emoji_are_written_once():
    screen = TerminalScreen(2, 10)
    screen.feed("中文🙂ok")
    snap = screen.snapshot()
    assert snap.count("中") == 1 and snap.count("🙂") == 1
    assert replay_sized(snap, 2, 10).display[0] == "中文🙂ok  "


def test_alternate_screen_enter_and_exit_restores_the_main_screen():
    screen = TerminalScreen(4, 10)
    screen.feed("main text\r\nprompt$ \x1b[?1049h\x1b[Hfull")
    snap = screen.snapshot()
    assert snap.index("main text") < snap.index("\x1b[?1049h") < snap.index("full")
    shown = replay_sized(snap, 4, 10)
    assert shown.alternate == 1049
    assert shown.display[0] == "full      "
    screen.feed("\x1b[?1049l$")
    back = replay_sized(screen.snapshot(), 4, 10)
    assert back.alternate is None
    assert back.display[:2] == ["main text ", "prompt$ $ "]
    shown.reset_mode(1049, private=True)
    assert shown.display[:2] == ["main text ", "prompt$   "]
    assert (shown.cursor.x, shown.cursor.y) == (8, 1)


def test_resize_keeps_the_screen_and_refuses_an_empty_size():
    screen = TerminalScreen(4, 10)
    screen.feed("one\r\ntwo\r\nthree\r\nfour")
    screen.resize(2, 4)
    assert (screen.rows, screen.cols) == (2, 4)
    assert replay_sized(screen.snapshot(), 2, 4).display == ["thre", "four"]
    screen.resize(3, 6)
    assert replay_sized(screen.snapshot(), 3, 6).display == ["thre  ", "four  ", "      "]
    with pytest.raises(Invalid):
        screen.resize(0, 10)
    with pytest.raises(Invalid):
        TerminalScreen(5, 0)


def test_resize_in_the_alternate_screen_fits_the_hidden_main_screen_too():
    screen = TerminalScreen(3, 8)
    screen.feed("a\r\nbbbbbbbb\r\nc\x1b[?1049hTUI")
    screen.resize(2, 4)
    screen.feed("\x1b[?1049l")
    assert replay_sized(screen.snapshot(), 2, 4).display == ["bbbb", "c   "]


# -- lazy following ------------------------------------------------------------------------------


def test_feed_within_budget_stays_exact():
    clock = Clock()
    screen = TerminalScreen(24, 80, clock=clock)
    line = "x" * 79 + "\r\n"
    for i in range(200):  # 16 KB a second for 20 s: what the budget allows
        screen.feed(f"{i:05d}" + line[5:] * 2)
        clock.now += 2 * len(line) / FOLLOW_BUDGET
    expected = feed(VtScreen(80, 24), "".join(f"{i:05d}" + line[5:] * 2 for i in range(200)))
    snap = screen.snapshot()
    assert screen.exact
    assert shown_state_sized(replay_sized(snap, 24, 80)) == shown_state_sized(expected)


def shown_state_sized(screen: VtScreen) -> list[str]:
    return [*screen.display, str((screen.cursor.x, screen.cursor.y))]


def test_feed_parses_nothing_until_the_tail_bound():
    screen = TerminalScreen(24, 80, clock=Clock())
    screen.feed("a" * (tail_bound(24, 80) - 1))
    assert screen._pending_len == tail_bound(24, 80) - 1  # queued, not parsed
    screen.feed("bc")
    assert screen._pending_len == 0  # over the bound, within budget: parsed


def test_a_flood_over_budget_keeps_the_last_lines_and_is_not_exact():
    screen = TerminalScreen(24, 80, clock=Clock())  # the clock never moves: no budget left
    for i in range(50_000):
        screen.feed(f"line {i}\r\n")
    assert screen._pending_len <= screen.tail
    shown = replay_sized(screen.snapshot(), 24, 80)
    assert not screen.exact
    last_lines = [f"line {i}" for i in range(49_977, 50_000)]
    assert [row.rstrip() for row in shown.display] == [*last_lines, ""]
    assert (shown.cursor.x, shown.cursor.y) == (0, 23)
    screen.feed("ok")
    snap = screen.snapshot()
    assert screen.exact  # nothing dropped since
    assert replay_sized(snap, 24, 80).display[23].rstrip() == "ok"


@pytest.mark.parametrize("chunk", [1, 7, 4096])
def test_modes_set_in_the_dropped_text_survive_the_rebuild(chunk):
    data = (
        "\x1b[?1h\x1b[?2004;1000;1006h\x1b[?25l\x1b[?7l\x1b[2;20r"
        + "filler line\r\n" * 100_000
        + "last"
    )
    screen = TerminalScreen(24, 80, clock=Clock())
    for i in range(0, len(data), chunk):
        screen.feed(data[i : i + chunk])
    snap = screen.snapshot()
    assert not screen.exact
    shown = replay_sized(snap, 24, 80)
    for mode in (1, 2004, 1000, 1006):
        assert mode << 5 in shown.mode
    assert mo.DECTCEM not in shown.mode and mo.DECAWM not in shown.mode
    assert shown.margins == (1, 19)
    assert shown.display[19].rstrip() == "last"


def test_a_mode_cut_between_two_dropped_chunks_is_remembered():
    screen = TerminalScreen(24, 80, clock=Clock())
    screen.feed("x" * 10_000 + "\x1b[?10")
    screen.feed("49h" + "y" * 20_000)
    screen.feed("\r\nafter")
    assert replay_sized(screen.snapshot(), 24, 80).alternate == 1049


def test_what_is_remembered_of_dropped_text_is_bounded():
    screen = TerminalScreen(24, 80, clock=Clock())
    screen.feed("".join(f"\x1b[?{n}h" for n in range(9000, 30_000)) + "x" * 70_000)
    assert len(screen._memory.modes) <= 10_000  # mode numbers are capped at 9999, as pyte does
    screen.snapshot()


def test_the_alternate_screen_and_a_reset_in_the_dropped_text():
    screen = TerminalScreen(24, 80, clock=Clock())
    screen.feed("\x1b[?1049h\x1b[?1h" + "z" * 70_000 + "\r\nin the app")
    shown = replay_sized(screen.snapshot(), 24, 80)
    assert shown.alternate == 1049 and mo.DECTCEM in shown.mode and 1 << 5 in shown.mode
    screen.feed("\x1b[?1h\x1bc" + "z" * 70_000 + "\r\nafter reset")
    shown = replay_sized(screen.snapshot(), 24, 80)
    assert shown.alternate is None and 1 << 5 not in shown.mode


def test_modes_parsed_before_the_flood_survive_it():
    clock = Clock()
    screen = TerminalScreen(24, 80, clock=clock)
    screen.feed("\x1b[?2004h\x1b[?1049h")
    screen.snapshot()  # parsed: now in the screen, not in any dropped text
    screen.feed("w" * 200_000 + "\nend")
    shown = replay_sized(screen.snapshot(), 24, 80)
    assert not screen.exact
    assert shown.alternate == 1049 and 2004 << 5 in shown.mode


def test_a_tail_without_newline_starts_at_an_escape_sequence():
    screen = TerminalScreen(24, 80, clock=Clock())
    frame = "".join(f"\x1b[{r};1H\x1b[7mrow {r:02d}\x1b[m" for r in range(1, 25))
    screen.feed(frame * 200)
    shown = replay_sized(screen.snapshot(), 24, 80)
    assert not screen.exact
    assert [row.rstrip() for row in shown.display] == [f"row {r:02d}" for r in range(1, 25)]


def test_the_budget_can_be_set_and_not_below_zero():
    clock = Clock()
    screen = TerminalScreen(24, 80, clock=clock, follow_budget=100_000)
    tail = screen.tail
    for _ in range(7):  # 7 times 2 tails at once: the burst (100,000) is spent, text dropped
        screen.feed("a" * (2 * tail))
    screen.snapshot()
    assert not screen.exact
    clock.now += 0.1  # a tenth of a second of 100,000 a second (of 16384, it would not do)
    screen.feed("b" * (tail + 1))
    assert screen._pending_len == 0
    screen.snapshot()
    assert screen.exact
    with pytest.raises(Invalid):
        TerminalScreen(24, 80, follow_budget=-1)


def test_the_budget_refills_with_the_clock():
    clock = Clock()
    screen = TerminalScreen(24, 80, clock=clock)
    tail = screen.tail
    for _ in range(8):  # 8 times the tail at once: the burst is spent, then text is dropped
        screen.feed("a" * (tail + 1))
    screen.snapshot()
    assert not screen.exact
    clock.now += 10.0  # ten seconds later the budget is back
    screen.feed("b" * (tail + 1))
    assert screen._pending_len == 0
    screen.snapshot()
    assert screen.exact


# -- what a real xterm.js makes of a snapshot (ui/src/model/termsnapshot.test.ts) -----------------

XTERM_FIXTURE = (
    Path(__file__).resolve().parents[4] / "ui" / "src" / "model" / "testdata" / "snapshots.json"
)
TUI = (
    "$ top\r\n\x1b[?1049h\x1b[?25l\x1b[?1h\x1b[?2004h\x1b[?1000;1006h\x1b[?1004h\x1b[H\x1b[2J"
    "\x1b[7m PID  CPU  COMMAND          \x1b[m\x1b[3;12r"
    + "".join(f"\x1b[{r};1H {r * 37:4d} {r % 9}.{r}% \x1b[32mproc{r}\x1b[m" for r in range(3, 13))
    + "\x1b[14;1H\x1b[44;97m q quit \x1b[m\x1b[2;1H"
)
# (name, rows, cols, what the program wrote, what it writes after the snapshot); each a stream
# where pyte and xterm.js agree (no dim, no wide character in the last column).
XTERM_CASES = [
    (
        "a shell in colour",
        6,
        30,
        "$ ls\r\n\x1b[1;34mdocs\x1b[0m  \x1b[32mrun.sh\x1b[0m  notes.txt\r\n$ ",
        "echo hi\r\nhi\r\n$ ",
    ),
    (
        "16, 256 and truecolor, styles",
        4,
        40,
        "\x1b[31mred \x1b[91mbright \x1b[38;5;9mnine \x1b[38;5;196mcube \x1b[48;5;21mblue\x1b[m\r\n"
        "\x1b[38;2;10;20;30;48;2;200;100;50mrgb\x1b[m \x1b[1;3;4;9mstyled\x1b[7m rev\x1b[5m bl",
        "ink\x1b[m plain",
    ),
    ("wide characters and emoji", 3, 16, "中文 🙂 ok\r\n日本語テキスト", "中x"),
    (
        "long lines wrap and scroll",
        5,
        20,
        "".join(f"{i:02d} " + "abcdefg" * (i % 5) + "\r\n" for i in range(30)),
        "tail",
    ),
    ("a pending wrap on the last row", 3, 10, "\r\n\r\n" + "0123456789", "X"),
    ("a full-screen program", 14, 32, TUI, "\x1b[?1049l\x1b[?25h$ "),
    ("auto-wrap off, insert mode", 3, 12, "\x1b[?7l" + "x" * 20 + "\r\n\x1b[4hab", "INS"),
    ("origin mode in a scroll region", 8, 20, "\x1b[3;6r\x1b[?6h\x1b[2;3Hin region", "\r\n" * 5),
    ("erase with a background", 4, 12, "\x1b[44m\x1b[2J\x1b[Htext\x1b[41m\x1b[K\x1b[m", "next"),
    ("a flood rebuilt from its tail", 5, 20, "".join(f"l{i}\r\n" for i in range(3000)), "end"),
]


def xterm_fixture() -> list[dict[str, object]]:
    cases = []
    for name, rows, cols, stream, after in XTERM_CASES:
        screen = TerminalScreen(rows, cols, clock=lambda: 0.0)
        for i in range(0, len(stream), 1024):
            screen.feed(stream[i : i + 1024])
        snapshot = screen.snapshot()
        cases.append(
            {
                "name": name,
                "rows": rows,
                "cols": cols,
                "stream": stream,
                "snapshot": snapshot,
                "exact": screen.exact,
                "after": after,
            }
        )
    return cases


def test_the_xterm_fixture_is_what_the_screen_snapshots():
    """After a deliberate change: python -m tests.unit.infrastructure.terminal.test_screen"""
    assert json.loads(XTERM_FIXTURE.read_text(encoding="utf-8")) == xterm_fixture()
    assert [case["exact"] for case in xterm_fixture()][-1] is False


if __name__ == "__main__":
    XTERM_FIXTURE.write_text(json.dumps(xterm_fixture(), indent=2) + "\n", encoding="utf-8")


def test_a_rebuild_parses_the_last_screenful_of_lines_only():
    lines = "".join(f"line {n}\r\n" for n in range(100))
    start = tail_start(lines, 3)
    assert lines[start:] == "line 97\r\nline 98\r\nline 99\r\n"
    # Fewer lines than rows: all of it, from a line or a sequence start near its beginning.
    assert tail_start("a\nb", 5) == 2
    assert tail_start("ab\x1b[Hcd\nef", 5) == 2
    assert tail_start("abcd", 5) == 0
    long_line = "a" * 5000 + "\r\ndone\r\n$ "  # wrapped over many rows: none of it dropped
    assert tail_start(long_line, 24) == 0
