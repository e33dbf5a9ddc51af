"""A fresh sshd per test (tests/sshd.py); no ssh-agent, so that only the keys a test gives count."""

import pytest

from tests.sshd import running_sshd


@pytest.fixture
def sshd(monkeypatch):
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    with running_sshd() as server:
        yield server
