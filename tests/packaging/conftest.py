"""Fixtures of the packaged builds' tests: the builds (or a skip/fail, see builds.py) and a
headless project runtime with fake agents for their MCP bridge to talk to."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from idea.app.runtime import ProjectRuntime
from idea.domain.agent import Agent
from tests.fakes.fake_session_starter import FakeSessionStarter
from tests.packaging.builds import APPIMAGE, FROZEN, require_build


@pytest.fixture
def frozen() -> Path:
    return require_build(FROZEN, "package")


@pytest.fixture
def appimage() -> Path:
    return require_build(APPIMAGE, "appimage")


@pytest.fixture
async def runtime(tmp_path: Path) -> AsyncIterator[ProjectRuntime]:
    rt = await ProjectRuntime.open(tmp_path, starter=FakeSessionStarter())
    for agent in (
        Agent(id="id-caller", name="caller", profile="claude"),
        Agent(id="id-helper", name="helper", profile="claude"),
    ):
        rt.services.agents.save(agent)
    yield rt
    await rt.close()
