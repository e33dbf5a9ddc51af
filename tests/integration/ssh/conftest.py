"""What the SSH tests share: a fresh sshd per test (tests/sshd.py), with no ssh-agent so that only
the keys a test gives count; IdeA's packaged build installed in the host account's home."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.packaging.builds import FROZEN, require_build
from tests.sshd import Sshd, remote_account, require_sshd, running_sshd


@pytest.fixture
def sshd(monkeypatch) -> Iterator[Sshd]:
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    with running_sshd() as server:
        yield server


@pytest.fixture(scope="session")
def installed_idea() -> Iterator[str]:
    """IdeA's one-folder build copied into the host account's home (its own files): the
    command its hosts.json entry names."""
    require_sshd()  # the account is made by root only
    frozen = require_build(FROZEN, "package")
    account = remote_account()
    folder = Path(tempfile.mkdtemp(prefix="idea-app-", dir=account.pw_dir))
    try:
        shutil.copytree(frozen.parent, folder / frozen.parent.name, symlinks=True)
        for path in (folder, *folder.rglob("*")):
            os.lchown(path, account.pw_uid, account.pw_gid)
        os.chmod(folder, 0o755)
        yield str(folder / frozen.parent.name / frozen.name)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
