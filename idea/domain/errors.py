"""The one error tree of IdeA; every error carries a stable ``code``.

    IdeaError                      code
    ├── NotFound                   NOT_FOUND
    ├── Invalid                    INVALID         (field, when known)
    ├── MissingField               MISSING_FIELD   (field)
    ├── AgentAlreadyRunning        AGENT_ALREADY_RUNNING   (agent_id, node_id)
    ├── IdeaTimeout                TIMEOUT
    ├── Forbidden                  FORBIDDEN
    │   ├── HostKeyUnknown         HOST_KEY_UNKNOWN   (host, address, fingerprint)
    │   ├── HostKeyChanged         HOST_KEY_CHANGED   (host, address, fingerprint, known_hosts)
    │   ├── AuthRefused            AUTH_REFUSED       (host, address)
    │   └── ForwardingRefused      HOST_FORWARDING_REFUSED   (host, address)
    ├── Conflict                   CONFLICT        (a file changed on disk: path, version_on_disk,
    │                                                content_on_disk, yours)
    ├── CorruptFile                CORRUPT_FILE    (path, quarantined_to)
    ├── Internal                   INTERNAL
    ├── AgentFailed                AGENT_FAILED
    │   ├── RateLimited            RATE_LIMITED    (resets_at_ms)
    │   └── LineTooLong            LINE_TOO_LONG
    ├── Unavailable                UNAVAILABLE
    │   ├── HostUnreachable        HOST_UNREACHABLE   (host, address)
    │   ├── HostIdeaMissing        HOST_IDEA_MISSING  (host)
    │   ├── HostIdeaVersion        HOST_IDEA_VERSION  (host, local_version, remote_version)
    │   └── HostLinkLost           HOST_LINK_LOST
    ├── Untrusted                  UNTRUSTED
    ├── DepthExceeded              DEPTH_EXCEEDED
    └── BudgetExceeded             BUDGET_EXCEEDED

Codes are a contract (UI, MCP tool results, file-door responses): a code is never reused for
another meaning. Adapters translate third-party errors into this tree at the edge. Messages are
for humans and bounded (``MESSAGE_MAX``): one may quote what a client sent, never all of it, so an
answer is never bigger than its request. The errors about an SSH host (DESIGN.md §16) carry
``host``, its name in ``hosts.json``, and ``address``, the ``address:port`` IdeA reached.
"""

from __future__ import annotations

from dataclasses import dataclass
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


@dataclass(frozen=True, slots=True)
class ChangedOnDisk:
    """Why a save was refused: the file changed on disk since the version the edit was made on
    (DESIGN.md §18). Both versions, so the editor can offer reload or overwrite:
    ``version_on_disk`` (sent back, the save overwrites knowingly), ``content_on_disk`` and
    ``yours`` (what would have been written), each text bounded by the store."""

    path: str
    version_on_disk: str
    content_on_disk: str
    yours: str


class Conflict(IdeaError):
    """``changed``, when given: the file a save was made on changed on disk meanwhile."""

    code = "CONFLICT"

    def __init__(self, message: str, changed: ChangedOnDisk | None = None) -> None:
        super().__init__(message)
        self.changed = changed

    @classmethod
    def changed_on_disk(cls, changed: ChangedOnDisk) -> Conflict:
        return cls(
            f"{changed.path} changed on disk since it was opened: reload it, or save again to "
            "overwrite the change on disk",
            changed,
        )

    def details(self) -> dict[str, str]:
        c = self.changed
        if c is None:
            return {}
        return {
            "path": c.path,
            "version_on_disk": c.version_on_disk,
            "content_on_disk": c.content_on_disk,
            "yours": c.yours,
        }


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


class LineTooLong(AgentFailed):
    """The agent's CLI printed one stream line longer than IdeA reads (DESIGN.md §18): the line
    was dropped and the turn failed; the session takes the next turn."""

    code = "LINE_TOO_LONG"


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


def _on_host(host: str, address: str | None, **more: str) -> dict[str, str]:
    out = {"host": host} if address is None else {"host": host, "address": address}
    return {**out, **more}


class HostKeyUnknown(Forbidden):
    """The SSH host presented a key that no known_hosts entry names: IdeA never trusts a key
    on first use; the message says how to check and accept it."""

    code = "HOST_KEY_UNKNOWN"

    def __init__(self, message: str, *, host: str, address: str, fingerprint: str) -> None:
        super().__init__(message)
        self.host, self.address, self.fingerprint = host, address, fingerprint

    def details(self) -> dict[str, str]:
        return _on_host(self.host, self.address, fingerprint=self.fingerprint)


class HostKeyChanged(Forbidden):
    """The SSH host presented a key other than the one known_hosts holds for it (or a revoked
    one): refused; ``known_hosts`` names the entry (``file:line``) to remove if the change is
    expected."""

    code = "HOST_KEY_CHANGED"

    def __init__(
        self, message: str, *, host: str, address: str, fingerprint: str, known_hosts: str
    ) -> None:
        super().__init__(message)
        self.host, self.address, self.fingerprint = host, address, fingerprint
        self.known_hosts = known_hosts

    def details(self) -> dict[str, str]:
        return _on_host(
            self.host, self.address, fingerprint=self.fingerprint, known_hosts=self.known_hosts
        )


class AuthRefused(Forbidden):
    """The SSH host accepted none of the ways IdeA offered to log in (the message lists them)."""

    code = "AUTH_REFUSED"

    def __init__(self, message: str, *, host: str, address: str | None = None) -> None:
        super().__init__(message)
        self.host, self.address = host, address

    def details(self) -> dict[str, str]:
        return _on_host(self.host, self.address)


class ForwardingRefused(Forbidden):
    """The SSH host refused to forward a Unix socket back to IdeA (its sshd's
    ``AllowStreamLocalForwarding``), which remote agents need to reach the project."""

    code = "HOST_FORWARDING_REFUSED"

    def __init__(self, message: str, *, host: str, address: str | None = None) -> None:
        super().__init__(message)
        self.host, self.address = host, address

    def details(self) -> dict[str, str]:
        return _on_host(self.host, self.address)


class HostUnreachable(Unavailable):
    """No SSH session with the host: its name did not resolve, nothing answered, the connection
    was refused or timed out, or it was lost."""

    code = "HOST_UNREACHABLE"

    def __init__(self, message: str, *, host: str, address: str) -> None:
        super().__init__(message)
        self.host, self.address = host, address

    def details(self) -> dict[str, str]:
        return _on_host(self.host, self.address)


class HostIdeaMissing(Unavailable):
    """The host's ``idea`` command is not there (the shell said 127), cannot run, or is not
    IdeA."""

    code = "HOST_IDEA_MISSING"

    def __init__(self, message: str, *, host: str) -> None:
        super().__init__(message)
        self.host = host

    def details(self) -> dict[str, str]:
        return _on_host(self.host, None)


class HostIdeaVersion(Unavailable):
    """The host runs another version of IdeA than this one (the same one is required)."""

    code = "HOST_IDEA_VERSION"

    def __init__(self, message: str, *, host: str, local_version: str, remote_version: str) -> None:
        super().__init__(message)
        self.host = host
        self.local_version, self.remote_version = local_version, remote_version

    def details(self) -> dict[str, str]:
        return _on_host(
            self.host,
            None,
            local_version=self.local_version,
            remote_version=self.remote_version,
        )


class HostLinkLost(Unavailable):
    """The link to an agent's remote host is gone for good (it did not come back within the
    host's grace period, or the host restarted and lost its agents: DESIGN.md §16)."""

    code = "HOST_LINK_LOST"
