"""``.ideai/project.json`` and the ``.ideai/`` skeleton; the project id is made at first open."""

from __future__ import annotations

from idea.application.ports import Clock, IdGenerator
from idea.domain.project import ProjectInfo
from idea.infrastructure.files.atomic import make_folder, read_text, write_atomic
from idea.infrastructure.files.json_document import JsonDocument
from idea.infrastructure.files.model_file import load_json_model
from idea.infrastructure.stores.paths import GITIGNORE, ProjectPaths


class JsonProjectStore:
    def __init__(self, paths: ProjectPaths, clock: Clock, ids: IdGenerator) -> None:
        self._paths = paths
        self._clock = clock
        self._ids = ids

    def exists(self) -> bool:
        return self._paths.project_file.is_file()

    def open_or_create(self, name: str) -> ProjectInfo:
        paths = self._paths
        make_folder(paths.ideai)
        if read_text(paths.gitignore) is None:
            write_atomic(paths.gitignore, GITIGNORE)
        doc = JsonDocument(paths.project_file, clock=self._clock.now_ms)
        info = load_json_model(doc, ProjectInfo.from_json)
        if info is None:
            info = ProjectInfo(self._ids.new_id(), name, self._clock.now_ms())
            doc.save(info.to_json())
        return info
