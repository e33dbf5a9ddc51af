"""The file door's world: a real project opened with its real door and watcher, fake agents."""

import pytest

from idea.app.bootstrap import open_project
from idea.domain.agent import Agent
from tests.fakes.ports.session_starter import FakeSessionStarter


@pytest.fixture
async def runtime(tmp_path):
    rt = await open_project(tmp_path, starter=FakeSessionStarter())
    rt.services.agents.save(Agent(id="id-helper", name="helper", profile="claude"))
    yield rt
    await rt.close()
