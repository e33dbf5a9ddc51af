import os
import stat
import sys

import pytest

from idea.endpoint.naming import MAX_SOCKET_PATH, ensure_endpoint_dir, mcp_endpoint


@pytest.mark.skipif(sys.platform == "win32", reason="Unix socket naming")
def test_endpoint_is_deterministic_short_and_per_project(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    a, b = mcp_endpoint("project-a"), mcp_endpoint("project-b")
    assert a == mcp_endpoint("project-a")
    assert a != b
    assert a.startswith(str(tmp_path / f"idea-{os.getuid()}"))
    assert a.endswith(".sock")
    assert len(a.encode()) <= MAX_SOCKET_PATH


@pytest.mark.skipif(sys.platform == "win32", reason="Unix socket naming")
def test_deep_runtime_dir_falls_back_to_a_short_path(tmp_path, monkeypatch):
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(deep))
    path = mcp_endpoint("p")
    assert len(path.encode()) <= MAX_SOCKET_PATH
    assert path.startswith("/tmp/")


@pytest.mark.skipif(sys.platform == "win32", reason="folder modes")
def test_endpoint_folder_is_private(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    endpoint = mcp_endpoint("p")
    ensure_endpoint_dir(endpoint)
    mode = stat.S_IMODE(os.stat(os.path.dirname(endpoint)).st_mode)
    assert mode == 0o700
