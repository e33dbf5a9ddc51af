"""``.ideai/policy.json``: the project's delegation policy, re-read when the file changes."""

from __future__ import annotations

from idea.application.ports import Clock, CorruptionReporter
from idea.domain.errors import CorruptFile
from idea.domain.policy import Policy
from idea.infrastructure.files.json_document import JsonDocument
from idea.infrastructure.files.model_file import ChangeCache, load_json_model
from idea.infrastructure.stores.paths import ProjectPaths


class JsonPolicyStore:
    def __init__(self, paths: ProjectPaths, clock: Clock, report: CorruptionReporter) -> None:
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

    def save(self, policy: Policy) -> None:
        self._doc.save(policy.to_json())
