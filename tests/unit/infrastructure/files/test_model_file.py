"""ChangeCache: a file is read again once it changed, appeared or disappeared, never otherwise."""

from __future__ import annotations

import sys

import pytest

from idea.infrastructure.files.model_file import ChangeCache


def counting_loader(path):
    reads = []

    def load():
        reads.append(1)
        return path.read_text(encoding="utf-8") if path.exists() else None

    return load, reads


def test_a_file_is_read_again_only_once_it_changed(tmp_path):
    path = tmp_path / "state.json"
    path.write_text("one", encoding="utf-8")
    cache: ChangeCache[str] = ChangeCache(path)
    load, reads = counting_loader(path)
    assert [cache.get(load), cache.get(load)] == ["one", "one"]
    assert len(reads) == 1
    path.write_text("three", encoding="utf-8")  # in place, another size
    assert cache.get(load) == "three"
    assert len(reads) == 2


def test_an_absent_file_is_not_opened_again_until_it_appears(tmp_path):
    path = tmp_path / "profiles.json"
    cache: ChangeCache[str] = ChangeCache(path)
    load, reads = counting_loader(path)
    assert [cache.get(load), cache.get(load), cache.get(load)] == [None, None, None]
    assert len(reads) == 1
    path.write_text("here", encoding="utf-8")
    assert cache.get(load) == "here"
    path.unlink()
    assert cache.get(load) is None
    assert len(reads) == 3


@pytest.mark.skipif(sys.platform == "win32", reason="a path through a file is ENOTDIR on POSIX")
def test_an_unreadable_path_is_loaded_each_time(tmp_path):
    """Not absent, not statable (a path through a file): load() is asked, nothing is kept."""
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    path = blocker / "below.json"
    cache: ChangeCache[str] = ChangeCache(path)
    calls = []

    def load():
        calls.append(1)
        return "loaded"

    assert cache.get(load) == cache.get(load) == "loaded"
    assert len(calls) == 2
