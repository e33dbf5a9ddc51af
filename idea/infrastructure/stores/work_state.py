"""``.ideai/live-state.json``: the work state, read-modify-write under one lock."""

from __future__ import annotations

import threading
from collections.abc import Callable

from idea.application.ports import Clock
from idea.domain.work_state import WorkState
from idea.infrastructure.files.json_document import JsonDocument
from idea.infrastructure.files.model_file import ChangeCache, load_json_model
from idea.infrastructure.stores.paths import ProjectPaths


class JsonWorkStateStore:
    def __init__(self, paths: ProjectPaths, clock: Clock) -> None:
        self._doc = JsonDocument(paths.work_state, clock=clock.now_ms)
        self._lock = threading.Lock()
        self._cache: ChangeCache[WorkState] = ChangeCache(paths.work_state)

    def load(self) -> WorkState:
        state = self._cache.get(lambda: load_json_model(self._doc, WorkState.from_json))
        return state if state is not None else WorkState()

    def update(self, change: Callable[[WorkState], WorkState]) -> WorkState:
        with self._lock:
            before = self.load()
            after = change(before)
            if after != before or not self._doc.path.exists():
                self._doc.save(after.to_json())
            return after
