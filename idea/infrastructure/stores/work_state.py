"""``.ideai/live-state.json``: the work state, read-modify-write under one lock.

On a running event loop, writes are made off it and coalesced: ``update`` changes the state in
memory at once (``load`` returns it) and a writer task writes the latest state atomically in a
worker thread, one write for every update made while the one before was on its way (a write
and its two fsyncs take milliseconds, and every ask an agent makes updates its row).
``flushed`` returns once every update made before it is on disk, or raises the write's error:
the commands that change the board answer after it, as when they wrote it themselves. A failed
write drops the updates it carried (the file's state is the board's again), as a failed
``update`` did. Without a running loop (the command line), ``update`` writes at once.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable

from idea.application.ports import Clock
from idea.domain.work_state import WorkState
from idea.infrastructure.files.json_document import JsonDocument
from idea.infrastructure.files.model_file import ChangeCache, load_json_model
from idea.infrastructure.stores.paths import ProjectPaths

log = logging.getLogger(__name__)


class JsonWorkStateStore:
    def __init__(self, paths: ProjectPaths, clock: Clock) -> None:
        self._doc = JsonDocument(paths.work_state, clock=clock.now_ms)
        self._lock = threading.Lock()
        self._cache: ChangeCache[WorkState] = ChangeCache(paths.work_state)
        self._unwritten: WorkState | None = None  # newer than the file, on its way to it
        self._made = 0  # updates given to the writer
        self._written = 0  # of which on disk (or dropped by a failed write)
        self._writer: asyncio.Task[None] | None = None
        # (the last update a caller waits for, its future), resolved by the write that has it
        self._waiters: list[tuple[int, asyncio.Future[None]]] = []

    def load(self) -> WorkState:
        unwritten = self._unwritten
        if unwritten is not None:
            return unwritten
        state = self._cache.get(lambda: load_json_model(self._doc, WorkState.from_json))
        return state if state is not None else WorkState()

    def update(self, change: Callable[[WorkState], WorkState]) -> WorkState:
        with self._lock:
            before = self.load()
            after = change(before)
            if after != before or not self._doc.path.exists():
                self._save(after)
            return after

    async def flushed(self) -> None:
        """Once every update made so far is on disk. Raises ``Internal`` if its write failed."""
        if self._written >= self._made:
            return
        done = asyncio.get_running_loop().create_future()
        self._waiters.append((self._made, done))
        await done

    def _save(self, state: WorkState) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._doc.save(state.to_json())
            return
        self._unwritten = state
        self._made += 1
        if self._writer is None:
            self._writer = loop.create_task(self._write_behind(), name="work state writer")

    async def _write_behind(self) -> None:
        """Write the latest state until what was made is written."""
        try:
            while self._written < self._made:
                made, state = self._made, self._unwritten
                assert state is not None
                error: Exception | None = None
                try:
                    await asyncio.to_thread(self._doc.save, state.to_json())
                except Exception as exc:  # Internal (I/O), or a bug: its waiters are told
                    log.warning("could not write %s: %s", self._doc.path, exc)
                    error, made = exc, self._made  # what came meanwhile is dropped with it
                self._written = made
                if self._made == made:
                    self._unwritten = None  # the file holds the board again
                self._resolve(made, error)
        finally:
            self._writer = None

    def _resolve(self, written: int, error: Exception | None) -> None:
        waiting = []
        for last, done in self._waiters:
            if last > written:
                waiting.append((last, done))
            elif not done.done():
                if error is None:
                    done.set_result(None)
                else:
                    done.set_exception(error)
        self._waiters = waiting
