"""A terminal's screen kept on the server: a VT emulator (pyte) fed lazily, drawn as ANSI text.

Invariant: ``snapshot()``, written into a freshly reset terminal of the same size, draws the screen
that the text fed so far leaves, with the modes, scroll region, cursor and pen that the bytes which
follow depend on. The screen is exact while ``feed`` keeps within its parse budget
(``FOLLOW_BUDGET`` characters a second of the clock); past it the oldest text is dropped, at most
``tail`` characters are kept, and the next snapshot is rebuilt from them (``exact`` is False then)
with the private modes, alternate screen and scroll region set by the text dropped. Past the
budget ``feed`` only appends, drops the oldest chunks (cutting the oldest one kept) and scans what
it drops: it never parses more than its budget.
"""

from __future__ import annotations

import re
import time
from collections import deque
from collections.abc import Callable

from pyte import modes as mo

from idea.domain.errors import Invalid
from idea.infrastructure.terminal.snapshot import render
from idea.infrastructure.terminal.vt import ALTERNATE_MODES, DECCOLM, VtScreen, VtStream

__all__ = ["FOLLOW_BUDGET", "TerminalScreen", "tail_bound"]

FOLLOW_BUDGET = 16384  # characters a second that feed() may parse, unless told otherwise
_TAIL_MIN, _TAIL_MAX, _TAIL_SCREENS = 8192, 65536, 4
# What a dropped text can change for good: private modes, DECSTBM, a full reset (RIS).
_MODE_SEQUENCE = re.compile(r"(?:\x1b\[|\x9b)(\?)?([0-9;]{0,200})([hlr])|\x1bc")
_CSI_MODE = re.compile(r"\x1b\[(\?)?([0-9;]{0,200})([hlr])")  # _MODE_SEQUENCE's 7-bit CSI part
_PARTIAL_TAIL = re.compile(r"(?:\x1b\[?|\x9b)\??[0-9;]{0,200}\Z")
_PARTIAL = re.compile(r"(?:\x1b\[?|\x9b)\??[0-9;]{0,200}")
_NEAR_START = 64  # how far into a tail a rebuild looks for a line or a sequence start
_CARRY = 210  # longest partial sequence carried from one dropped text to the next


def tail_bound(rows: int, cols: int) -> int:
    """Characters kept past the budget: four screens' worth, within 8 KiB and 64 KiB."""
    return max(_TAIL_MIN, min(_TAIL_MAX, rows * cols * _TAIL_SCREENS))


def _check_size(rows: int, cols: int) -> None:
    if rows < 1 or cols < 1:
        raise Invalid(f"a terminal needs at least 1 row and 1 column, got {rows}x{cols}")


def tail_start(text: str, rows: int) -> int:
    """Where a rebuild from ``text`` starts parsing: at the start of its last ``rows`` lines (all
    that a screen of lines shows, so a flood's rebuild parses a screenful, not the whole tail).
    With fewer lines (long wrapped lines, a program drawing by cursor moves) all of it is needed:
    from a newline or an escape sequence near its start, which may cut a sequence."""
    end = len(text)
    for _ in range(rows + 1):
        end = text.rfind("\n", 0, end)
        if end < 0:
            head = text[:_NEAR_START]
            newline, escape = head.find("\n"), head.find("\x1b")
            if escape >= 0 and (newline < 0 or escape < newline):
                return escape
            return newline + 1 if newline >= 0 else 0
    return end + 1


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
        self.modes = {m >> 5: True for m in modes if m and not m & 31 and m >> 5 != DECCOLM}
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
        if text.find("\x9b", start, end) >= 0:  # 8-bit controls (rare): the whole pattern
            for match in _MODE_SEQUENCE.finditer(text, start, end):
                self._record(match)
        else:
            # A pattern with a literal start skips plain text at C speed (the alternation of
            # _MODE_SEQUENCE tries every position: 20 times slower on a flood).
            reset = text.rfind("\x1bc", start, end)
            if reset >= 0:
                self.modes, self.alternate, self.margins = {}, None, []
            for match in _CSI_MODE.finditer(text, reset + 2 if reset >= 0 else start, end):
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
            for mode in (min(int(p), 9999) for p in params.split(";") if p):  # as pyte caps
                if mode in ALTERNATE_MODES:
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
    budget allows (``follow_budget`` characters a second, in bursts of up to ``2 * tail``), else
    drops the oldest text down to ``tail`` and leaves the screen to be rebuilt by ``snapshot``.
    """

    def __init__(
        self,
        rows: int,
        cols: int,
        *,
        clock: Callable[[], float] = time.monotonic,
        follow_budget: int = FOLLOW_BUDGET,
    ) -> None:
        _check_size(rows, cols)
        if follow_budget < 0:
            raise Invalid(f"a parse budget cannot be negative, got {follow_budget}")
        self._clock, self._budget = clock, follow_budget
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
        return max(self._budget, 2 * self._tail)

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
        self._tokens = min(self._burst, self._tokens + (now - self._refilled) * self._budget)
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
        cut = tail_start(text, self.rows)
        self._memory.scan(text, 0, cut)
        self._screen.reset()
        self._stream = VtStream(self._screen)  # the parser may have stopped mid-sequence
        self._memory.apply(self._screen)
        self._stream.feed(text[cut:])
        self._parsed_end = text[-_CARRY:]
        self._dropping, self._rebuilt = False, True
