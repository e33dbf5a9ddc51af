"""The one error tree of IdeA; every error carries a stable ``code``.

    IdeaError                      code
    ├── NotFound                   NOT_FOUND
    ├── Invalid                    INVALID         (field, when known)
    ├── MissingField               MISSING_FIELD   (field)
    ├── AgentAlreadyRunning        AGENT_ALREADY_RUNNING   (agent_id, node_id)
    ├── IdeaTimeout                TIMEOUT
    ├── Forbidden                  FORBIDDEN
    ├── Conflict                   CONFLICT
    ├── CorruptFile                CORRUPT_FILE    (path, quarantined_to)
    ├── Internal                   INTERNAL
    ├── AgentFailed                AGENT_FAILED
    │   └── RateLimited            RATE_LIMITED    (resets_at_ms)
    ├── Unavailable                UNAVAILABLE
    │   └── HostLinkLost           HOST_LINK_LOST
    ├── Untrusted                  UNTRUSTED
    ├── DepthExceeded              DEPTH_EXCEEDED
    └── BudgetExceeded             BUDGET_EXCEEDED

Codes are a contract (UI, MCP tool results, file-door responses): a code is never reused for
another meaning. Adapters translate third-party errors into this tree at the edge. Messages are
for humans and bounded (``MESSAGE_MAX``): one may quote what a client sent, never all of it, so an
answer is never bigger than its request.
"""

from __future__ import annotations

from typing import ClassVar

MESSAGE_MAX = 2000  # characters


class IdeaError(Exception):
    """Base of every error IdeA reports to a user, an agent or a script."""

    code: ClassVar[str] = "INTERNAL"

    def __init__(self, message: str) -> None:
        if len(message) > MESSAGE_MAX:
            message = message[: MESSAGE_MAX - 1] + "…"
        super().__init__(message)
        self.message = message

    def details(self) -> dict[str, str]:
        """Structured fields a client may act on (beside code and message)."""
        return {}

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message, **self.details()}


class NotFound(IdeaError):
    code = "NOT_FOUND"


class Invalid(IdeaError):
    """``field``, when given, names the input that is wrong (a client can point at it)."""

    code = "INVALID"

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field

    def details(self) -> dict[str, str]:
        return {} if self.field is None else {"field": self.field}


class MissingField(IdeaError):
    code = "MISSING_FIELD"

    def __init__(self, field: str, message: str | None = None) -> None:
        super().__init__(message or f"missing required field '{field}'")
        self.field = field

    def details(self) -> dict[str, str]:
        return {"field": self.field}


class AgentAlreadyRunning(IdeaError):
    code = "AGENT_ALREADY_RUNNING"

    def __init__(self, agent_id: str, node_id: str | None, message: str | None = None) -> None:
        where = f"in cell {node_id}" if node_id else "in the background"
        super().__init__(message or f"agent {agent_id} is already running {where}")
        self.agent_id = agent_id
        self.node_id = node_id

    def details(self) -> dict[str, str]:
        out = {"agent_id": self.agent_id}
        if self.node_id is not None:
            out["node_id"] = self.node_id
        return out


class IdeaTimeout(IdeaError):
    """A bounded wait ran out; whatever was waited on is left alive."""

    code = "TIMEOUT"


class Forbidden(IdeaError):
    code = "FORBIDDEN"


class Conflict(IdeaError):
    code = "CONFLICT"


class CorruptFile(IdeaError):
    """A state file did not parse; it was moved aside, never overwritten."""

    code = "CORRUPT_FILE"

    def __init__(self, path: str, quarantined_to: str, reason: str) -> None:
        super().__init__(f"{path} could not be read ({reason}); moved aside to {quarantined_to}")
        self.path = path
        self.quarantined_to = quarantined_to
        self.reason = reason

    def details(self) -> dict[str, str]:
        return {"path": self.path, "quarantined_to": self.quarantined_to}


class Internal(IdeaError):
    code = "INTERNAL"


class AgentFailed(IdeaError):
    """The agent's CLI ended a turn with an error, or its process died (the message says which)."""

    code = "AGENT_FAILED"


class RateLimited(AgentFailed):
    """The agent's CLI refused the turn for a rate limit or a spent quota (DESIGN.md §15)."""

    code = "RATE_LIMITED"

    def __init__(self, message: str, resets_at_ms: int | None = None) -> None:
        super().__init__(message)
        self.resets_at_ms = resets_at_ms

    def details(self) -> dict[str, str]:
        return {} if self.resets_at_ms is None else {"resets_at_ms": str(self.resets_at_ms)}


class Unavailable(IdeaError):
    """Something IdeA needs is not there: a CLI not installed, a session that has ended."""

    code = "UNAVAILABLE"


class Untrusted(IdeaError):
    """The project came from elsewhere and is not trusted by this user yet (DESIGN.md §13)."""

    code = "UNTRUSTED"


class DepthExceeded(IdeaError):
    """A delegation chain would grow deeper than the project's ``max_depth`` (DESIGN.md §15)."""

    code = "DEPTH_EXCEEDED"


class BudgetExceeded(IdeaError):
    """A delegation chain spent its ``chain_token_budget``; no nested ask starts (§15)."""

    code = "BUDGET_EXCEEDED"


class HostLinkLost(Unavailable):
    """The link to an agent's remote host is gone for good (it did not come back within the
    host's grace period, or the host restarted and lost its agents: DESIGN.md §16)."""

    code = "HOST_LINK_LOST"
