from __future__ import annotations

import json
import stat
import sys
import tempfile
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from idea.domain.errors import CorruptFile
from idea.domain.json_types import JsonObject, JsonValue
from idea.infrastructure.files.json_document import JsonDocument, encode_json

NOW_MS = 1_700_000_000_000


def fixed_clock() -> int:
    return NOW_MS


def doc_at(folder: Path, name: str = "state.json") -> JsonDocument:
    return JsonDocument(folder / name, clock=fixed_clock)


def names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# -- load / save ------------------------------------------------------------------------------


def test_load_of_a_missing_file_is_none(tmp_path: Path) -> None:
    assert doc_at(tmp_path).load() is None
    assert names(tmp_path) == []


def test_save_then_load_round_trips(tmp_path: Path) -> None:
    doc = doc_at(tmp_path)
    obj: JsonObject = {"version": 1, "name": "Café ✓", "tabs": [{"id": "t1"}], "none": None}
    doc.save(obj)
    assert doc.load() == obj


def test_file_format_is_indented_utf8_in_given_key_order(tmp_path: Path) -> None:
    doc = doc_at(tmp_path)
    doc.save({"z": "é", "a": [1, 2]})
    assert doc.path.read_bytes() == '{\n  "z": "é",\n  "a": [\n    1,\n    2\n  ]\n}\n'.encode()
    assert list(json.loads(doc.path.read_bytes())) == ["z", "a"]


def test_save_writes_exactly_the_given_object(tmp_path: Path) -> None:
    doc = doc_at(tmp_path)
    doc.save({"known": 1, "unknown_to_this_version": 2})
    doc.save({"known": 3})
    assert doc.load() == {"known": 3}


def test_lone_surrogate_survives_a_round_trip(tmp_path: Path) -> None:
    # json.loads accepts the escape "\ud800"; it has no UTF-8 form, so it must stay escaped.
    doc = doc_at(tmp_path)
    doc.path.write_bytes(b'{"s": "\\ud800 ok"}')
    loaded = doc.load()
    assert loaded == {"s": "\ud800 ok"}
    doc.save(loaded)
    assert doc.load() == {"s": "\ud800 ok"}


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permission bits")
def test_mode_is_applied_to_every_save(tmp_path: Path) -> None:
    doc = JsonDocument(tmp_path / "secret.json", mode=0o600)
    doc.save({"token": "t"})
    assert stat.S_IMODE(doc.path.stat().st_mode) == 0o600


json_values: st.SearchStrategy[JsonValue] = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=50, deadline=None)
@given(st.dictionaries(st.text(max_size=8), json_values, max_size=5))
def test_any_json_object_round_trips(obj: JsonObject) -> None:
    with tempfile.TemporaryDirectory() as folder:
        doc = doc_at(Path(folder))
        doc.save(obj)
        assert doc.load() == obj
        assert json.loads(doc.path.read_bytes()) == obj
        assert encode_json(obj) == doc.path.read_bytes()


# -- corrupt files ----------------------------------------------------------------------------


CORRUPT = [
    pytest.param(b'{"version": 1, "agents": {', id="truncated"),
    pytest.param(b"", id="empty"),
    pytest.param(b'{"a": 1} trailing', id="trailing-garbage"),
    pytest.param(b'{"a": "\xff\xfe"}', id="not-utf8"),
    pytest.param(b"[" * 100_000 + b"]" * 100_000, id="nested-too-deep"),
    pytest.param(b'[{"a": 1}]', id="top-level-list"),
    pytest.param(b"42", id="top-level-number"),
    pytest.param(b'"text"', id="top-level-string"),
    pytest.param(b"null", id="top-level-null"),
]


@pytest.mark.parametrize("original", CORRUPT)
def test_corrupt_file_is_quarantined_byte_for_byte(tmp_path: Path, original: bytes) -> None:
    doc = doc_at(tmp_path)
    doc.path.write_bytes(original)

    with pytest.raises(CorruptFile) as err:
        doc.load()

    quarantined = tmp_path / f"state.json.corrupt-{NOW_MS}"
    assert err.value.code == "CORRUPT_FILE"
    assert err.value.path == str(doc.path)
    assert err.value.quarantined_to == str(quarantined)
    assert err.value.to_dict()["quarantined_to"] == str(quarantined)
    assert quarantined.read_bytes() == original
    assert not doc.path.exists()
    assert names(tmp_path) == [quarantined.name]


def test_second_corruption_does_not_overwrite_the_first(tmp_path: Path) -> None:
    doc = doc_at(tmp_path)
    for content in (b"{bad 1", b"{bad 2"):
        doc.path.write_bytes(content)
        with pytest.raises(CorruptFile):
            doc.load()

    base = f"state.json.corrupt-{NOW_MS}"
    assert (tmp_path / base).read_bytes() == b"{bad 1"
    assert (tmp_path / f"{base}-1").read_bytes() == b"{bad 2"


def test_after_quarantine_the_document_starts_afresh(tmp_path: Path) -> None:
    doc = doc_at(tmp_path)
    doc.path.write_bytes(b"{bad")
    with pytest.raises(CorruptFile):
        doc.load()
    assert doc.load() is None
    doc.save({"fresh": True})
    assert doc.load() == {"fresh": True}


# -- update -----------------------------------------------------------------------------------


def test_update_of_a_missing_file_starts_from_none(tmp_path: Path) -> None:
    doc = doc_at(tmp_path)
    seen: list[JsonObject | None] = []

    def first(old: JsonObject | None) -> JsonObject:
        seen.append(old)
        return {"count": 1}

    assert doc.update(first) == {"count": 1}
    assert seen == [None]
    assert doc.load() == {"count": 1}


def test_update_that_raises_writes_nothing(tmp_path: Path) -> None:
    doc = doc_at(tmp_path)
    doc.save({"count": 1})

    def boom(old: JsonObject | None) -> JsonObject:
        raise ValueError("rejected")

    with pytest.raises(ValueError, match="rejected"):
        doc.update(boom)
    assert doc.load() == {"count": 1}
    assert names(tmp_path) == ["state.json"]


def test_update_of_a_corrupt_file_raises_before_calling_fn(tmp_path: Path) -> None:
    doc = doc_at(tmp_path)
    doc.path.write_bytes(b"[1, 2")
    called = False

    def fn(old: JsonObject | None) -> JsonObject:
        nonlocal called
        called = True
        return {}

    with pytest.raises(CorruptFile):
        doc.update(fn)
    assert not called
    assert (tmp_path / f"state.json.corrupt-{NOW_MS}").read_bytes() == b"[1, 2"


def increment(old: JsonObject | None) -> JsonObject:
    count = 0 if old is None else old["count"]
    assert isinstance(count, int)
    return {"count": count + 1}


def test_concurrent_updates_from_threads_lose_nothing(tmp_path: Path) -> None:
    threads_n, increments = 8, 50
    start = threading.Barrier(threads_n)
    errors: list[BaseException] = []

    def worker() -> None:
        # A document per thread: the lock belongs to the path, not to the instance.
        doc = doc_at(tmp_path)
        try:
            start.wait(timeout=10)
            for _ in range(increments):
                doc.update(increment)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(threads_n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)

    assert not any(t.is_alive() for t in threads)
    assert errors == []
    assert doc_at(tmp_path).load() == {"count": threads_n * increments}
    assert names(tmp_path) == ["state.json"]
