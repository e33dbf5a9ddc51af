"""The Windows endpoint name (DESIGN.md §9.1): ``\\\\.\\pipe\\idea-<16 hex>``, deterministic, one
per user and checkout, the root compared as Windows compares paths (case-blind, either slash)."""

from __future__ import annotations

import re

from idea.endpoint.naming import ensure_endpoint_dir, mcp_endpoint
from tests.windows_lane import windows_only

pytestmark = windows_only


def test_a_pipe_name_per_checkout_and_deterministic(tmp_path):
    name = mcp_endpoint("project-1", str(tmp_path))
    assert re.fullmatch(r"\\\\\.\\pipe\\idea-[0-9a-f]{16}", name), name
    assert mcp_endpoint("project-1", str(tmp_path)) == name
    assert mcp_endpoint("project-2", str(tmp_path)) != name
    assert mcp_endpoint("project-1", str(tmp_path / "clone")) != name


def test_the_same_folder_spelled_otherwise_is_the_same_endpoint(tmp_path):
    root = str(tmp_path)
    assert mcp_endpoint("p", root.upper()) == mcp_endpoint("p", root.lower())
    assert mcp_endpoint("p", root.replace("\\", "/")) == mcp_endpoint("p", root)


def test_no_folder_is_made_for_a_pipe(tmp_path):
    ensure_endpoint_dir(mcp_endpoint("p", str(tmp_path)))  # a no-op, no error
