"""The one project this process has open, and switching to another one.

Invariant: while the host is open exactly one ``ProjectRuntime`` is current. A switch opens the
new project first (a failure leaves the current one as it was), makes it current, tells the
listeners, and only then closes the old one; switches are serialised. Every project opened is put
first in the user's recent projects (a failure to record it never fails the open).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path

from idea.app.runtime import ProjectRuntime
from idea.application.session_ports import Unsubscribe
from idea.domain.errors import IdeaError, Invalid, Unavailable
from idea.infrastructure.stores.recent_projects import RecentProjects

log = logging.getLogger(__name__)

Opener = Callable[[Path], Awaitable[ProjectRuntime]]
SwitchListener = Callable[[ProjectRuntime], None]


def project_folder(path: str) -> Path:
    """The folder a user named (``~`` expanded), resolved. Raises ``Invalid`` (field ``path``)."""
    folder = Path(path).expanduser()
    if not folder.is_absolute():
        raise Invalid(f"path: expected an absolute folder path, got {path!r}")
    if not folder.exists():
        raise Invalid(f"path: no such folder: {folder}")
    if not folder.is_dir():
        raise Invalid(f"path: not a folder: {folder}")
    return folder.resolve()


class ProjectHost:
    def __init__(
        self,
        runtime: ProjectRuntime,
        opener: Opener,
        recent: RecentProjects | None = None,
    ) -> None:
        self._current = runtime
        self._opener = opener
        self._recent = recent
        self._listeners: list[SwitchListener] = []
        self._lock = asyncio.Lock()
        self._closed = False
        self._remember(runtime)

    @classmethod
    async def open(
        cls, root: Path, opener: Opener, recent: RecentProjects | None = None
    ) -> ProjectHost:
        """Raises what opening the project raises (``Invalid``, ``CorruptFile``, ``Internal``)."""
        return cls(await opener(root), opener, recent)

    @property
    def current(self) -> ProjectRuntime:
        return self._current

    @property
    def recent(self) -> RecentProjects | None:
        return self._recent

    def on_switch(self, listener: SwitchListener) -> Unsubscribe:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    async def switch(self, path: str) -> ProjectRuntime:
        """Make the project in ``path`` current; the same folder is a no-op. Raises ``Invalid``
        (field ``path``), ``Unavailable`` (closing) and what opening a project raises."""
        folder = project_folder(path)
        async with self._lock:
            if self._closed:
                raise Unavailable("the app is closing")
            if folder == self._current.services.paths.root.resolve():
                return self._current
            new = await self._opener(folder)
            old, self._current = self._current, new
            self._remember(new)
            for listener in list(self._listeners):
                try:
                    listener(new)
                except Exception:
                    log.exception("project switch listener failed")
            await old.close()
            return new

    async def close(self) -> None:
        """Close the current project; idempotent."""
        async with self._lock:
            self._closed = True
            await self._current.close()

    def _remember(self, runtime: ProjectRuntime) -> None:
        if self._recent is None:
            return
        try:
            self._recent.add(runtime.services.paths.root, runtime.services.info.name)
        except IdeaError as exc:
            log.warning("could not record the recent project: %s", exc.message)
