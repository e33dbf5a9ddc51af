"""``.ideai/layouts.json``: tabs of split trees; no file means (and becomes) one empty cell."""

from __future__ import annotations

from idea.application.ports import Clock, IdGenerator
from idea.domain.layout import Layouts
from idea.infrastructure.files.json_document import JsonDocument
from idea.infrastructure.files.model_file import load_json_model
from idea.infrastructure.stores.paths import ProjectPaths


class JsonLayoutStore:
    def __init__(self, paths: ProjectPaths, clock: Clock, ids: IdGenerator) -> None:
        self._doc = JsonDocument(paths.layouts, clock=clock.now_ms)
        self._ids = ids

    def load(self) -> Layouts:
        layouts = load_json_model(self._doc, Layouts.from_json)
        if layouts is None:
            # Saved at once: the default layout's ids are then the same at every load.
            layouts = Layouts.empty(self._ids.new_id(), self._ids.new_id())
            self.save(layouts)
        return layouts

    def save(self, layouts: Layouts) -> None:
        self._doc.save(layouts.to_json())
