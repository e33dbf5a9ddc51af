"""The structured-session contract on Windows: GeminiSession (one CLI process per turn) against
the fake Gemini CLI, run by the Windows python."""

from __future__ import annotations

from tests.integration.clis.gemini.test_session import TestGeminiWithFake as _Contract
from tests.integration.clis.gemini.test_session import make_session, start, world  # noqa: F401
from tests.windows_lane import windows_only

pytestmark = windows_only


class TestGeminiWithFakeOnWindows(_Contract):
    pass
