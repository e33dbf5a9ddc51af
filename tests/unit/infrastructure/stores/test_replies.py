"""The replies folder: one new 0600 file per cut reply, no link followed, the newest 50 kept."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from idea.domain.errors import Internal, Invalid
from idea.infrastructure.stores.paths import ProjectPaths
from idea.infrastructure.stores.replies import KEEP_REPLIES, ReplyFiles

pytestmark = [
    pytest.mark.timeout(30),
    pytest.mark.skipif(os.name == "nt", reason="POSIX modes and links"),
]


def test_a_reply_file_holds_what_was_written_with_mode_0600(tmp_path: Path):
    folder = ProjectPaths(tmp_path).replies
    reply = ReplyFiles(folder).open("dev")
    reply.write("héllo ")
    reply.write("world")
    reply.close()
    path = Path(reply.where)
    assert path.parent == tmp_path / ".ideai" / "run" / "replies.d"
    assert path.name.startswith("dev-") and path.suffix == ".txt"
    assert path.read_text(encoding="utf-8") == "héllo world"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_only_the_newest_fifty_are_kept(tmp_path: Path):
    files = ReplyFiles(tmp_path / "replies.d")
    made = []
    for i in range(KEEP_REPLIES + 7):
        reply = files.open("dev")
        reply.close()
        path = Path(reply.where)
        os.utime(path, ns=(i * 10**9, i * 10**9))  # their order, whatever the clock's grain
        made.append(path.name)
    (tmp_path / "replies.d" / "notes.md").write_text("not a reply", encoding="utf-8")
    left = sorted(p.name for p in (tmp_path / "replies.d").iterdir() if p.suffix == ".txt")
    assert KEEP_REPLIES == 50
    assert left == sorted(made[-KEEP_REPLIES:])
    assert (tmp_path / "replies.d" / "notes.md").exists()


def test_a_folder_that_is_a_link_is_refused(tmp_path: Path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "replies.d").symlink_to(elsewhere)
    with pytest.raises(Internal):
        ReplyFiles(tmp_path / "run" / "replies.d").open("dev")
    assert list(elsewhere.iterdir()) == []


def test_a_name_with_a_path_in_it_is_refused(tmp_path: Path):
    with pytest.raises(Invalid):
        ReplyFiles(tmp_path).open("../dev")
