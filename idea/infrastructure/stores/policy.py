"""``.ideai/policy.json``: the project's delegation policy, re-read when the file changes.

A save holds IdeA's edit lock (``.ideai/run/edits.lock``); one given the version its edit was
made on refuses to replace a file changed since (``Conflict`` saying so, DESIGN.md §18).
"""

from __future__ import annotations

from idea.application.ports import Clock, CorruptionReporter
from idea.domain.errors import CorruptFile
from idea.domain.policy import Policy
from idea.infrastructure.files.atomic import make_folder
from idea.infrastructure.files.file_version import edit_lock, file_version, write_if_unchanged
from idea.infrastructure.files.json_document import JsonDocument, encode_json
from idea.infrastructure.files.model_file import ChangeCache, load_json_model
from idea.infrastructure.stores.paths import ProjectPaths


class JsonPolicyStore:
    def __init__(self, paths: ProjectPaths, clock: Clock, report: CorruptionReporter) -> None:
        self._path = paths.policy
        self._lock = paths.edits
        self._doc = JsonDocument(paths.policy, clock=clock.now_ms)
        self._cache: ChangeCache[Policy] = ChangeCache(paths.policy)
        self._report = report

    def current(self) -> Policy:
        try:
            policy = self._cache.get(lambda: load_json_model(self._doc, Policy.from_json))
        except CorruptFile as exc:  # moved aside: the defaults apply, the UI says why
            self._report(exc)
            return Policy()
        return policy if policy is not None else Policy()

    def current_versioned(self) -> tuple[Policy, str]:
        """The policy and the version of its file. Read again after the version (an unusable
        file is moved aside first), so a change in between makes the version older than the
        policy, never newer: a save on it is refused, never silently lost."""
        self.current()
        version = file_version(self._path)
        return self.current(), version

    def save(self, policy: Policy, expected_version: str | None = None) -> None:
        make_folder(self._path.parent)
        with edit_lock(self._lock):
            write_if_unchanged(self._path, encode_json(policy.to_json()), expected_version)
