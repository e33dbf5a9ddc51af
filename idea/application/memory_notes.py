"""Memory notes: read, write and delete; the store keeps ``memory/INDEX.md`` in sync."""

from __future__ import annotations

from idea.application.ports import MemoryStore
from idea.domain.errors import MissingField
from idea.domain.knowledge import MemoryNote


def write_memory_note(
    store: MemoryStore, slug: str, name: str, description: str, note_type: str, body: str
) -> MemoryNote:
    """Create or replace a note. Raises ``Invalid`` (slug), ``MissingField`` (name)."""
    if not name.strip():
        raise MissingField("name")
    note = MemoryNote(slug, name.strip(), description.strip(), note_type.strip() or "note", body)
    store.save(note)
    return note


def read_memory_note(store: MemoryStore, slug: str) -> MemoryNote:
    """Raises ``NotFound``."""
    return store.get(slug)


def list_memory_notes(store: MemoryStore) -> list[MemoryNote]:
    return store.all()


def delete_memory_note(store: MemoryStore, slug: str) -> None:
    """Raises ``NotFound``."""
    store.delete(slug)
