"""Skills (``skills/<name>/SKILL.md``) and memory notes (``memory/<slug>.md`` + ``INDEX.md``).

The memory index is rewritten after every note change, from the notes on disk, so it never
drifts from them (a crash between the two writes is healed by the next change or ``reindex``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from idea.application.ports import Clock, CorruptionReporter
from idea.domain.errors import CorruptFile, NotFound
from idea.domain.knowledge import MemoryNote, Skill, render_memory_index
from idea.domain.names import is_slug, validate_slug
from idea.infrastructure.files.atomic import make_folder, read_text, write_atomic
from idea.infrastructure.files.model_file import load_text_model
from idea.infrastructure.files.os_errors import os_error
from idea.infrastructure.stores.paths import ProjectPaths

T = TypeVar("T")


def _ignore(_: CorruptFile) -> None:
    pass


def _read_all(
    paths: list[tuple[str, Path]],
    parse: Callable[[str, str], T],
    clock: Clock,
    report: CorruptionReporter,
) -> list[T]:
    items: list[T] = []
    for key, path in paths:
        try:
            item = load_text_model(path, functools.partial(parse, key), clock.now_ms)
        except CorruptFile as exc:
            report(exc)
            continue
        if item is not None:
            items.append(item)
    return items


class _MarkdownFiles:
    """What both stores share: one Markdown file per item, read through the corruption check."""

    def __init__(
        self, paths: ProjectPaths, clock: Clock, report: CorruptionReporter = _ignore
    ) -> None:
        self._paths = paths
        self._clock = clock
        self._report = report

    def _load(self, path: Path, key: str, parse: Callable[[str, str], T], missing: str) -> T:
        item = load_text_model(path, functools.partial(parse, key), self._clock.now_ms)
        if item is None:
            raise NotFound(missing)
        return item

    @staticmethod
    def _write(path: Path, text: str) -> None:
        make_folder(path.parent)
        write_atomic(path, text)


class MarkdownSkillStore(_MarkdownFiles):
    def all(self) -> list[Skill]:
        folder = self._paths.skills
        found = (
            [(d.name, d / "SKILL.md") for d in sorted(folder.iterdir()) if is_slug(d.name)]
            if folder.is_dir()
            else []
        )
        return _read_all(found, Skill.from_markdown, self._clock, self._report)

    def get(self, name: str) -> Skill:
        validate_slug(name, "skill name")
        path = self._paths.skill_file(name)
        return self._load(path, name, Skill.from_markdown, f"no skill named '{name}'")

    def save(self, skill: Skill) -> None:
        self._write(self._paths.skill_file(skill.name), skill.to_markdown())


class MarkdownMemoryStore(_MarkdownFiles):
    def all(self) -> list[MemoryNote]:
        folder = self._paths.memory
        found = (
            [(p.stem, p) for p in sorted(folder.glob("*.md")) if is_slug(p.stem)]
            if folder.is_dir()
            else []
        )
        return _read_all(found, MemoryNote.from_markdown, self._clock, self._report)

    def get(self, slug: str) -> MemoryNote:
        validate_slug(slug, "memory note")
        path = self._paths.memory_file(slug)
        return self._load(path, slug, MemoryNote.from_markdown, f"no memory note '{slug}'")

    def save(self, note: MemoryNote) -> None:
        self._write(self._paths.memory_file(note.slug), note.to_markdown())
        self.reindex()

    def delete(self, slug: str) -> None:
        validate_slug(slug, "memory note")
        path = self._paths.memory_file(slug)
        try:
            path.unlink()
        except FileNotFoundError:
            raise NotFound(f"no memory note '{slug}'") from None
        except OSError as exc:
            raise os_error("delete", path, exc) from exc
        self.reindex()

    def reindex(self) -> None:
        """Rewrite ``INDEX.md`` from the notes on disk (only if it changed)."""
        index = render_memory_index(self.all())
        if read_text(self._paths.memory_index) != index:
            self._write(self._paths.memory_index, index)
