import pytest

from idea.app.chat_transcripts import ChatTranscripts, cut_note


def test_text_pieces_fold_into_one_entry_carrying_the_last_seq() -> None:
    t = ChatTranscripts()
    t.add("a", {"type": "turn_started", "requester_id": None, "prompt": "hi"})
    t.add("a", {"type": "text", "text": "he"})
    last = t.add("a", {"type": "text", "text": "llo"})
    history = t.history("a")
    assert [(e["type"], e.get("text")) for e in history["entries"]] == [
        ("turn_started", None),
        ("text", "hello"),
    ]
    assert history["entries"][-1]["seq"] == last == history["seq"]


def test_one_counter_for_all_agents_and_separate_entries() -> None:
    t = ChatTranscripts()
    first = t.add("a", {"type": "final", "text": "x"})
    second = t.add("b", {"type": "final", "text": "y"})
    assert second > first
    assert [e["text"] for e in t.history("a")["entries"]] == ["x"]
    assert t.history("a")["seq"] == second  # a client applies live events after it
    assert t.history("nobody") == {"entries": [], "seq": second}


def test_the_oldest_entries_go_first_past_the_bound() -> None:
    t = ChatTranscripts(limit_chars=400)
    for i in range(50):
        t.add("a", {"type": "final", "text": f"reply {i}"})
    entries = t.history("a")["entries"]
    assert 1 <= len(entries) < 50
    assert entries[-1]["text"] == "reply 49"
    assert [e["seq"] for e in entries] == list(range(51 - len(entries), 51))


def test_history_is_a_copy() -> None:
    t = ChatTranscripts()
    t.add("a", {"type": "text", "text": "x"})
    t.history("a")["entries"][0]["text"] = "changed"
    assert t.history("a")["entries"][0]["text"] == "x"


class MemoryLog:
    def __init__(self, past=None):
        self.files = {k: list(v) for k, v in (past or {}).items()}

    def load(self, agent_id):
        return [dict(e) for e in self.files.get(agent_id, [])]

    def append(self, agent_id, entries):
        self.files.setdefault(agent_id, []).extend(entries)


def test_each_turn_is_logged_when_it_ends_and_comes_back_in_a_new_transcript() -> None:
    log = MemoryLog()
    t = ChatTranscripts(chat_log=log)
    t.add("a", {"type": "turn_started", "requester_id": None, "prompt": "hi"})
    t.add("a", {"type": "text", "text": "he"})
    assert log.files == {}  # mid-turn: nothing written yet
    t.add("a", {"type": "text", "text": "llo"})
    t.add("a", {"type": "final", "text": "hello"})
    assert [e["type"] for e in log.files["a"]] == ["turn_started", "text", "final"]
    assert all("seq" not in e for e in log.files["a"])

    again = ChatTranscripts(chat_log=log)  # the app restarted
    history = again.history("a")
    assert [(e["type"], e.get("text")) for e in history["entries"]] == [
        ("turn_started", None),
        ("text", "hello"),
        ("final", "hello"),
    ]
    seq = again.add("a", {"type": "turn_started", "requester_id": None, "prompt": "more"})
    assert seq > history["seq"]
    assert len(log.files["a"]) == 3  # the restored entries are not written twice


def test_a_turn_without_a_final_is_logged_when_the_next_begins() -> None:
    log = MemoryLog()
    t = ChatTranscripts(chat_log=log)
    t.add("a", {"type": "turn_started", "requester_id": None, "prompt": "one"})
    t.add("a", {"type": "text", "text": "partial"})
    t.add("a", {"type": "turn_started", "requester_id": None, "prompt": "two"})
    assert [e.get("prompt") or e.get("text") for e in log.files["a"]] == ["one", "partial"]


@pytest.mark.timeout(30)
def test_a_reply_in_300_000_pieces_is_folded_at_the_cost_of_each_piece() -> None:
    # Joined at each piece, 1 MB in 3-character pieces copies ~170 GB: minutes, not a second.
    t = ChatTranscripts()
    t.add("a", {"type": "turn_started", "requester_id": None, "prompt": "ONE_LINE_REPLY"})
    line = "lorem ipsum dolor sit amet " * 37_000
    for i in range(0, len(line), 3):
        t.add("a", {"type": "text", "text": line[i : i + 3]})
    [_, text] = t.history("a")["entries"]
    assert text["text"] == line


def test_history_read_mid_reply_then_more_pieces_gives_the_whole_reply_logged_once() -> None:
    log = MemoryLog()
    t = ChatTranscripts(chat_log=log)
    t.add("a", {"type": "turn_started", "requester_id": None, "prompt": "hi"})
    t.add("a", {"type": "text", "text": "one "})
    t.add("a", {"type": "text", "text": "two "})
    assert t.history("a")["entries"][-1]["text"] == "one two "
    t.add("a", {"type": "text", "text": "three"})
    t.add("a", {"type": "final", "text": "one two three"})
    assert [e.get("text") for e in t.history("a")["entries"]] == [
        None,
        "one two three",
        "one two three",
    ]
    assert [e.get("text") for e in log.files["a"]] == [None, "one two three", "one two three"]


def test_a_streamed_text_keeps_the_entry_limit_and_says_how_much_was_not_kept() -> None:
    t = ChatTranscripts(entry_limit_chars=100)
    t.add("a", {"type": "turn_started", "requester_id": None, "prompt": "hi"})
    for _ in range(25):
        t.add("a", {"type": "text", "text": "0123456789"})
    text = t.history("a")["entries"][-1]["text"]
    assert text == "0123456789" * 10 + cut_note(150)
    assert "150 more characters" in text


def test_a_prompt_a_final_or_a_tool_output_past_the_entry_limit_is_cut_saying_so() -> None:
    t = ChatTranscripts(entry_limit_chars=100)
    big = "x" * 1000
    t.add("a", {"type": "turn_started", "requester_id": None, "prompt": big})
    t.add("a", {"type": "tool_result", "tool_id": "t1", "output": big, "is_error": False})
    t.add("a", {"type": "text", "text": big})
    t.add("a", {"type": "final", "text": big, "is_error": False})
    entries = t.history("a")["entries"]
    kept = [e.get("prompt") or e.get("output") or e.get("text") for e in entries]
    assert kept == ["x" * 100 + cut_note(900)] * 4


def test_a_megabyte_reply_and_its_final_leave_the_turn_in_the_history() -> None:
    t = ChatTranscripts()
    t.add("a", {"type": "turn_started", "requester_id": None, "prompt": "ONE_LINE_REPLY"})
    line = "y" * 1_000_000
    for i in range(0, len(line), 16_384):
        t.add("a", {"type": "text", "text": line[i : i + 16_384]})
    t.add("a", {"type": "final", "text": line, "is_error": False})
    types = [e["type"] for e in t.history("a")["entries"]]
    assert types == ["turn_started", "text", "final"]  # the prompt is not pushed out
    assert len(t.history("a")["entries"][1]["text"]) == 1_000_000
