"""The delegation journal: rotated by size, read from its tail whatever its length or content."""

from __future__ import annotations

import json
import os
import sys

import pytest

from idea.infrastructure.files import jsonl
from idea.infrastructure.files.jsonl import append_record, read_records
from idea.infrastructure.stores.delegation_log import JsonlDelegationLog


def _row(n: int, pad: int = 0) -> dict[str, object]:
    return {"n": n, "reply": "x" * pad}


def test_recent_returns_the_last_records_oldest_first(tmp_path):
    log = JsonlDelegationLog(tmp_path / "delegations.jsonl")
    for n in range(250):
        log.append(_row(n))
    assert [r["n"] for r in log.recent(100)] == list(range(150, 250))
    assert [r["n"] for r in log.recent(1000)] == list(range(250))


def test_the_journal_rotates_past_its_size_and_recent_spans_both_generations(tmp_path):
    path = tmp_path / "delegations.jsonl"
    log = JsonlDelegationLog(path, max_bytes=20_000)
    for n in range(2_000):
        log.append(_row(n, pad=100))
    previous = tmp_path / "delegations.1.jsonl"
    assert previous.is_file()
    # Never more than two generations, each bounded by the cap and one record.
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["delegations.1.jsonl", "delegations.jsonl"]
    assert path.stat().st_size <= 20_000 + 200
    assert previous.stat().st_size <= 20_000 + 200
    in_current = len(path.read_text().splitlines())
    rows = log.recent(in_current + 10)
    assert [r["n"] for r in rows] == list(range(2_000 - in_current - 10, 2_000))


def test_reading_the_tail_does_not_read_the_whole_file(tmp_path, monkeypatch):
    path = tmp_path / "big.jsonl"
    with path.open("w") as f:
        for n in range(200_000):
            f.write(json.dumps(_row(n)) + "\n")
    read_sizes: list[int] = []
    real_read = os.read

    def counting_read(fd: int, size: int) -> bytes:
        data = real_read(fd, size)
        read_sizes.append(len(data))
        return data

    monkeypatch.setattr(jsonl.os, "read", counting_read)
    rows = read_records(path, 10)
    assert [r["n"] for r in rows] == list(range(199_990, 200_000))
    assert sum(read_sizes) <= 2 * jsonl.BLOCK_BYTES < path.stat().st_size // 10


def test_torn_lines_foreign_lines_and_an_overlong_line_are_skipped(tmp_path):
    path = tmp_path / "d.jsonl"
    huge = json.dumps(_row(1, pad=3 * jsonl.MAX_LINE_BYTES))
    path.write_text(
        "\n".join([json.dumps(_row(0)), huge, "not json", "[1, 2]", json.dumps(_row(2)), '{"n": 3'])
    )
    assert [r["n"] for r in read_records(path, 10)] == [0, 2]


def test_a_file_without_a_newline_is_one_record(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps(_row(7, pad=200_000)))
    assert [r["n"] for r in read_records(path, 10)] == [7]


@pytest.mark.parametrize("size", [1, 2, 5, 64])
def test_any_block_size_gives_the_same_records(tmp_path, monkeypatch, size):
    path = tmp_path / "d.jsonl"
    for n in range(40):
        append_record(path, _row(n, pad=n))
    monkeypatch.setattr(jsonl, "BLOCK_BYTES", size)
    assert [r["n"] for r in read_records(path, 25)] == list(range(15, 40))


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and O_NOFOLLOW are POSIX")
def test_a_planted_fifo_or_link_is_not_read(tmp_path):
    fifo = tmp_path / "delegations.jsonl"
    os.mkfifo(fifo)
    assert JsonlDelegationLog(fifo).recent(10) == []  # would block forever if opened for reading
    target = tmp_path / "elsewhere.jsonl"
    target.write_text(json.dumps(_row(1)) + "\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    assert read_records(link, 10) == []


def test_the_first_record_makes_its_folder_and_the_next_ones_append(tmp_path):
    path = tmp_path / "log" / "deeper" / "rows.jsonl"
    assert append_record(path, {"n": 1}) is not None
    assert append_record(path, {"n": 2}) is not None
    assert read_records(path, 10) == [{"n": 1}, {"n": 2}]
