"""``.ideai/live-state.json``: the work-state board, read-modify-write under one lock."""

from __future__ import annotations

import threading
from collections.abc import Callable

from idea.application.ports import Clock
from idea.domain.live_state import LiveState
from idea.infrastructure.json_document import JsonDocument
from idea.infrastructure.model_file import ChangeCache, load_json_model
from idea.infrastructure.project_paths import ProjectPaths


class JsonLiveStateStore:
    def __init__(self, paths: ProjectPaths, clock: Clock) -> None:
        self._doc = JsonDocument(paths.live_state, clock=clock.now_ms)
        self._lock = threading.Lock()
        self._cache: ChangeCache[LiveState] = ChangeCache(paths.live_state)

    def load(self) -> LiveState:
        state = self._cache.get(lambda: load_json_model(self._doc, LiveState.from_json))
        return state if state is not None else LiveState()

    def update(self, change: Callable[[LiveState], LiveState]) -> LiveState:
        with self._lock:
            before = self.load()
            after = change(before)
            if after != before or not self._doc.path.exists():
                self._doc.save(after.to_json())
            return after
