"""WorkspaceTrust: whether this checkout of the project may run what it defines (DESIGN.md §13).

Restricted (never trusted here): the project is shown, but nothing starts (launches and asks are
``UNTRUSTED``), nothing resumes, the file door does not dispatch. Trusted but with a
``profiles.json`` that changed since: the built-in profiles work, the project's own do not. The
state is read again each time (a ``git pull`` may change the file while the project is open).
"""

from __future__ import annotations

from collections.abc import Callable

from idea.application.ports import Clock, TrustStore
from idea.domain.errors import Untrusted
from idea.domain.trust import TrustEntry, TrustState, trust_state

HOW_TO_TRUST = "trust it from the banner in IdeA, or run `idea trust {root}`"


class WorkspaceTrust:
    def __init__(
        self,
        store: TrustStore,
        root: str,
        project_id: str,
        profiles_fingerprint: Callable[[], str | None],
        clock: Clock,
    ) -> None:
        """``root``: the checkout's canonical path; ``profiles_fingerprint``: the sha256 of the
        project's ``profiles.json`` as it is now (None when there is none)."""
        self.root = root
        self._store = store
        self._project_id = project_id
        self._fingerprint = profiles_fingerprint
        self._clock = clock

    def state(self) -> TrustState:
        return trust_state(self._store.get(self.root), self._project_id, self._fingerprint())

    @property
    def restricted(self) -> bool:
        return self.state() is TrustState.RESTRICTED

    def project_profiles_allowed(self) -> bool:
        return self.state() is TrustState.TRUSTED

    def require(self, what: str) -> None:
        if self.restricted:
            raise Untrusted(
                f"cannot {what}: this project came from elsewhere and is restricted until you "
                f"trust it ({HOW_TO_TRUST.format(root=self.root)})"
            )

    def grant(self) -> None:
        """Trust the project as it is now (its current ``profiles.json`` included).

        Raises ``Internal`` when the trust file cannot be written."""
        entry = TrustEntry(self.root, self._project_id, self._clock.now_ms(), self._fingerprint())
        self._store.put(entry)
