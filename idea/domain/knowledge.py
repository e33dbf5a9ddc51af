"""Skills (``skills/<name>/SKILL.md``) and memory notes (``memory/<slug>.md`` + ``INDEX.md``).

Both are Markdown with front matter; unknown front matter keys survive a rewrite. The memory
index is a pure rendering of the notes, so it can always be rebuilt from them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from idea.domain import frontmatter
from idea.domain.errors import Invalid, MissingField
from idea.domain.frontmatter import FrontMatter
from idea.domain.names import validate_slug


@dataclass(frozen=True, slots=True)
class Skill:
    name: str
    description: str
    body: str
    extra: FrontMatter = field(default_factory=dict)

    def __post_init__(self) -> None:
        validate_slug(self.name, "skill name")
        if not self.description.strip():
            raise MissingField("description")

    def to_markdown(self) -> str:
        front: FrontMatter = {"name": self.name, "description": self.description, **self.extra}
        return frontmatter.render(front, self.body)

    @staticmethod
    def from_markdown(name: str, text: str) -> Skill:
        doc = frontmatter.parse(text)
        description = doc.front.get("description", "")
        if not isinstance(description, str):
            raise Invalid(f"skill {name}: 'description' must be a single value")
        extra = {k: v for k, v in doc.front.items() if k not in ("name", "description")}
        return Skill(name=name, description=description, body=doc.body, extra=extra)


@dataclass(frozen=True, slots=True)
class MemoryNote:
    slug: str
    name: str
    description: str
    type: str
    body: str
    extra: FrontMatter = field(default_factory=dict)

    def __post_init__(self) -> None:
        validate_slug(self.slug, "memory note")

    def to_markdown(self) -> str:
        metadata = self.extra.get("metadata")
        meta: FrontMatter = dict(metadata) if isinstance(metadata, dict) else {}
        meta["type"] = self.type
        front: FrontMatter = {"name": self.name, "description": self.description}
        front.update({k: v for k, v in self.extra.items() if k != "metadata"})
        front["metadata"] = meta
        return frontmatter.render(front, self.body)

    @staticmethod
    def from_markdown(slug: str, text: str) -> MemoryNote:
        doc = frontmatter.parse(text)
        front = doc.front
        name = front.get("name", slug)
        description = front.get("description", "")
        metadata = front.get("metadata", {})
        if not isinstance(name, str) or not isinstance(description, str):
            raise Invalid(f"memory note {slug}: 'name' and 'description' must be single values")
        note_type = metadata.get("type", "note") if isinstance(metadata, dict) else "note"
        if not isinstance(note_type, str):
            raise Invalid(f"memory note {slug}: 'metadata.type' must be a single value")
        extra = {k: v for k, v in front.items() if k not in ("name", "description", "metadata")}
        if isinstance(metadata, dict):
            # `type` is a field of its own; other metadata keys are kept for the rewrite.
            rest = {k: v for k, v in metadata.items() if k != "type"}
            if rest:
                extra["metadata"] = rest
        return MemoryNote(slug, name, description, note_type, doc.body, extra)


def render_memory_index(notes: Iterable[MemoryNote]) -> str:
    """``memory/INDEX.md``: one line per note, sorted by slug, linking to its file."""
    lines = ["# Memory", ""]
    for note in sorted(notes, key=lambda n: n.slug):
        summary = " ".join(note.description.split())
        lines.append(f"- [{note.name}]({note.slug}.md) ({note.type}): {summary}".rstrip(": "))
    return "\n".join(lines) + "\n"
