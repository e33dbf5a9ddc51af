"""The fake of the ``ProjectTrust`` port: trusted unless a test restricts it."""

from __future__ import annotations

from idea.domain.errors import Untrusted


class FakeTrust:
    def __init__(self, restricted: bool = False) -> None:
        self.restricted = restricted

    def require(self, what: str) -> None:
        if self.restricted:
            raise Untrusted(f"cannot {what}: the project is restricted")
