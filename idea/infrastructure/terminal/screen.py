"""A terminal's screen kept on the server: a VT emulator (pyte) fed lazily, drawn as ANSI text.

Invariant: ``snapshot()``, written into a freshly reset terminal of the same size, draws the screen
that the text fed so far leaves, with the modes, scroll region, cursor and pen that the bytes which
follow depend on. The screen is exact while ``feed`` keeps within its parse budget
(``FOLLOW_BUDGET`` characters a second of the clock); past it the oldest text is dropped, at most
``tail`` characters are kept, and the next snapshot is rebuilt from them (``exact`` is False then)
with the private modes, alternate screen and scroll region set by the text dropped. ``feed`` only
appends and drops whole chunks: it never parses more than its budget.
"""

from __future__ import annotations

import re
import time
import unicodedata
from collections import defaultdict, deque
from collections.abc import Callable
from typing import Any

import pyte
from pyte import modes as mo
from pyte.charsets import LAT1_MAP
from pyte.graphics import FG_BG_256
from pyte.screens import Char, Cursor, Savepoint, StaticDefaultDict, wcwidth

from idea.domain.errors import Invalid

__all__ = ["FOLLOW_BUDGET", "TerminalScreen", "VtScreen", "VtStream", "render", "tail_bound"]

FOLLOW_BUDGET = 16384  # characters a second that feed() may parse
_TAIL_MIN, _TAIL_MAX, _TAIL_SCREENS = 8192, 65536, 4
_ALTERNATE = frozenset({47, 1047, 1049})
_DECCOLM = 3  # 132 columns: the size is the view's, as in xterm.js (which ignores it too)
_INTERCEPTED = _ALTERNATE | {_DECCOLM}
_PENS = 256  # cell caches kept, one per pen
# Private modes a snapshot restores (beside 6, 7, 25 and the alternate screen): cursor keys,
# cursor blink, application keypad, mouse tracking and its encodings, focus events, paste.
_SNAPSHOT_MODES = (1, 12, 66, 1000, 1002, 1003, 1004, 1005, 1006, 1015, 2004)
_ASCII_RUN = re.compile(r"[ -~]+")
_CSI = re.compile(r"(?:\x1b\[|\x9b)(\?)?([0-9;]{0,64})([@-~])")
# What a dropped text can change for good: private modes, DECSTBM, a full reset (RIS).
_MODE_SEQUENCE = re.compile(r"(?:\x1b\[|\x9b)(\?)?([0-9;]{0,200})([hlr])|\x1bc")
_PARTIAL_TAIL = re.compile(r"(?:\x1b\[?|\x9b)\??[0-9;]{0,200}\Z")
_PARTIAL = re.compile(r"(?:\x1b\[?|\x9b)\??[0-9;]{0,200}")
_CARRY = 210  # longest partial sequence carried from one dropped text to the next


def tail_bound(rows: int, cols: int) -> int:
    """Characters kept past the budget: four screens' worth, within 8 KiB and 64 KiB."""
    return max(_TAIL_MIN, min(_TAIL_MAX, rows * cols * _TAIL_SCREENS))


def _check_size(rows: int, cols: int) -> None:
    if rows < 1 or cols < 1:
        raise Invalid(f"a terminal needs at least 1 row and 1 column, got {rows}x{cols}")


class _Cells(dict[str, Char]):
    """One pen's cells by character, built once: a cell is an immutable tuple, safely shared."""

    def __init__(self, pen: Char) -> None:
        super().__init__()
        self._pen = pen

    def __missing__(self, char: str) -> Char:
        cell = self[char] = self._pen._replace(data=char)
        return cell


def _stops_pyte(char: str) -> bool:
    """pyte's draw stops at (and drops the rest after) an unprintable or zero-width character."""
    width = wcwidth(char)
    return width < 0 or (width == 0 and not unicodedata.combining(char))


class VtScreen(pyte.Screen):
    """pyte's screen with a fast draw for printable ASCII and the alternate screen.

    ``draw`` behaves exactly as pyte's; runs of printable ASCII (in replace mode, default
    charset) write cells from a per-pen cache instead of one ``_replace`` per character, which is
    most of pyte's time. Private modes 47/1047/1049 switch to a cleared alternate buffer (1049
    saves and restores the cursor); ``alternate`` is the mode that entered it, None on the main
    buffer. DECCOLM is ignored: the size changes by ``resize`` only.

    Where pyte's sparse rows leak into what is shown, this screen does as xterm does: an erase
    blanks every cell it covers (pyte's ED only the cells a row holds) with the pen's background
    only (pyte's with the whole pen, underline and reverse included); ED 3 erases the scrollback,
    not the screen; a line deleted from under an unwritten one is emptied (pyte leaves it).
    """

    def __init__(self, columns: int, lines: int) -> None:
        self._cells: dict[Char, _Cells] = {}
        self._pens: dict[tuple[Char, tuple[int, ...], bool], Char] = {}
        self.alternate: int | None = None
        self.main_buffer: dict[int, StaticDefaultDict[int, Char]] | None = None
        self.alt_saved: Savepoint | None = None  # the cursor 1049 saved on entering
        super().__init__(columns, lines)

    def reset(self) -> None:
        if self.main_buffer is not None:
            self.buffer = self.main_buffer
        self.alternate, self.main_buffer, self.alt_saved = None, None, None
        super().reset()

    def resize(self, lines: int | None = None, columns: int | None = None) -> None:
        lines, columns = lines or self.lines, columns or self.columns
        if (lines, columns) == (self.lines, self.columns):
            return
        if self.main_buffer is not None:
            _fit(self.main_buffer, self.lines, lines, columns)
        super().resize(lines, columns)
        # pyte leaves the cursor where it was, possibly past the new edges.
        self.ensure_hbounds()
        self.ensure_vbounds()

    def set_mode(self, *modes: int, **kwargs: Any) -> None:
        if not kwargs.get("private") or _INTERCEPTED.isdisjoint(modes):
            super().set_mode(*modes, **kwargs)
            return
        for mode in modes:
            if mode in _ALTERNATE:
                self._enter_alternate(mode)
            elif mode != _DECCOLM:
                super().set_mode(mode, private=True)

    def reset_mode(self, *modes: int, **kwargs: Any) -> None:
        if not kwargs.get("private") or _INTERCEPTED.isdisjoint(modes):
            super().reset_mode(*modes, **kwargs)
            return
        for mode in modes:
            if mode in _ALTERNATE:
                self._leave_alternate(mode)
            elif mode != _DECCOLM:
                super().reset_mode(mode, private=True)

    def _enter_alternate(self, mode: int) -> None:
        if mode == 1049:
            self.save_cursor()
            self.alt_saved = self.savepoints.pop()
        if self.alternate is None:
            self.main_buffer, self.alternate = self.buffer, mode
            self.buffer = defaultdict(lambda: StaticDefaultDict[int, Char](self.default_char))
            self.dirty.update(range(self.lines))

    def _leave_alternate(self, mode: int) -> None:
        if self.main_buffer is not None:
            self.buffer, self.main_buffer, self.alternate = self.main_buffer, None, None
            self.dirty.update(range(self.lines))
        if mode == 1049 and self.alt_saved is not None:
            self.savepoints.append(self.alt_saved)
            self.alt_saved = None
            self.restore_cursor()

    def select_graphic_rendition(self, *attrs: int) -> None:
        """pyte's, remembered: a pen and the same parameters always give the same pen."""
        key = (self.cursor.attrs, attrs, mo.DECSCNM in self.mode)
        pen = self._pens.get(key)
        if pen is None:
            super().select_graphic_rendition(*attrs)
            if len(self._pens) >= _PENS:
                self._pens.clear()
            pen = self._pens[key] = self.cursor.attrs
        self.cursor.attrs = pen

    def erase_in_display(self, how: int = 0, *args: Any, **kwargs: Any) -> None:
        y = self.cursor.y
        rows = {0: range(y + 1, self.lines), 1: range(y), 2: range(self.lines)}.get(how, range(0))
        blank = self._erase_pen()
        for row in rows:
            if blank == self.default_char:
                self.buffer.pop(row, None)
            else:
                self.buffer[row].update(dict.fromkeys(range(self.columns), blank))
        self.dirty.update(rows)
        if how in (0, 1):
            self.erase_in_line(how)

    def erase_in_line(self, how: int = 0, private: bool = False) -> None:
        pen, self.cursor.attrs = self.cursor.attrs, self._erase_pen()
        try:
            super().erase_in_line(how, private)
        finally:
            self.cursor.attrs = pen

    def erase_characters(self, count: int | None = None) -> None:
        pen, self.cursor.attrs = self.cursor.attrs, self._erase_pen()
        try:
            super().erase_characters(count)
        finally:
            self.cursor.attrs = pen

    def _erase_pen(self) -> Char:
        return self.default_char._replace(bg=self.cursor.attrs.bg)

    def delete_lines(self, count: int | None = None) -> None:
        count = count or 1
        top, bottom = self.margins or (0, self.lines - 1)
        if top <= self.cursor.y <= bottom:
            self.dirty.update(range(self.cursor.y, self.lines))
            for y in range(self.cursor.y, bottom + 1):
                if y + count <= bottom and y + count in self.buffer:
                    self.buffer[y] = self.buffer.pop(y + count)
                else:
                    self.buffer.pop(y, None)
            self.carriage_return()

    def draw(self, data: str) -> None:
        if mo.IRM in self.mode or self.charset or self.g0_charset is not LAT1_MAP:
            super().draw(data)
        elif data.isascii() and data.isprintable():
            self._draw_ascii(data)
        else:
            done = 0
            for run in _ASCII_RUN.finditer(data):
                start, end = run.span()
                if start > done and not self._draw_other(data, done, start):
                    return
                self._draw_ascii(run[0])
                done = end
            if done < len(data):
                self._draw_other(data, done, len(data))

    def _draw_other(self, data: str, start: int, end: int) -> bool:
        """pyte's own draw of ``data[start:end]``; False when pyte stopped there for good."""
        if any(_stops_pyte(char) for char in data[start:end]):
            super().draw(data[start:])
            return False
        super().draw(data[start:end])
        return True

    def _draw_ascii(self, text: str) -> None:
        """pyte's draw for characters of width 1: same wrap and last-column rules, cached cells."""
        cursor, columns = self.cursor, self.columns
        cells = self._cells.get(cursor.attrs)
        if cells is None:
            if len(self._cells) >= _PENS:
                self._cells.clear()
            cells = self._cells[cursor.attrs] = _Cells(cursor.attrs)
        cell = cells.__getitem__
        done, total, x = 0, len(text), cursor.x
        if x + total < columns:  # the common case: the run fits before the last column
            self.buffer[cursor.y].update(zip(range(x, x + total), map(cell, text), strict=True))
            cursor.x = x + total
            self.dirty.add(cursor.y)
            return
        wrap = mo.DECAWM in self.mode
        while done < total:
            if cursor.x == columns:
                if not wrap:  # each character overwrites the last column: the last one stays
                    self.buffer[cursor.y][columns - 1] = cell(text[-1])
                    break
                self.dirty.add(cursor.y)
                self.carriage_return()
                self.linefeed()
            line, x = self.buffer[cursor.y], cursor.x
            if x > columns:  # left past the edge by a shrink: pyte writes once, out of sight
                line[x] = cell(text[done])
                cursor.x, done = columns, done + 1
                continue
            take = min(columns - x, total - done)
            line.update(zip(range(x, x + take), map(cell, text[done : done + take]), strict=True))
            cursor.x, done = x + take, done + take
        self.dirty.add(cursor.y)


def _fit(buffer: dict[int, StaticDefaultDict[int, Char]], old: int, lines: int, cols: int) -> None:
    """The hidden main buffer follows a resize as pyte's shown one does: rows go from the top."""
    drop = old - lines
    if drop > 0:
        kept = {y - drop: row for y, row in buffer.items() if drop <= y < old}
        buffer.clear()
        buffer.update(kept)
    for row in buffer.values():
        for x in [x for x in row if x >= cols]:
            del row[x]


class VtStream(pyte.Stream):
    """pyte's parser, faster on whole CSI sequences, and a sequence a handler refuses is dropped.

    pyte sends each control character and each character of a sequence through its parser, a
    generator: most of its time after the fast draw. Controls such as CR and LF, and a CSI
    sequence whole in the text (digits and ";" only, an optional leading "?"), are dispatched at
    once, as pyte's parser would; anything else goes through pyte's parser.

    pyte raises on some sequences (a private flag or an extra parameter that a handler does not
    take, a line address in origin mode without margins); a terminal ignores them and goes on.
    """

    def attach(self, screen: pyte.Screen) -> None:
        super().attach(screen)
        csi = {final: getattr(screen, name) for final, name in self.csi.items()}
        self._csi: dict[str, Callable[..., None]] = defaultdict(lambda: screen.debug, csi)
        # SI and SO are left to pyte's parser, which ignores them in UTF-8.
        self._basic = {
            c: getattr(screen, name) for c, name in self.basic.items() if c not in "\x0e\x0f"
        }

    def feed(self, data: str) -> None:
        """pyte's ``Stream.feed`` with the CSI fast path (a CSI is only matched in ground state)."""
        screen = self.listener
        if screen is None:
            raise RuntimeError("Listener is not set")
        draw, send, csi, basic = screen.draw, self._send_to_parser, self._csi, self._basic
        match_text, match_csi = self._text_pattern.match, _CSI.match
        plain = self._taking_plain_text
        offset, length = 0, len(data)
        while offset < length:
            if not plain:
                plain = send(data[offset : offset + 1])
                offset += 1
            elif match := match_text(data, offset):
                start, offset = match.span()
                draw(data[start:offset])
            elif control := basic.get(data[offset]):
                control()
                offset += 1
            elif match := match_csi(data, offset):
                offset = match.end()
                private, params, final = match.groups()
                args = [min(int(p or 0), 9999) for p in params.split(";")]
                try:
                    if private:
                        csi[final](*args, private=True)
                    else:
                        csi[final](*args)
                except Exception:  # refused, as by _send_to_parser
                    pass
            else:
                plain = False
        self._taking_plain_text = plain

    def _send_to_parser(self, data: str) -> bool | None:
        try:
            return super()._send_to_parser(data)
        except Exception:  # pyte has already reset its parser to the ground state
            return True


# -- snapshot: the screen as ANSI text ---------------------------------------------------------

_COLOURS = ("black", "red", "green", "brown", "blue", "magenta", "cyan", "white")
_FG = {name: str(30 + i) for i, name in enumerate(_COLOURS)}
_FG |= {f"bright{name}": str(90 + i) for i, name in enumerate(_COLOURS)}
_BG = {name: str(40 + i) for i, name in enumerate(_COLOURS)}
_BG |= {f"bright{name}": str(100 + i) for i, name in enumerate(_COLOURS)}
_BG["bfightmagenta"] = "105"  # pyte's own spelling of 105
# pyte keeps 256-colour indexes as hex: written back as indexes, the cube's before the themed 16
# (ff0000 is both 9 and 196), so the page's palette draws them as the program meant.
_INDEX = {hexa: str(i) for i, hexa in enumerate(FG_BG_256[:16])}
_INDEX |= {hexa: str(i) for i, hexa in enumerate(FG_BG_256) if i >= 16}
_FLAGS = [("bold", "1"), ("italics", "3"), ("underscore", "4"), ("blink", "5")]
_FLAGS += [("reverse", "7"), ("strikethrough", "9")]
_SGR_CACHE: dict[tuple[object, ...], str] = {}


def _colour(value: str, names: dict[str, str], extended: str) -> list[str]:
    if value == "default":
        return []
    if value in names:
        return [names[value]]
    if value in _INDEX:
        return [extended, "5", _INDEX[value]]
    if len(value) == 6:
        try:
            rgb = [str(int(value[i : i + 2], 16)) for i in (0, 2, 4)]
        except ValueError:
            return []
        return [extended, "2", *rgb]
    return []  # not a colour pyte could have parsed


def _sgr(cell: Char) -> str:
    """SGR parameters (without the leading reset) for a cell's attributes; "" for the default."""
    key = tuple(cell[1:])
    params = _SGR_CACHE.get(key)
    if params is None:
        if len(_SGR_CACHE) >= _PENS:
            _SGR_CACHE.clear()
        parts = [code for name, code in _FLAGS if getattr(cell, name)]
        parts += _colour(cell.fg, _FG, "38") + _colour(cell.bg, _BG, "48")
        params = _SGR_CACHE[key] = ";".join(parts)
    return params


def _pen(new: str, old: str) -> str:
    if new == old:
        return ""
    if not new:
        return "\x1b[m"
    return f"\x1b[{new}m" if not old else f"\x1b[0;{new}m"


def _wide(cell: Char) -> bool:
    return bool(cell.data) and not cell.data.isascii() and wcwidth(cell.data[0]) == 2


def _attached(cells: list[Char], x: int) -> bool:
    """A stub ("") that its wide character on the left draws; other stubs are drawn as blanks."""
    return x > 0 and not cells[x].data and _wide(cells[x - 1]) and cells[x - 1][1:] == cells[x][1:]


def _rows(screen: VtScreen, buffer: dict[int, StaticDefaultDict[int, Char]], out: list[str],
          pen: str) -> str:  # fmt: skip
    """Append each row's cells, placed by absolute position; return the pen left."""
    blank, cols = screen.default_char, screen.columns
    for y in range(screen.lines):
        line = buffer.get(y)
        if not line:
            continue
        cells = [line[x] for x in range(cols)]
        end = cols
        while end and cells[end - 1] == blank:
            end -= 1
        if 0 < end < cols and _wide(cells[end - 1]):
            end += 1  # drawing the wide character filled its neighbour: draw the blank again
        if not end:
            continue
        out.append(f"\x1b[{y + 1}H")
        at, after_wide = 0, False
        for x in range(end):
            cell = cells[x]
            if _attached(cells, x) or (cell == blank and not after_wide):
                after_wide = False
                continue
            params = _sgr(cell)
            if at != x:
                if 0 < x - at <= 3 and not (pen and params):  # blanks drawn with the default pen
                    out.append(_pen("", pen) + " " * (x - at))
                    pen = ""
                else:
                    out.append(f"\x1b[{x + 1}G")
            out.append(_pen(params, pen))
            pen = params
            after_wide = _wide(cell)
            out.append(cell.data or " ")
            at = min(x + (2 if after_wide else 1), cols)
    return pen


def _place_cursor(screen: VtScreen, out: list[str], pen: str, row: int, cursor: Cursor) -> str:
    """Move to the cursor; past the last column (a wrap pending) by drawing that column again."""
    x, cols = cursor.x, screen.columns
    if x < cols:
        out.append(f"\x1b[{row + 1};{x + 1}H")
        return pen
    line = screen.buffer.get(cursor.y)
    cells = [line[x] for x in range(cols)] if line else [screen.default_char] * cols
    x = cols - 2 if _attached(cells, cols - 1) else cols - 1
    out.append(f"\x1b[{row + 1};{x + 1}H")
    params = _sgr(cells[x])
    out.append(_pen(params, pen) + (cells[x].data or " "))
    return params


def render(screen: VtScreen) -> str:
    """The screen as ANSI text for a freshly reset terminal of the same size (module docstring)."""
    out = ["\x1b[?7l"]  # rows are drawn without auto-wrap: nothing the snapshot draws scrolls
    pen = ""
    if screen.main_buffer is not None and screen.alternate is not None:
        pen = _rows(screen, screen.main_buffer, out, pen)
        saved = screen.alt_saved
        if saved is not None:  # what 1049 saved on entering is saved again, the same way
            cursor = saved.cursor
            out.append(f"\x1b[{cursor.y + 1};{min(cursor.x, screen.columns - 1) + 1}H")
            out.append(_pen(_sgr(cursor.attrs), pen))
            pen = _sgr(cursor.attrs)
            out.append("\x1b[?7h" if saved.wrap else "")
        out.append(f"\x1b[?{screen.alternate}h\x1b[?7l")
    pen = _rows(screen, screen.buffer, out, pen)
    margins, cursor = screen.margins, screen.cursor
    row = cursor.y
    if margins is not None:
        out.append(f"\x1b[{margins.top + 1};{margins.bottom + 1}r")
    if mo.DECOM in screen.mode:
        out.append("\x1b[?6h")
        row -= margins.top if margins is not None else 0
    pen = _place_cursor(screen, out, pen, row, cursor)
    out.append(_pen(_sgr(cursor.attrs), pen))
    modes = screen.mode
    out.append("\x1b[4h" if mo.IRM in modes else "")
    out.append("\x1b[20h" if mo.LNM in modes else "")
    on = [str(m) for m in _SNAPSHOT_MODES if m << 5 in modes]
    on += ["7"] if mo.DECAWM in modes else []
    out.append(f"\x1b[?{';'.join(on)}h" if on else "")
    out.append("" if mo.DECTCEM in modes else "\x1b[?25l")
    return "".join(out)


# -- lazy following ----------------------------------------------------------------------------


def _partial_end(text: str, start: int, end: int) -> str:
    """The start of a mode sequence that ``text[start:end]`` ends in, or ""."""
    partial = _PARTIAL_TAIL.search(text, max(start, end - _CARRY), end)
    return partial[0] if partial else ""


class _ModeMemory:
    """What text dropped unparsed left set for good: private modes, alternate screen, margins.

    Seeded from the screen when dropping starts, then updated by each dropped text in order; a
    sequence cut between two dropped texts is carried over to the next.
    """

    def __init__(self) -> None:
        self.modes: dict[int, bool] = {}
        self.alternate: int | None = None
        self.margins: list[int] = []  # DECSTBM's parameters; none: the whole screen
        self._carry = ""

    def seed(self, screen: VtScreen, parsed: str) -> None:
        """From the screen's state and the end of the text it parsed (a sequence it may cut)."""
        modes = screen.mode
        self.modes = {m >> 5: True for m in modes if m and not m & 31 and m >> 5 != _DECCOLM}
        self.modes[7], self.modes[25] = mo.DECAWM in modes, mo.DECTCEM in modes
        self.alternate = screen.alternate
        margins = screen.margins
        self.margins = [] if margins is None else [margins.top + 1, margins.bottom + 1]
        self._carry = _partial_end(parsed, 0, len(parsed))

    def scan(self, text: str, start: int = 0, end: int | None = None) -> None:
        end = len(text) if end is None else end
        if self._carry:
            carry, self._carry = self._carry, ""
            joined = carry + text[start : min(end, start + _CARRY)]
            match = _MODE_SEQUENCE.match(joined)
            if match:
                self._record(match)
                start += match.end() - len(carry)
            elif _PARTIAL.fullmatch(joined):
                self._carry = joined
                return
        for match in _MODE_SEQUENCE.finditer(text, start, end):
            self._record(match)
        self._carry = _partial_end(text, start, end)

    def _record(self, match: re.Match[str]) -> None:
        private, params, final = match.groups()
        if final is None:  # RIS
            self.modes, self.alternate, self.margins = {}, None, []
        elif final == "r":
            if not private:
                self.margins = [min(int(p or 0), 9999) for p in params.split(";")]
        elif private:
            for mode in (int(p) for p in params.split(";") if p):
                if mode in _ALTERNATE:
                    on = self.alternate or mode
                    self.alternate = on if final == "h" else None
                else:
                    self.modes[mode] = final == "h"

    def apply(self, screen: VtScreen) -> None:
        """Onto a freshly reset screen, before the kept tail is parsed."""
        if self.alternate is not None:
            screen.set_mode(self.alternate, private=True)
        for mode, on in self.modes.items():
            (screen.set_mode if on else screen.reset_mode)(mode, private=True)
        if self.margins:
            screen.set_margins(*self.margins)


class TerminalScreen:
    """One terminal's screen, fed its decoded output in order and drawn on demand.

    Text waits in a list; ``feed`` parses it only once it exceeds ``tail`` characters and the
    budget allows (``FOLLOW_BUDGET`` a second, in bursts of at most ``2 * tail``), else drops the
    oldest text down to ``tail`` and leaves the screen to be rebuilt by the next ``snapshot``.
    """

    def __init__(
        self, rows: int, cols: int, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        _check_size(rows, cols)
        self._clock = clock
        self._screen = VtScreen(cols, rows)
        self._stream = VtStream(self._screen)
        self._pending: deque[str] = deque()
        self._pending_len = 0
        self._tail = tail_bound(rows, cols)
        self._tokens, self._refilled = float(self._burst), clock()
        self._memory = _ModeMemory()
        self._parsed_end = ""  # the last characters parsed, for a sequence that they cut
        self._dropping = False  # text was dropped: the next snapshot rebuilds from the tail
        self._rebuilt = False  # since the last snapshot
        self._exact = True

    @property
    def rows(self) -> int:
        return int(self._screen.lines)

    @property
    def cols(self) -> int:
        return int(self._screen.columns)

    @property
    def tail(self) -> int:
        return self._tail

    @property
    def exact(self) -> bool:
        """False when the last snapshot was rebuilt from a tail (text had been dropped)."""
        return self._exact

    @property
    def _burst(self) -> int:
        return max(FOLLOW_BUDGET, 2 * self._tail)

    def feed(self, text: str) -> None:
        """Queue decoded output (whole characters); parse or drop as the module docstring says."""
        if not text:
            return
        self._pending.append(text)
        self._pending_len += len(text)
        if self._pending_len <= self._tail:
            return
        if not self._dropping and self._spend(self._pending_len):
            self._parse_pending()
            return
        if not self._dropping:
            self._memory.seed(self._screen, self._parsed_end)
            self._dropping = True
        self._drop_to(self._tail)

    def resize(self, rows: int, cols: int) -> None:
        """The text so far is drawn at the old size first: the program wrote it for that size."""
        _check_size(rows, cols)
        self._catch_up()
        self._screen.resize(rows, cols)
        self._tail = tail_bound(rows, cols)

    def snapshot(self) -> str:
        """The current screen as ANSI text (see ``render``); parses what is pending first."""
        self._catch_up()
        self._exact, self._rebuilt = not self._rebuilt, False
        return render(self._screen)

    def _spend(self, chars: int) -> bool:
        now = self._clock()
        self._tokens = min(self._burst, self._tokens + (now - self._refilled) * FOLLOW_BUDGET)
        self._refilled = now
        if self._tokens < chars:
            return False
        self._tokens -= chars
        return True

    def _catch_up(self) -> None:
        if self._dropping:
            self._rebuild()
        else:
            self._parse_pending()

    def _parse_pending(self) -> None:
        if self._pending:
            text = "".join(self._pending)
            self._pending.clear()
            self._pending_len = 0
            self._stream.feed(text)
            self._parsed_end = text[-_CARRY:]

    def _drop_to(self, keep: int) -> None:
        excess = self._pending_len - keep
        while excess > 0:
            head = self._pending[0]
            if len(head) <= excess:
                self._pending.popleft()
                self._memory.scan(head)
                cut = len(head)
            else:
                self._memory.scan(head, 0, excess)
                self._pending[0] = head[excess:]
                cut = excess
            self._pending_len -= cut
            excess -= cut

    def _rebuild(self) -> None:
        """Reset, restore what dropped text set, parse the tail from a line or a sequence start."""
        text = "".join(self._pending)
        self._pending.clear()
        self._pending_len = 0
        cut = text.find("\n") + 1 or max(text.find("\x1b"), 0)
        self._memory.scan(text, 0, cut)
        self._screen.reset()
        self._stream = VtStream(self._screen)  # the parser may have stopped mid-sequence
        self._memory.apply(self._screen)
        self._stream.feed(text[cut:])
        self._parsed_end = text[-_CARRY:]
        self._dropping, self._rebuilt = False, True
