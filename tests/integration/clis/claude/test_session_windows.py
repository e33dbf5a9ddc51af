"""The structured-session contract on Windows: ClaudeSession over the piped CLI process (its
win32 branch: no console window, a job object) against the fake Claude CLI, run by the Windows
python, so that Windows cannot drift from POSIX."""

from __future__ import annotations

from tests.integration.clis.claude.test_session import TestClaudeWithFake as _Contract
from tests.integration.clis.claude.test_session import launch, world  # noqa: F401 - fixtures
from tests.windows_lane import windows_only

pytestmark = windows_only


class TestClaudeWithFakeOnWindows(_Contract):
    pass
