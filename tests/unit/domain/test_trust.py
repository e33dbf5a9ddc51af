"""Workspace trust's rule: a checkout is trusted as the project it was, with the profiles.json it
had."""

import pytest

from idea.domain.errors import Invalid
from idea.domain.trust import TrustEntry, TrustState, trust_state

ENTRY = TrustEntry("/home/u/p", "pid", 1, "sha-1")


def test_no_entry_is_restricted():
    assert trust_state(None, "pid", None) is TrustState.RESTRICTED


def test_an_entry_for_another_project_at_that_path_is_restricted():
    assert trust_state(ENTRY, "other-id", "sha-1") is TrustState.RESTRICTED


def test_a_changed_or_new_or_removed_profiles_file_drops_the_project_profiles():
    assert trust_state(ENTRY, "pid", "sha-2") is TrustState.PROFILES_CHANGED
    assert trust_state(ENTRY, "pid", None) is TrustState.PROFILES_CHANGED
    no_file = TrustEntry("/home/u/p", "pid", 1, None)
    assert trust_state(no_file, "pid", "sha-new") is TrustState.PROFILES_CHANGED


def test_the_same_project_and_profiles_are_trusted():
    assert trust_state(ENTRY, "pid", "sha-1") is TrustState.TRUSTED


def test_an_entry_round_trips_and_a_bad_field_is_named():
    assert TrustEntry.from_json(ENTRY.to_json()) == ENTRY
    for field, value in [
        ("root", ""),
        ("project_id", 3),
        ("trusted_at_ms", "x"),
        ("trusted_at_ms", True),
        ("profiles_sha256", 5),
    ]:
        with pytest.raises(Invalid, match=field):
            TrustEntry.from_json({**ENTRY.to_json(), field: value})
    with pytest.raises(Invalid):
        TrustEntry.from_json(["not", "an", "object"])
