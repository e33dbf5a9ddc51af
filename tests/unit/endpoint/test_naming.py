"""The endpoint's name: one per project checkout, short, in a folder only this user controls."""

import os
import pwd
import shutil
import stat
import subprocess
import sys

import pytest

from idea.endpoint import naming
from idea.endpoint.naming import MAX_SOCKET_PATH, ensure_endpoint_dir, mcp_endpoint

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="Unix socket naming")


@pytest.fixture
def runtime_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    naming._private_dirs.clear()
    yield tmp_path
    naming._private_dirs.clear()


def test_endpoint_is_deterministic_short_and_per_checkout(runtime_dir):
    a = mcp_endpoint("project-a", "/src/a")
    assert a == mcp_endpoint("project-a", "/src/a")
    assert a != mcp_endpoint("project-b", "/src/a")
    # Two clones of one repository share the id, not the folder: each has its own endpoint.
    assert a != mcp_endpoint("project-a", "/src/a-clone")
    assert a.startswith(str(runtime_dir / f"idea-{os.getuid()}"))
    assert a.endswith(".sock")
    assert len(a.encode()) <= MAX_SOCKET_PATH


def test_deep_runtime_dir_falls_back_to_a_short_path(tmp_path, monkeypatch):
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(deep))
    path = mcp_endpoint("p", "/src/p")
    assert len(path.encode()) <= MAX_SOCKET_PATH
    assert path.startswith("/tmp/")


def test_endpoint_folder_is_private(runtime_dir):
    endpoint = mcp_endpoint("p", "/src/p")
    ensure_endpoint_dir(endpoint)
    mode = stat.S_IMODE(os.stat(os.path.dirname(endpoint)).st_mode)
    assert mode == 0o700


def test_our_own_folder_with_a_loose_mode_is_tightened(runtime_dir):
    shared = runtime_dir / f"idea-{os.getuid()}"
    shared.mkdir(mode=0o777)
    shared.chmod(0o777)
    endpoint = mcp_endpoint("p", "/src/p")
    assert os.path.dirname(endpoint) == str(shared)
    assert stat.S_IMODE(shared.stat().st_mode) == 0o700


def test_a_link_in_place_of_the_folder_is_not_followed(runtime_dir, tmp_path):
    elsewhere = tmp_path / "attacker-chosen"
    elsewhere.mkdir(mode=0o755)
    (runtime_dir / f"idea-{os.getuid()}").symlink_to(elsewhere)
    endpoint = mcp_endpoint("p", "/src/p")
    folder = os.path.dirname(endpoint)
    assert folder != str(runtime_dir / f"idea-{os.getuid()}")
    assert naming.is_private_dir(folder)
    assert stat.S_IMODE(elsewhere.stat().st_mode) == 0o755  # not chmod-ed through the link
    assert mcp_endpoint("p", "/src/p") == endpoint  # the listener and the declaration agree
    shutil.rmtree(folder)


def test_a_folder_swapped_after_naming_is_refused(runtime_dir):
    endpoint = mcp_endpoint("p", "/src/p")
    os.chmod(os.path.dirname(endpoint), 0o755)
    with pytest.raises(PermissionError, match="not a private folder"):
        ensure_endpoint_dir(endpoint)


@pytest.fixture
def other_user():
    """A second local account, made for the test and removed after it (root only)."""
    if os.geteuid() != 0 or shutil.which("useradd") is None:
        pytest.skip("needs root and useradd to create a second local user")
    name = f"ideatest{os.getpid() % 100000}"
    subprocess.run(["useradd", "--no-create-home", name], check=True, capture_output=True)
    try:
        yield pwd.getpwnam(name)
    finally:
        subprocess.run(["userdel", name], check=False, capture_output=True)


def test_a_folder_another_user_made_first_is_not_used(runtime_dir, other_user):
    squatted = runtime_dir / f"idea-{os.getuid()}"
    squatted.mkdir(mode=0o700)
    os.chown(squatted, other_user.pw_uid, other_user.pw_gid)
    endpoint = mcp_endpoint("p", "/src/p")
    folder = os.path.dirname(endpoint)
    assert folder != str(squatted)
    assert os.lstat(folder).st_uid == os.getuid()
    assert naming.is_private_dir(folder)
    assert os.lstat(squatted).st_uid == other_user.pw_uid  # left as it was
    shutil.rmtree(folder)
