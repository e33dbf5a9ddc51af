"""A terminal's screen as ANSI text: what redraws it in a freshly reset terminal (xterm.js).

Invariant: ``render(screen)`` written into a fresh ``VtScreen`` (or terminal) of the same size
gives the same cells, both buffers when the alternate one is shown, the scroll region, the cursor
(a pending wrap included), its pen, and the modes that input and drawing depend on; a stub pyte
left without its wide character, which a terminal cannot hold, is drawn as a blank. Rows are
drawn with auto-wrap off, each placed by absolute position: nothing the text draws scrolls.
Not carried: tab stops, DECSC's saved cursors (but 1049's), the title, reverse screen (DECSCNM),
a truecolor with a part above 255 (pyte keeps it as a hex of more than 6 digits).
"""

from __future__ import annotations

from pyte import modes as mo
from pyte.graphics import FG_BG_256
from pyte.screens import Char, Cursor, StaticDefaultDict, wcwidth

from idea.infrastructure.terminal.vt import VtScreen

__all__ = ["render"]

# Private modes restored (beside 6, 7, 25 and the alternate screen): cursor keys, cursor blink,
# application keypad, mouse tracking and its encodings, focus events, bracketed paste.
_MODES = (1, 12, 66, 1000, 1002, 1003, 1004, 1005, 1006, 1015, 2004)
_PENS = 256  # SGR strings kept
_COLOURS = ("black", "red", "green", "brown", "blue", "magenta", "cyan", "white")
_FG = {name: str(30 + i) for i, name in enumerate(_COLOURS)}
_FG |= {f"bright{name}": str(90 + i) for i, name in enumerate(_COLOURS)}
_BG = {name: str(40 + i) for i, name in enumerate(_COLOURS)}
_BG |= {f"bright{name}": str(100 + i) for i, name in enumerate(_COLOURS)}
_BG["bfightmagenta"] = "105"  # pyte's own spelling of 105
# pyte keeps indexes 16-255 as hex: written back as indexes (below 16, VtScreen keeps names).
_INDEX = {hexa: str(i) for i, hexa in enumerate(FG_BG_256) if i >= 16}
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
    """The screen as ANSI text for a freshly reset terminal of the same size."""
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
    on = [str(m) for m in _MODES if m << 5 in modes]
    on += ["7"] if mo.DECAWM in modes else []
    out.append(f"\x1b[?{';'.join(on)}h" if on else "")
    out.append("" if mo.DECTCEM in modes else "\x1b[?25l")
    return "".join(out)
