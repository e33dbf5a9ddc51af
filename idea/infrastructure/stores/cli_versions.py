"""The last version of each CLI that passed ``idea doctor``, in ``cli-versions.json`` in the user's
config folder (DESIGN.md §17), and the version a CLI reports now.

Invariant: a corrupt file is moved aside and then nothing is remembered (no notice is better than
a wrong one). ``current_version`` runs ``<cli> --version`` at most once per executable file as it
is (path, size, modification time): a launch pays for it once per install or update.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
from collections.abc import Sequence
from pathlib import Path

from idea.domain.errors import CorruptFile
from idea.domain.json_types import JsonObject
from idea.infrastructure.files.atomic import make_folder
from idea.infrastructure.files.json_document import JsonDocument
from idea.infrastructure.stores.recent_projects import user_config_dir

FILE_NAME = "cli-versions.json"
VERSION_TIMEOUT_S = 20.0
_VERSION = re.compile(r"\d+\.\d+(?:\.\d+)?(?:[-+][\w.]+)?")
_seen: dict[tuple[str, int, int], str | None] = {}


class CliVersions:
    def __init__(self, path: Path | None = None) -> None:
        self._doc = JsonDocument(path or user_config_dir() / FILE_NAME, mode=0o600, shared=True)

    def passed(self, profile: str) -> str | None:
        """The version of ``profile``'s CLI that last passed doctor, if any."""
        entry = self._entries().get(profile)
        version = entry.get("version") if isinstance(entry, dict) else None
        return version if isinstance(version, str) else None

    def remember(self, profile: str, version: str, path: str) -> None:
        def put(current: JsonObject | None) -> JsonObject:
            entries = dict(current or {})
            entries[profile] = {"version": version, "path": path}
            return entries

        make_folder(self._doc.path.parent)
        self._doc.update(put)

    def _entries(self) -> JsonObject:
        try:
            return self._doc.load() or {}
        except CorruptFile:
            return {}


async def current_version(argv: Sequence[str], env: dict[str, str] | None = None) -> str | None:
    """What ``<argv> --version`` prints that looks like a version; None if it cannot tell."""
    key = _identity(argv[-1])
    if key is not None and key in _seen:
        return _seen[key]
    version: str | None = None
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            "--version",
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            env=env,
        )
    except OSError:  # it cannot be started: its version is unknown, not an error
        return None
    try:
        async with asyncio.timeout(VERSION_TIMEOUT_S):
            out, _ = await proc.communicate()
        found = _VERSION.search(out.decode("utf-8", errors="replace"))
        version = found.group(0) if found else None
    except TimeoutError:
        pass
    finally:
        if proc.returncode is None:  # timed out, or the caller was cancelled
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await asyncio.shield(proc.wait())
    if key is not None:
        _seen[key] = version
    return version


def _identity(path: str) -> tuple[str, int, int] | None:
    try:
        stat = os.stat(path)
    except OSError:  # gone: nothing to know it again by
        return None
    return path, stat.st_size, stat.st_mtime_ns
