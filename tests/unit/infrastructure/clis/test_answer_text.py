"""A turn's bounded answer: joined as the CLIs show it, cut at the cap on a character boundary,
the whole text spilled as it comes, one line saying how much was cut and where it is."""

from __future__ import annotations

import pytest

from idea.domain.errors import Internal
from idea.infrastructure.clis.answer_text import REPLY_CAP_BYTES, AnswerText, cut_line

pytestmark = pytest.mark.timeout(30)


class Spill:
    """A ``ReplySpill`` in memory."""

    def __init__(self, fail_after: int | None = None) -> None:
        self.parts: list[str] = []
        self.closed = False
        self.fail_after = fail_after

    @property
    def where(self) -> str:
        return "/p/.ideai/run/replies.d/dev-1.txt"

    def write(self, text: str) -> None:
        if self.fail_after is not None and len(self.parts) >= self.fail_after:
            raise Internal("could not write /p/x: No space left on device")
        self.parts.append(text)

    def close(self) -> None:
        self.closed = True


def test_parts_after_a_tool_call_start_on_a_new_line():
    answer = AnswerText()
    answer.add("Let me look.")
    answer.tool_called()
    answer.add("")
    answer.add("Found it.\n")
    answer.tool_called()
    answer.add("Done")
    assert answer.text() == "Let me look.\nFound it.\nDone"


def test_a_reply_within_the_cap_is_whole_and_spills_nothing():
    spills: list[Spill] = []
    answer = AnswerText(cap_bytes=10, spill=lambda: spills.append(Spill()) or spills[-1])
    answer.add("0123456789")
    assert answer.text() == "0123456789"
    assert spills == []
    assert answer.cut_bytes == 0


def test_a_reply_over_the_cap_keeps_the_cap_and_ends_with_the_cut_line():
    spill = Spill()
    answer = AnswerText(cap_bytes=10, spill=lambda: spill)
    for piece in ["01234", "56789", "abcdef", "ghij"]:
        answer.add(piece)
    text = answer.text()
    assert text == "0123456789\n" + cut_line(10, spill.where)
    assert text.endswith(
        "[reply cut: 10 bytes more not shown; the whole reply is in " + spill.where + "]"
    )
    assert "".join(spill.parts) == "0123456789abcdefghij"  # the whole text, in order
    assert spill.closed


def test_the_cut_falls_on_a_character_boundary():
    spill = Spill()
    answer = AnswerText(cap_bytes=5, spill=lambda: spill)
    answer.add("ab€cd")  # € is 3 bytes: a, b, € fit in 5
    answer.add("é")
    text = answer.text()
    assert text.startswith("ab€\n[reply cut: 4 bytes more")
    assert "".join(spill.parts) == "ab€cdé"


def test_the_default_cap_is_one_mebibyte_of_utf8():
    spill = Spill()
    answer = AnswerText(spill=lambda: spill)
    piece = "é" * 1000  # 2,000 bytes
    for _ in range(3 * 1024):  # 6 MB of text
        answer.add(piece)
    text = answer.text()
    head, last = text.rsplit("\n", 1)
    assert len(head.encode()) == REPLY_CAP_BYTES == 1024 * 1024
    assert last == cut_line(3 * 1024 * 2000 - REPLY_CAP_BYTES, spill.where)
    assert "[reply cut: 4.9 MiB more not shown;" in last
    assert "".join(spill.parts) == piece * 3 * 1024


def test_a_spill_that_cannot_be_opened_still_cuts_and_says_so():
    def refuse() -> Spill:
        raise Internal("could not keep the reply in /p/x: Permission denied")

    answer = AnswerText(cap_bytes=4, spill=refuse)
    answer.add("0123456789")
    assert answer.text() == (
        "0123\n[reply cut: 6 bytes more not shown; the whole reply could not be kept: "
        "could not keep the reply in /p/x: Permission denied]"
    )


def test_a_spill_that_fails_midway_is_closed_and_the_line_says_why():
    spill = Spill(fail_after=2)
    answer = AnswerText(cap_bytes=4, spill=lambda: spill)
    for piece in ["0123456789", "more", "and more"]:
        answer.add(piece)
    assert "the whole reply could not be kept: could not write /p/x" in answer.text()
    assert spill.closed


def test_without_a_spill_the_line_only_says_how_much_was_cut():
    answer = AnswerText(cap_bytes=4)
    answer.add("0123\n456789")
    assert answer.text() == "0123\n[reply cut: 7 bytes more not shown]"
