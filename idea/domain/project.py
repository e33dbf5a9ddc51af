"""A project's identity (``.ideai/project.json``); unknown keys survive a rewrite."""

from __future__ import annotations

from dataclasses import dataclass, field

from idea.domain.errors import Invalid
from idea.domain.json_types import JsonObject, JsonValue


@dataclass(frozen=True, slots=True)
class ProjectInfo:
    id: str
    name: str
    created_at_ms: int
    extra: JsonObject = field(default_factory=dict)

    def to_json(self) -> JsonObject:
        return {
            **self.extra,
            "id": self.id,
            "name": self.name,
            "created_at_ms": self.created_at_ms,
        }

    @staticmethod
    def from_json(obj: JsonValue) -> ProjectInfo:
        if not isinstance(obj, dict):
            raise Invalid("project.json must be a JSON object")
        project_id, name, created = obj.get("id"), obj.get("name"), obj.get("created_at_ms")
        if not isinstance(project_id, str) or not project_id:
            raise Invalid("project.json field 'id' must be a non-empty string")
        if not isinstance(name, str):
            raise Invalid("project.json field 'name' must be a string")
        if not isinstance(created, int) or isinstance(created, bool):
            raise Invalid("project.json field 'created_at_ms' must be an integer")
        extra = {k: v for k, v in obj.items() if k not in ("id", "name", "created_at_ms")}
        return ProjectInfo(project_id, name, created, extra)
