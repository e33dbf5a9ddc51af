"""Fixtures of the packaged builds' tests: the builds (or a skip/fail, see builds.py) and a
headless project runtime with fake agents for their MCP bridge to talk to."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from idea.app.runtime import ProjectRuntime
from tests.mcp_clients import fake_agents_runtime
from tests.packaging.builds import APPIMAGE, FROZEN, require_build


@pytest.fixture
def frozen() -> Path:
    return require_build(FROZEN, "package")


@pytest.fixture
def appimage() -> Path:
    return require_build(APPIMAGE, "appimage")


@pytest.fixture
async def runtime(tmp_path: Path) -> AsyncIterator[ProjectRuntime]:
    async with fake_agents_runtime(tmp_path) as rt:
        yield rt
