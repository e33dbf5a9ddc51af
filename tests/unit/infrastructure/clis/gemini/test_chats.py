"""Gemini CLI's session files: the replay ``--resume`` relies on, and the copy kept of them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from idea.infrastructure.clis.gemini.chats import (
    SessionFile,
    SessionKeeper,
    read_session,
    session_files,
)

SESSION = "da97ad44-c439-45a7-b6ad-41b85ccb1ff1"
OTHER = "0b7c1e2a-0000-4000-8000-000000000000"
CONTEXT = [{"text": "<session_context>\nThis is the Gemini CLI.\n</session_context>"}]


def line(record: dict) -> bytes:
    return json.dumps(record).encode() + b"\n"


def header(session_id: str = SESSION) -> bytes:
    return line({"sessionId": session_id, "projectHash": "372795d0", "startTime": "t"})


def message(message_id: str, kind: str, content: object, **more: object) -> dict:
    return {"id": message_id, "timestamp": "t", "type": kind, "content": content, **more}


# As 0.61.0 writes a fresh session, then a turn ("warm up" answered).
FRESH = header() + line({"$set": {"messages": [message("c", "user", CONTEXT)]}})
ANSWERED = (
    FRESH
    + line(message("u1", "user", [{"text": "warm up"}]))
    + line({"$set": {"lastUpdated": "t"}})
    + line(message("g1", "gemini", "echo: warm up", thoughts=[], model="m"))
)
# What a resumed run stopped before it wrote the history back leaves (same file name).
WIPED = ANSWERED + header() + line({"$set": {"messages": [message("c", "user", CONTEXT)]}})
# What it writes back just before ``init``.
RESTORED = (
    WIPED
    + line({"$set": {"sessionId": SESSION}})
    + line(
        {
            "$set": {
                "messages": [
                    message("c", "user", CONTEXT),
                    message("u1", "user", [{"text": "warm up"}]),
                    message("g1", "gemini", "echo: warm up"),
                ]
            }
        }
    )
)


class TestReadSession:
    def test_a_fresh_session_holds_nothing_to_resume(self):
        assert read_session(FRESH) == SessionFile(SESSION, False)

    def test_an_answered_turn_resumes(self):
        assert read_session(ANSWERED) == SessionFile(SESSION, True)

    def test_a_resume_stopped_before_it_wrote_the_history_back_leaves_nothing(self):
        assert read_session(WIPED) == SessionFile(SESSION, False)
        assert read_session(RESTORED) == SessionFile(SESSION, True)

    def test_a_prompt_alone_resumes_but_not_a_command(self):
        assert read_session(FRESH + line(message("u", "user", [{"text": "hi"}]))).resumable
        assert not read_session(FRESH + line(message("u", "user", "/help"))).resumable
        assert not read_session(FRESH + line(message("u", "user", [{"text": "  "}]))).resumable
        assert not read_session(FRESH + line(message("i", "info", "Imported"))).resumable

    def test_a_reply_of_tool_calls_or_thoughts_only_resumes(self):
        calls = message("g", "gemini", "", toolCalls=[{"id": "1", "name": "ls"}])
        thoughts = message("g", "gemini", "", thoughts=[{"subject": "s"}])
        empty = message("g", "gemini", "", toolCalls=[], thoughts=[])
        assert read_session(FRESH + line(calls)).resumable
        assert read_session(FRESH + line(thoughts)).resumable
        assert not read_session(FRESH + line(empty)).resumable

    def test_a_tool_response_part_counts_as_content(self):
        part = [{"functionResponse": {"name": "ls", "response": {}}}]
        assert read_session(FRESH + line(message("u", "user", part))).resumable

    def test_a_line_cut_short_by_a_kill_is_skipped(self):
        cut = line(message("u2", "user", [{"text": "more"}]))[:-9]
        assert read_session(WIPED + cut) == SessionFile(SESSION, False)
        assert read_session(ANSWERED + cut + b"\n") == SessionFile(SESSION, True)

    def test_a_rewind_drops_the_message_and_what_follows(self):
        assert not read_session(ANSWERED + line({"$rewindTo": "u1"})).resumable
        assert read_session(ANSWERED + line({"$rewindTo": "g1"})).resumable
        assert not read_session(ANSWERED + line({"$rewindTo": "unknown"})).resumable

    def test_a_later_record_of_a_message_replaces_it(self):
        emptied = message("u1", "user", [{"text": ""}])
        answered_then_emptied = FRESH + line(message("u1", "user", "hi")) + line(emptied)
        assert not read_session(answered_then_emptied).resumable

    def test_the_older_single_document_is_read(self):
        legacy = {"sessionId": SESSION, "messages": [message("u", "user", "hi")]}
        assert read_session(json.dumps(legacy, indent=2).encode()) == SessionFile(SESSION, True)

    @pytest.mark.parametrize("data", [b"", b"not json\n", b"[1, 2]\n", line({"id": "x"})])
    def test_what_is_no_session(self, data: bytes):
        assert read_session(data) == SessionFile(None, False)


class World:
    def __init__(self, root: Path) -> None:
        self.gemini = root / "home" / ".gemini"
        self.chats = self.gemini / "tmp" / "agent-a" / "chats"
        self.chats.mkdir(parents=True)
        self.keeper = SessionKeeper(self.gemini, root / "run" / ".gemini" / "session-backup")

    def file(self, session_id: str = SESSION) -> Path:
        return self.chats / f"session-2026-12-01T17-45-{session_id[:8]}.jsonl"


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


class TestSessionKeeper:
    def test_a_wiped_session_is_restored_from_its_copy(self, world: World):
        world.file().write_bytes(ANSWERED)
        kept = world.keeper.keep(SESSION)
        assert kept is not None
        assert kept.read_bytes() == ANSWERED
        world.file().write_bytes(WIPED)  # a resumed run was stopped
        assert world.keeper.restore(SESSION) == world.file()
        assert world.file().read_bytes() == ANSWERED

    def test_a_session_deleted_altogether_comes_back_where_it_was(self, world: World):
        world.file().write_bytes(ANSWERED)
        world.keeper.keep(SESSION)
        world.file().unlink()
        world.chats.rmdir()
        # A new keeper (IdeA restarted) finds the copy on disk.
        again = SessionKeeper(world.gemini, world.keeper._backup_dir)
        assert again.restore(SESSION) == world.file()
        assert read_session(world.file().read_bytes()) == SessionFile(SESSION, True)

    def test_what_a_run_added_to_a_session_that_resumes_is_kept(self, world: World):
        world.file().write_bytes(ANSWERED)
        world.keeper.keep(SESSION)
        world.file().write_bytes(RESTORED)
        assert world.keeper.restore(SESSION) is None
        assert world.file().read_bytes() == RESTORED

    def test_prepare_restores_then_keeps_the_newest_file(self, world: World):
        world.file().write_bytes(ANSWERED)
        world.keeper.prepare(SESSION)
        world.file().write_bytes(WIPED)
        world.keeper.prepare(SESSION)
        assert world.file().read_bytes() == ANSWERED
        world.file().write_bytes(RESTORED)
        world.keeper.prepare(SESSION)
        (copy,) = world.keeper._copies(SESSION)
        assert copy.read_bytes() == RESTORED

    def test_no_copy_of_a_session_that_holds_nothing_to_resume(self, world: World):
        world.file().write_bytes(FRESH)
        assert world.keeper.keep(SESSION) is None
        assert world.keeper.restore(SESSION) is None
        assert world.file().read_bytes() == FRESH

    def test_a_copy_of_another_session_is_never_used(self, world: World):
        other = ANSWERED.replace(SESSION.encode(), OTHER.encode())
        world.file(OTHER).write_bytes(other)
        world.keeper.keep(OTHER)
        world.file(OTHER).write_bytes(WIPED.replace(SESSION.encode(), OTHER.encode()))
        assert world.keeper.restore(SESSION) is None
        assert not world.file().exists()

    def test_a_stray_file_of_the_session_is_not_the_one_kept(self, world: World):
        # A resumed run in a later minute records its new session in a file of its own.
        world.file().write_bytes(ANSWERED)
        stray = world.chats / f"session-2026-12-01T17-46-{SESSION[:8]}.jsonl"
        stray.write_bytes(FRESH)
        assert session_files(world.gemini, SESSION) == [world.file(), stray]
        kept = world.keeper.keep(SESSION)
        assert kept is not None
        assert kept.name == world.file().name

    def test_a_keeper_that_cannot_write_logs_and_goes_on(
        self, world: World, caplog: pytest.LogCaptureFixture
    ):
        world.file().write_bytes(ANSWERED)
        blocker = world.keeper._backup_dir
        blocker.parent.mkdir(parents=True)
        blocker.write_text("a file where the folder should be", encoding="utf-8")
        world.keeper.prepare(SESSION)  # raises nothing
        assert "cannot keep a copy of Gemini session" in caplog.text
