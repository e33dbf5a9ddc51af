from idea.app.chat_transcripts import ChatTranscripts


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
