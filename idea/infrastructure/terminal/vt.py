"""A VT emulator for a terminal's screen on the server: pyte, made fast and closer to xterm.js.

Invariant: ``VtScreen`` fed through ``VtStream`` ends in the state that ``pyte.Screen`` fed through
``pyte.Stream`` would, except where the docstrings below say it does as xterm does instead (the
alternate screen, DECCOLM, erase, delete-line, sequences pyte raises on); its ``draw`` is pyte's.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import pyte
from pyte import modes as mo
from pyte.charsets import LAT1_MAP
from pyte.screens import Char, Savepoint, StaticDefaultDict, wcwidth

__all__ = ["ALTERNATE_MODES", "DECCOLM", "VtScreen", "VtStream"]

ALTERNATE_MODES = frozenset({47, 1047, 1049})
DECCOLM = 3  # 132 columns: the size is the view's, as in xterm.js (which ignores it too)
_INTERCEPTED = ALTERNATE_MODES | {DECCOLM}
_PENS = 256  # cell caches and SGR results kept
_ASCII_RUN = re.compile(r"[ -~]+")
_CSI = re.compile(r"(?:\x1b\[|\x9b)(\?)?([0-9;]{0,64})([@-~])")


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
    """pyte's screen with a fast draw and the alternate screen.

    ``draw`` behaves exactly as pyte's; runs of characters of width 1 or 2 (in replace mode,
    default charset) write cells from a per-pen cache instead of one ``_replace`` per character,
    which is most of pyte's time; combining characters go to pyte's own draw. Private modes
    47/1047/1049 switch to a cleared alternate buffer (1049 saves and restores the cursor);
    ``alternate`` is the mode that entered it, None on the main buffer. DECCOLM is ignored: the
    size changes by ``resize`` only.

    A 256-colour index below 16 is kept as the themed colour it names (38;5;1 as 31), not as the
    hex of a default palette. Where pyte's sparse rows leak into what is shown, this screen does
    as xterm does: an erase blanks every cell it covers (pyte's ED only the cells a row holds)
    with the pen's background only (pyte's with the whole pen, underline and reverse included);
    ED 3 erases the scrollback, not the screen; a line deleted from under an unwritten one is
    emptied (pyte leaves it as it was).
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
            if mode in ALTERNATE_MODES:
                self._enter_alternate(mode)
            elif mode != DECCOLM:
                super().set_mode(mode, private=True)

    def reset_mode(self, *modes: int, **kwargs: Any) -> None:
        if not kwargs.get("private") or _INTERCEPTED.isdisjoint(modes):
            super().reset_mode(*modes, **kwargs)
            return
        for mode in modes:
            if mode in ALTERNATE_MODES:
                self._leave_alternate(mode)
            elif mode != DECCOLM:
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
            super().select_graphic_rendition(*(_themed(attrs) if 5 in attrs else attrs))
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
            self._draw_narrow(data)
        else:
            done = 0
            for run in _ASCII_RUN.finditer(data):
                start, end = run.span()
                if start > done and not self._draw_other(data, done, start):
                    return
                self._draw_narrow(run[0])
                done = end
            if done < len(data):
                self._draw_other(data, done, len(data))

    def _draw_other(self, data: str, start: int, end: int) -> bool:
        """A run that is not printable ASCII; False when pyte's draw stopped there for good."""
        run = data[start:end]
        widths = set(map(wcwidth, run))
        if widths == {1}:  # box drawing, accented letters, symbols
            self._draw_narrow(run)
        elif widths <= {1, 2}:
            self._draw_wide(run)
        elif any(_stops_pyte(char) for char in run):
            super().draw(data[start:])
            return False
        else:  # combining characters: pyte's own draw
            super().draw(run)
        return True

    def _pen_cells(self) -> _Cells:
        pen = self.cursor.attrs
        cells = self._cells.get(pen)
        if cells is None:
            if len(self._cells) >= _PENS:
                self._cells.clear()
            cells = self._cells[pen] = _Cells(pen)
        return cells

    def _draw_narrow(self, text: str) -> None:
        """pyte's draw for characters of width 1: same wrap and last-column rules, cached cells."""
        cursor, columns = self.cursor, self.columns
        cell = self._pen_cells().__getitem__
        done, total, x = 0, len(text), cursor.x
        if x + total <= columns:  # the common case: the run fits in the line
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

    def _draw_wide(self, text: str) -> None:
        """pyte's draw for characters of width 1 and 2, one at a time, from cached cells."""
        cursor, columns, buffer = self.cursor, self.columns, self.buffer
        cells = self._pen_cells()
        stub, wrap = cells[""], mo.DECAWM in self.mode
        for char in text:
            width = wcwidth(char)
            if cursor.x == columns:
                if wrap:
                    self.dirty.add(cursor.y)
                    self.carriage_return()
                    self.linefeed()
                else:
                    cursor.x -= width
            line, x = buffer[cursor.y], cursor.x
            line[x] = cells[char]
            if width == 2 and x + 1 < columns:
                line[x + 1] = stub
            cursor.x = min(x + width, columns)
        self.dirty.add(cursor.y)


def _themed(attrs: tuple[int, ...]) -> tuple[int, ...]:
    """256-colour indexes below 16 as the SGR codes of the same themed colours (31 for 38;5;1).

    pyte keeps an index as the hex of xterm's default palette, where 9 and 196 are both ff0000:
    the terminal's theme would be lost. Parameters are consumed as pyte's SGR consumes them.
    """
    out: list[int] = []
    i = 0
    while i < len(attrs):
        attr, kind = attrs[i], attrs[i + 1] if i + 1 < len(attrs) else None
        if attr in (38, 48) and kind == 5 and i + 2 < len(attrs):
            index = attrs[i + 2]
            base = (30 if attr == 38 else 40) if index < 8 else (90 if attr == 38 else 100) - 8
            out.extend([base + index] if index < 16 else attrs[i : i + 3])
            i += 3
        elif attr in (38, 48) and kind == 2:
            out.extend(attrs[i : i + 5])
            i += 5
        else:
            out.append(attr)
            i += 1
    return tuple(out)


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
