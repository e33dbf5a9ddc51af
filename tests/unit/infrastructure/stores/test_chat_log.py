from idea.infrastructure.stores.chat_log import JsonlChatLog


def test_turns_appended_then_loaded_in_order_a_torn_line_skipped(tmp_path):
    chats = JsonlChatLog(tmp_path / "chats")
    chats.append("id-a", [{"type": "turn_started", "prompt": "hi"}, {"type": "final", "text": "x"}])
    with (tmp_path / "chats" / "id-a.jsonl").open("a", encoding="utf-8") as f:
        f.write('{"type": "text", "te')  # a crash mid-write
    assert chats.load("id-a") == [
        {"type": "turn_started", "prompt": "hi"},
        {"type": "final", "text": "x"},
    ]
    assert chats.load("id-b") == []


def test_past_the_bound_the_newest_half_is_kept_whole_lines_only(tmp_path):
    chats = JsonlChatLog(tmp_path, max_bytes=2000)
    for i in range(100):
        chats.append("a", [{"type": "final", "text": f"reply {i}"}])
    size = (tmp_path / "a.jsonl").stat().st_size
    assert size <= 2000
    texts = [e["text"] for e in chats.load("a")]
    assert texts[-1] == "reply 99"
    assert texts == [f"reply {i}" for i in range(100 - len(texts), 100)]


def test_an_id_that_is_not_a_slug_is_never_a_path(tmp_path):
    chats = JsonlChatLog(tmp_path / "chats")
    chats.append("../escape", [{"type": "final", "text": "x"}])
    assert not list(tmp_path.rglob("*.jsonl"))
    assert chats.load("../escape") == []
