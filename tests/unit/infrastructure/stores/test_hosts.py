"""hosts.json in the user's config folder: read as the user wrote it, never moved aside."""

import json
import os
import sys
from pathlib import Path

import pytest

from idea.domain.errors import Internal, Invalid, NotFound
from idea.domain.host import Host
from idea.infrastructure.stores.hosts import FILE_NAME, MAX_BYTES, JsonHostStore
from idea.infrastructure.stores.recent_projects import user_config_dir
from tests.fakes.ports.memory_stores import InMemoryHostStore

LAB = {"ssh": "dev@lab:2222", "root": "/srv/p"}


def write(path: Path, value) -> Path:
    text = value if isinstance(value, str) else json.dumps(value)
    path.write_text(text, encoding="utf-8")
    return path


def test_no_file_means_no_host(tmp_path):
    store = JsonHostStore(tmp_path / "hosts.json")
    assert store.all() == {}
    with pytest.raises(NotFound, match="none is configured"):
        store.get("lab")


def test_hosts_are_read_and_found_by_name(tmp_path):
    store = JsonHostStore(write(tmp_path / "hosts.json", {"version": 1, "hosts": {"lab": LAB}}))
    lab = store.get("lab")
    assert (lab.user, lab.address, lab.port, lab.root) == ("dev", "lab", 2222, "/srv/p")
    assert list(store.all()) == ["lab"]


def test_an_unknown_name_lists_the_configured_hosts(tmp_path):
    hosts = {"lab": LAB, "gpu": {"ssh": "gpu", "root": "/w"}}
    store = JsonHostStore(write(tmp_path / "hosts.json", {"hosts": hosts}))
    with pytest.raises(NotFound) as caught:
        store.get("nope")
    assert "configured: gpu, lab" in caught.value.message


def test_a_bad_entry_names_the_file_and_the_field_and_stays_in_place(tmp_path):
    path = write(tmp_path / "hosts.json", {"hosts": {"lab": {"ssh": "dev@lab:0", "root": "/r"}}})
    before = path.read_bytes()
    with pytest.raises(Invalid) as caught:
        JsonHostStore(path).all()
    assert caught.value.field == "hosts.lab.ssh"
    assert str(path) in caught.value.message
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hosts.json"]  # not moved aside


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ('{"hosts": {"lab": ', "invalid JSON at line 1"),
        ("[1, 2]", "not an object"),
        ("\ufeff\ufeff{}", "invalid JSON"),
    ],
)
def test_a_file_that_is_not_a_json_object_is_reported(tmp_path, content, why):
    path = write(tmp_path / "hosts.json", content)
    with pytest.raises(Invalid, match=why):
        JsonHostStore(path).all()
    assert path.exists()


def test_a_byte_order_mark_is_allowed(tmp_path):
    path = tmp_path / "hosts.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"hosts": {"lab": LAB}}).encode())
    assert JsonHostStore(path).get("lab").address == "lab"


def test_bytes_that_are_not_utf8_are_reported(tmp_path):
    path = tmp_path / "hosts.json"
    path.write_bytes(b'{"hosts": "\xff"}')
    with pytest.raises(Invalid, match="not UTF-8"):
        JsonHostStore(path).all()


def test_a_huge_file_is_refused_without_reading_it_all(tmp_path):
    path = tmp_path / "hosts.json"
    path.write_bytes(b" " * (MAX_BYTES + 1))
    with pytest.raises(Internal, match="larger than"):
        JsonHostStore(path).all()


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs are POSIX")
def test_a_fifo_in_its_place_is_refused_without_blocking(tmp_path):
    path = tmp_path / "hosts.json"
    os.mkfifo(path)
    with pytest.raises(Internal, match="not a regular file"):
        JsonHostStore(path).all()


def test_a_fixed_file_is_read_again(tmp_path):
    path = write(tmp_path / "hosts.json", {"hosts": {"lab": {"ssh": "x y", "root": "/r"}}})
    store = JsonHostStore(path)
    with pytest.raises(Invalid):
        store.all()
    write(path, {"hosts": {"lab": LAB}})
    assert store.get("lab").port == 2222


def test_save_writes_atomically_what_all_reads_back(tmp_path):
    path = tmp_path / "cfg" / "hosts.json"
    store = JsonHostStore(path)
    lab = Host(name="lab", user="u", address="::1", port=2222, root="/r", identity_file="~/.ssh/k")
    store.save({"lab": lab})
    assert JsonHostStore(path).all() == {"lab": lab}
    assert json.loads(path.read_text(encoding="utf-8"))["hosts"]["lab"]["ssh"] == "u@[::1]:2222"
    if sys.platform != "win32":
        assert path.stat().st_mode & 0o777 == 0o600


def test_the_default_file_is_in_the_user_config_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("IDEA_CONFIG_DIR", str(tmp_path))
    assert JsonHostStore().path == user_config_dir() / FILE_NAME == tmp_path / "hosts.json"


def test_the_fake_answers_as_the_real_store():
    lab = Host(name="lab", user=None, address="h", root="/r")
    fake = InMemoryHostStore(lab)
    assert fake.get("lab") is lab
    with pytest.raises(NotFound, match="configured: lab"):
        fake.get("other")
