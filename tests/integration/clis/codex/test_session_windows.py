"""The structured-session contract on Windows: CodexSession (app-server JSON-RPC over the piped
CLI process) against the fake Codex CLI, run by the Windows python."""

from __future__ import annotations

from tests.integration.clis.codex.test_session import TestCodexWithFake as _Contract
from tests.integration.clis.codex.test_session import harness, make_session  # noqa: F401
from tests.windows_lane import windows_only

pytestmark = windows_only


class TestCodexWithFakeOnWindows(_Contract):
    pass
