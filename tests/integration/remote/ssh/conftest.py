"""What the SSH tests share: a fresh sshd per test (tests/sshd.py), with no ssh-agent so that only
the keys a test gives count; IdeA's packaged build installed in the host account's home."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.packaging.builds import FROZEN, require_build
from tests.sshd import Sshd, require_sshd, running_sshd
from tests.sshd import installed_idea as install_idea


@pytest.fixture
def sshd(monkeypatch) -> Iterator[Sshd]:
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    with running_sshd() as server:
        yield server


@pytest.fixture(scope="session")
def installed_idea() -> Iterator[str]:
    """IdeA's packaged build installed in the host account's home: its hosts.json command."""
    require_sshd()  # the account is made by root only
    with install_idea(require_build(FROZEN, "package")) as command:
        yield command
