"""The user's known_hosts files, read as asyncssh matches them, to say which entry a refused host
key contradicts (OpenSSH's "Offending key in ~/.ssh/known_hosts:3").

Invariant: reading never raises: a file that is absent, unreadable, not a regular file or larger
than ``MAX_BYTES`` counts as empty, and a line asyncssh cannot parse matches nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import asyncssh

from idea.domain.errors import IdeaError
from idea.infrastructure.files.atomic import read_bytes

MAX_BYTES = 8 * 1024 * 1024  # a known_hosts of a hundred thousand hosts


def _text(path: str) -> str:
    try:
        data = read_bytes(Path(path), MAX_BYTES)
    except IdeaError:
        return ""
    return "" if data is None else data.decode("utf-8", errors="replace")


def read_entries(files: Sequence[str]) -> asyncssh.SSHKnownHosts:
    """Every entry of ``files``, as one set asyncssh checks a host key against."""
    return asyncssh.import_known_hosts("\n".join(_text(path) for path in files))


def entries_for(
    files: Sequence[str], host: str, addr: str, port: int | None
) -> list[tuple[str, int]]:
    """``(file, line number)`` of each entry that names ``host`` (or its address ``addr``) on
    ``port`` (None: 22), revoked and CA entries included, in file order."""
    found: list[tuple[str, int]] = []
    for path in files:
        for number, line in enumerate(_text(path).splitlines(), start=1):
            stripped = line.strip()
            if not stripped or stripped.startswith("#"):
                continue
            try:
                matched = asyncssh.import_known_hosts(stripped).match(host, addr, port)
            except (ValueError, asyncssh.KeyImportError):
                continue
            host_keys, ca_keys, revoked = matched[0], matched[1], matched[2]
            if host_keys or ca_keys or revoked:
                found.append((path, number))
    return found
