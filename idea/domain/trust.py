"""Workspace trust (DESIGN.md §13): a project that came from elsewhere runs nothing by itself.

Trust is per user and per checkout (its canonical root), and covers the project's
``profiles.json`` as it was when trusted: a changed file (another command) drops back to the
built-in profiles until the user trusts the project again.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from idea.domain.errors import Invalid
from idea.domain.json_types import JsonObject, JsonValue


class TrustState(StrEnum):
    TRUSTED = "trusted"
    RESTRICTED = "restricted"  # never trusted here (or trusted as another project)
    PROFILES_CHANGED = "profiles_changed"  # trusted, but profiles.json changed since


@dataclass(frozen=True, slots=True)
class TrustEntry:
    root: str
    project_id: str
    trusted_at_ms: int
    profiles_sha256: str | None  # None: the project had no profiles.json

    def to_json(self) -> JsonObject:
        return {
            "root": self.root,
            "project_id": self.project_id,
            "trusted_at_ms": self.trusted_at_ms,
            "profiles_sha256": self.profiles_sha256,
        }

    @classmethod
    def from_json(cls, value: JsonValue) -> TrustEntry:
        """Raises ``Invalid`` naming the field."""
        if not isinstance(value, dict):
            raise Invalid("a trusted project must be an object")
        root, project_id = value.get("root"), value.get("project_id")
        at, sha = value.get("trusted_at_ms"), value.get("profiles_sha256")
        if not isinstance(root, str) or not root:
            raise Invalid("trusted project field 'root' must be a non-empty string")
        if not isinstance(project_id, str) or not project_id:
            raise Invalid("trusted project field 'project_id' must be a non-empty string")
        if not isinstance(at, int) or isinstance(at, bool):
            raise Invalid("trusted project field 'trusted_at_ms' must be an integer")
        if sha is not None and not isinstance(sha, str):
            raise Invalid("trusted project field 'profiles_sha256' must be a string or null")
        return cls(root, project_id, at, sha)


def trust_state(
    entry: TrustEntry | None, project_id: str, profiles_sha256: str | None
) -> TrustState:
    """What ``entry`` (this checkout's record, if any) says of the project as it is now."""
    if entry is None or entry.project_id != project_id:
        return TrustState.RESTRICTED
    if entry.profiles_sha256 != profiles_sha256:
        return TrustState.PROFILES_CHANGED
    return TrustState.TRUSTED
