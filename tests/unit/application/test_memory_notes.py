import pytest

from idea.application.memory_notes import (
    delete_memory_note,
    list_memory_notes,
    read_memory_note,
    write_memory_note,
)
from idea.domain.errors import Invalid, MissingField, NotFound
from idea.infrastructure.stores.knowledge import MarkdownMemoryStore
from idea.infrastructure.stores.paths import ProjectPaths
from tests.fakes.ports.clock import FakeClock


@pytest.fixture
def store(tmp_path):
    return MarkdownMemoryStore(ProjectPaths(tmp_path), FakeClock())


def test_write_read_list_delete_keep_the_index_in_sync(store, tmp_path):
    write_memory_note(store, "decision-1", " Reboot ", "why we reconcile", "", "body ✓")
    note = read_memory_note(store, "decision-1")
    assert (note.name, note.type, note.body) == ("Reboot", "note", "body ✓")
    assert [n.slug for n in list_memory_notes(store)] == ["decision-1"]
    index = (tmp_path / ".ideai" / "memory" / "INDEX.md").read_text(encoding="utf-8")
    assert "(decision-1.md)" in index
    delete_memory_note(store, "decision-1")
    assert list_memory_notes(store) == []
    index = (tmp_path / ".ideai" / "memory" / "INDEX.md").read_text(encoding="utf-8")
    assert "decision-1" not in index
    with pytest.raises(NotFound):
        read_memory_note(store, "decision-1")


def test_bad_input_names_the_problem(store):
    with pytest.raises(MissingField) as err:
        write_memory_note(store, "x", " ", "d", "t", "b")
    assert err.value.field == "name"
    with pytest.raises(Invalid):
        write_memory_note(store, "../escape", "n", "d", "t", "b")
