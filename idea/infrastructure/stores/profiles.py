"""Profiles: the built-ins, overridden field by field or extended by ``.ideai/profiles.json``.

File shape: ``{"version": 1, "profiles": {"<name>": {"command": [...], "structured": ...}}}``.
The project's own entries count only while ``project_profiles_allowed()`` (workspace trust,
DESIGN.md §13); otherwise the built-ins stand alone and a project-defined name is ``UNTRUSTED``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from idea.application.ports import Clock
from idea.domain.errors import Invalid, NotFound, Untrusted
from idea.domain.json_types import JsonObject
from idea.domain.profile import Profile, profile_from_json
from idea.infrastructure.files.json_document import JsonDocument
from idea.infrastructure.files.model_file import ChangeCache, load_json_model
from idea.infrastructure.stores.paths import ProjectPaths


class JsonProfileStore:
    def __init__(
        self,
        paths: ProjectPaths,
        clock: Clock,
        builtins: Mapping[str, Profile],
        project_profiles_allowed: Callable[[], bool] = lambda: True,
    ) -> None:
        self._doc = JsonDocument(paths.profiles, clock=clock.now_ms)
        self._builtins = dict(builtins)
        self._cache: ChangeCache[dict[str, Profile]] = ChangeCache(paths.profiles)
        self.project_profiles_allowed = project_profiles_allowed

    def all(self) -> dict[str, Profile]:
        project = self._cache.get(self._load)
        if project is None or not self.project_profiles_allowed():
            return dict(self._builtins)  # the project defines none: whatever the trust
        return dict(project)

    def _visible(self, allowed: bool) -> dict[str, Profile]:
        return self.with_project_profiles() if allowed else dict(self._builtins)

    def with_project_profiles(self) -> dict[str, Profile]:
        """The built-ins with the project's own entries applied, trusted or not (to show them)."""
        profiles = self._cache.get(self._load)
        return dict(profiles) if profiles is not None else dict(self._builtins)

    def project_entries(self) -> dict[str, Profile]:
        """What ``profiles.json`` defines or overrides, each as it would run."""
        entries = self._raw().get("profiles")
        names = set(entries) if isinstance(entries, dict) else set()
        return {n: p for n, p in self.with_project_profiles().items() if n in names}

    def _load(self) -> dict[str, Profile] | None:
        """The built-ins with the project's entries applied; None if it defines none."""
        raw = self._raw()
        profiles = dict(self._builtins)
        entries = raw.get("profiles", {})
        if not isinstance(entries, dict):
            raise Invalid("profiles.json field 'profiles' must be an object")
        if not entries:
            return None
        for name, entry in entries.items():
            profiles[name] = profile_from_json(name, entry, self._builtins.get(name))
        return profiles

    def get(self, name: str) -> Profile:
        """Raises ``NotFound``, or ``Untrusted`` for a project profile not trusted as it is."""
        allowed = self.project_profiles_allowed()
        profiles = self._visible(allowed)
        if not allowed and name not in self._builtins and name in self.with_project_profiles():
            raise Untrusted(
                f"profile '{name}' is defined by this project's profiles.json, which is not "
                "trusted as it is now (it changed, or the project came from elsewhere): "
                "trust the project again to use it"
            )
        if name not in profiles:
            known = ", ".join(sorted(profiles))
            raise NotFound(f"no profile named '{name}' (known: {known})")
        return profiles[name]

    def save_entry(self, name: str, entry: JsonObject) -> Profile:
        """Add or replace one project profile (validated first); other entries are kept as is."""
        profile = profile_from_json(name, entry, self._builtins.get(name))
        raw = self._raw()
        entries = raw.get("profiles")
        merged: JsonObject = dict(entries) if isinstance(entries, dict) else {}
        merged[name] = entry
        self._doc.save({**raw, "version": 1, "profiles": merged})
        return profile

    def _raw(self) -> JsonObject:
        raw = load_json_model(self._doc, _checked)
        return raw if raw is not None else {}


def _checked(value: JsonObject) -> JsonObject:
    entries = value.get("profiles", {})
    if not isinstance(entries, dict):
        raise Invalid("profiles.json field 'profiles' must be an object")
    return value
