from pathlib import Path

import pytest

from idea.infrastructure.stores.recent_projects import LIMIT, RecentProjects, user_config_dir


def test_newest_first_one_entry_per_folder(tmp_path: Path) -> None:
    recent = RecentProjects(tmp_path / "cfg" / "recent.json")
    a, b = tmp_path / "a", tmp_path / "b"
    recent.add(a, "a")
    recent.add(b, "b")
    recent.add(a / ".." / "a", "a again")
    assert [(r.root, r.name) for r in recent.all()] == [
        (str(a.resolve()), "a again"),
        (str(b.resolve()), "b"),
    ]


def test_keeps_at_most_the_limit(tmp_path: Path) -> None:
    recent = RecentProjects(tmp_path / "recent.json")
    for i in range(LIMIT + 3):
        recent.add(tmp_path / f"p{i}", f"p{i}")
    names = [r.name for r in recent.all()]
    assert len(names) == LIMIT
    assert names[0] == f"p{LIMIT + 2}"


def test_a_corrupt_file_is_moved_aside_and_the_list_starts_again(tmp_path: Path) -> None:
    path = tmp_path / "recent.json"
    path.write_text("{not json", encoding="utf-8")
    recent = RecentProjects(path)
    assert recent.all() == []
    recent.add(tmp_path / "x", "x")
    assert [r.name for r in recent.all()] == ["x"]
    assert [p.name for p in tmp_path.glob("recent.json.corrupt-*")]


def test_entries_of_the_wrong_shape_are_ignored(tmp_path: Path) -> None:
    path = tmp_path / "recent.json"
    path.write_text(
        '{"projects": [1, {"root": 2}, {"root": "/r", "name": "r", "opened_at_ms": 5}]}',
        encoding="utf-8",
    )
    assert [(r.root, r.opened_at_ms) for r in RecentProjects(path).all()] == [("/r", 5)]


def test_config_folder_follows_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("IDEA_CONFIG_DIR", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert user_config_dir() == tmp_path / "xdg" / "idea"
    monkeypatch.setenv("IDEA_CONFIG_DIR", str(tmp_path / "own"))
    assert user_config_dir() == tmp_path / "own"
