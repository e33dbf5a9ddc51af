import pytest

from idea.domain.errors import Invalid, MissingField
from idea.domain.knowledge import MemoryNote, Skill, render_memory_index


def test_skill_round_trip_keeps_unknown_keys():
    skill = Skill("review-pr", "How to review: a checklist", "# Steps\n1. read\n", {"x": "y"})
    assert Skill.from_markdown("review-pr", skill.to_markdown()) == skill


def test_skill_needs_a_description_and_a_slug():
    with pytest.raises(MissingField) as err:
        Skill("ok", "  ", "body")
    assert err.value.field == "description"
    with pytest.raises(Invalid):
        Skill("Not OK", "d", "body")


def test_memory_note_round_trip_with_metadata_type():
    note = MemoryNote("reboot", "Reboot design", "Réconciliation", "project", "text\n")
    text = note.to_markdown()
    assert "metadata:\n  type: project" in text
    assert MemoryNote.from_markdown("reboot", text) == note


def test_index_lists_every_note_sorted_with_link():
    notes = [
        MemoryNote("b", "B", "second\nline", "ref", ""),
        MemoryNote("a", "A", "first", "project", ""),
    ]
    index = render_memory_index(notes)
    lines = index.splitlines()
    assert lines[2] == "- [A](a.md) (project): first"
    assert lines[3] == "- [B](b.md) (ref): second line"
