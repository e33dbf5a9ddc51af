from __future__ import annotations

import os
import stat
import sys
import tempfile
import time
from pathlib import Path

import pytest

from idea.domain.errors import Internal
from idea.infrastructure.files.atomic import (
    is_temp_name,
    make_folder,
    quarantine,
    read_bytes,
    read_text,
    remove_stale_temps,
    write_atomic,
)
from idea.infrastructure.stores.cli_versions import CliVersions

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX permission bits")


def names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def make_temp_like(folder: Path, target: str = "state.json") -> Path:
    """A file named exactly as write_atomic names its temp files (what a kill leaves behind)."""
    fd, name = tempfile.mkstemp(prefix=f".{target}.", suffix=".tmp", dir=folder)
    os.close(fd)
    return Path(name)


# -- write_atomic -----------------------------------------------------------------------------


def test_write_creates_then_replaces_content(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    write_atomic(target, b"first")
    assert target.read_bytes() == b"first"

    write_atomic(target, b"second, longer than the first")
    assert target.read_bytes() == b"second, longer than the first"
    assert names(tmp_path) == ["state.json"]


def test_str_is_written_as_utf8(tmp_path: Path) -> None:
    target = tmp_path / "notes.md"
    write_atomic(target, "été ✓ 日本\n")
    assert target.read_bytes() == "été ✓ 日本\n".encode()


@posix_only
def test_mode_is_applied(tmp_path: Path) -> None:
    target = tmp_path / "secret.json"
    write_atomic(target, b"{}", mode=0o600)
    assert stat.S_IMODE(target.stat().st_mode) == 0o600

    target.chmod(0o644)
    write_atomic(target, b"{}", mode=0o600)
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


@posix_only
def test_without_mode_existing_permissions_are_kept(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    target.write_bytes(b"old")
    target.chmod(0o640)
    write_atomic(target, b"new")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


@posix_only
def test_without_mode_a_new_file_gets_the_umask_default(tmp_path: Path) -> None:
    umask = os.umask(0o022)
    os.umask(umask)
    target = tmp_path / "state.json"
    write_atomic(target, b"new")
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask


def test_no_temp_file_is_left_after_many_writes(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    for i in range(20):
        write_atomic(target, f"{i}")
    assert names(tmp_path) == ["state.json"]
    assert target.read_text(encoding="utf-8") == "19"


def test_failure_while_writing_leaves_old_content_and_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    write_atomic(target, b"old")

    with pytest.raises(TypeError):
        write_atomic(target, object())  # type: ignore[arg-type]
    with pytest.raises(UnicodeEncodeError):
        write_atomic(target, "lone surrogate \ud800")

    assert names(tmp_path) == ["state.json"]
    assert target.read_bytes() == b"old"


def test_failure_at_replace_is_internal_and_removes_the_temp(tmp_path: Path) -> None:
    target = tmp_path / "taken"
    target.mkdir()  # a directory cannot be replaced by a file

    with pytest.raises(Internal) as err:
        write_atomic(target, b"data")

    assert err.value.code == "INTERNAL"
    assert str(target) in err.value.message
    assert isinstance(err.value.__cause__, OSError)
    assert names(tmp_path) == ["taken"]


def test_missing_folder_is_internal_naming_the_path(tmp_path: Path) -> None:
    target = tmp_path / "absent" / "state.json"
    with pytest.raises(Internal) as err:
        write_atomic(target, b"data")
    assert str(target) in err.value.message
    assert isinstance(err.value.__cause__, OSError)


@posix_only
@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root ignores modes")
def test_read_only_folder_is_internal_and_leaves_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    (folder / "state.json").write_bytes(b"old")
    folder.chmod(0o500)
    try:
        with pytest.raises(Internal):
            write_atomic(folder / "state.json", b"new")
    finally:
        folder.chmod(0o700)
    assert names(folder) == ["state.json"]
    assert (folder / "state.json").read_bytes() == b"old"


# -- reads ------------------------------------------------------------------------------------


def test_reads_return_none_when_absent(tmp_path: Path) -> None:
    assert read_text(tmp_path / "absent") is None
    assert read_bytes(tmp_path / "absent") is None


def test_reads_return_the_content(tmp_path: Path) -> None:
    target = tmp_path / "notes.md"
    target.write_bytes("ünïcode\n".encode())
    assert read_text(target) == "ünïcode\n"
    assert read_bytes(target) == "ünïcode\n".encode()


def test_read_text_of_non_utf8_raises_decode_error(tmp_path: Path) -> None:
    target = tmp_path / "bad"
    target.write_bytes(b"\xff\xfe")
    with pytest.raises(UnicodeDecodeError):
        read_text(target)


def test_reading_a_folder_is_internal(tmp_path: Path) -> None:
    with pytest.raises(Internal) as err:
        read_text(tmp_path)
    assert str(tmp_path) in err.value.message


# -- quarantine -------------------------------------------------------------------------------


def test_quarantine_moves_the_bytes_aside(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    original = b'{"half": \x00\xff'
    target.write_bytes(original)

    moved = quarantine(target, "invalid JSON", now_ms=1_700_000_000_123)

    assert moved == tmp_path / "state.json.corrupt-1700000000123"
    assert moved.read_bytes() == original
    assert not target.exists()


def test_quarantine_never_overwrites_an_earlier_one(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    moved = []
    for i in range(3):
        target.write_bytes(f"corrupt {i}".encode())
        moved.append(quarantine(target, "bad", now_ms=42))

    assert [p.name for p in moved] == [
        "state.json.corrupt-42",
        "state.json.corrupt-42-1",
        "state.json.corrupt-42-2",
    ]
    assert [p.read_bytes() for p in moved] == [b"corrupt 0", b"corrupt 1", b"corrupt 2"]
    assert not target.exists()


def test_quarantine_of_a_missing_file_is_internal(tmp_path: Path) -> None:
    target = tmp_path / "gone.json"
    with pytest.raises(Internal) as err:
        quarantine(target, "bad", now_ms=1)
    assert str(target) in err.value.message
    assert names(tmp_path) == []


# -- stale temp files -------------------------------------------------------------------------


def test_temp_names_are_recognised(tmp_path: Path) -> None:
    assert is_temp_name(make_temp_like(tmp_path).name)
    for other in ("state.json", ".state.json", "state.json.tmp", ".gitignore", ".x.tmp"):
        assert not is_temp_name(other), other


def test_remove_stale_temps_removes_only_old_temp_files(tmp_path: Path) -> None:
    old_temp = make_temp_like(tmp_path)
    young_temp = make_temp_like(tmp_path, "layouts.json")
    other_hidden = tmp_path / ".keep.tmp"
    store = tmp_path / "state.json"
    for p in (other_hidden, store):
        p.write_bytes(b"x")
    an_hour_ago = time.time() - 3600
    for p in (old_temp, other_hidden, store):
        os.utime(p, (an_hour_ago, an_hour_ago))

    removed = remove_stale_temps(tmp_path)

    assert removed == [old_temp]
    assert names(tmp_path) == sorted([young_temp.name, ".keep.tmp", "state.json"])


def test_remove_stale_temps_with_zero_age_removes_all_temps(tmp_path: Path) -> None:
    temps = {make_temp_like(tmp_path) for _ in range(3)}
    assert set(remove_stale_temps(tmp_path, max_age_s=0.0)) == temps
    assert names(tmp_path) == []


def test_remove_stale_temps_ignores_a_missing_folder(tmp_path: Path) -> None:
    assert remove_stale_temps(tmp_path / "absent") == []


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX FIFOs")
@pytest.mark.timeout(10)
def test_a_fifo_is_refused_at_once_not_waited_on(tmp_path):
    fifo = tmp_path / "profiles.json"
    os.mkfifo(fifo)  # no writer: a plain read would block forever
    with pytest.raises(Internal, match="not a regular file"):
        read_bytes(fifo)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
@pytest.mark.timeout(10)
def test_a_link_to_an_endless_device_is_refused(tmp_path):
    link = tmp_path / "layouts.json"
    link.symlink_to("/dev/zero")
    with pytest.raises(Internal, match="not a regular file"):
        read_bytes(link)


def test_a_file_larger_than_the_cap_is_refused(tmp_path):
    big = tmp_path / "big.json"
    big.write_bytes(b"x" * 101)
    assert read_bytes(big, limit=101) == b"x" * 101
    with pytest.raises(Internal, match="larger than 100 bytes"):
        read_bytes(big, limit=100)


@pytest.mark.timeout(10)
def test_a_folder_that_cannot_be_made_is_internal_naming_it(tmp_path: Path) -> None:
    (tmp_path / "taken").write_text("a file, not a folder", encoding="utf-8")
    assert make_folder(tmp_path / "a" / "b") == tmp_path / "a" / "b"
    assert make_folder(tmp_path / "a") == tmp_path / "a"  # already there: nothing to do
    with pytest.raises(Internal, match=r"could not create .*taken.*inner"):
        make_folder(tmp_path / "taken" / "inner")


@pytest.mark.timeout(10)
def test_a_store_whose_folder_cannot_be_made_raises_internal_not_os_error(tmp_path: Path) -> None:
    (tmp_path / "config").write_text("a file where the folder goes", encoding="utf-8")
    with pytest.raises(Internal, match="could not create"):
        CliVersions(tmp_path / "config" / "idea" / "cli-versions.json").remember("x", "1", "/x")
