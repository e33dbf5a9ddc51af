"""Gemini CLI's own session files: which one resumes a session, and a copy kept of it.

Gemini CLI 0.61.0 records a session as JSON lines in ``<home>/.gemini/tmp/<slug>/chats/
session-<YYYY-MM-DDTHH-MM>-<first 8 of the id>.jsonl`` (``<slug>`` is the folder's short name, here
the run dir's), and ``--resume`` only sees a file whose replay (``read_session``, the CLI's
``loadConversationRecord``) holds a resumable message: a prompt (not the ``<session_context>`` the
CLI adds) or a model reply. A resumed run first records itself as a new session under the current
minute's name: within the minute the session began that is the resumed file itself, whose replay
then holds only the session context until the run writes the history back, just before ``init``.
A run stopped in between (an interrupt, a shutdown, a crash) leaves nothing to resume: the next
``--resume`` prints ``No previous sessions found for this project.`` and the conversation is gone.

So before each resumed run ``SessionKeeper.prepare`` puts back the copy it kept if the session has
no resumable file left, then keeps a copy of the file that resumes it. Invariant: a copy is only
taken of a resumable file and only written back when none is left, so what a run added to a file
that still resumes is never undone; a copy that cannot be read or written is logged, never raised.
"""

from __future__ import annotations

import glob
import json
import logging
from dataclasses import dataclass
from pathlib import Path

from idea.domain.errors import IdeaError
from idea.domain.json_types import JsonObject, JsonValue
from idea.infrastructure.files.atomic import read_bytes, write_atomic
from idea.infrastructure.files.os_errors import os_errors

__all__ = ["SessionFile", "SessionKeeper", "read_session", "session_files"]

log = logging.getLogger(__name__)

# The CLI reads a session whole; one this large is kept no copy of (it would be read every turn).
MAX_SESSION_BYTES = 64 * 1024 * 1024
# A user message starting so is not the user's (the CLI's ``isIgnoredUserContent``).
_IGNORED_PREFIXES = ("/", "?", "<session_context>", "<hook_context>")
# Parts the CLI shows as a placeholder ("[Function Call: …]"), so never as empty text.
_NON_TEXT_PARTS = frozenset(
    {
        "videoMetadata",
        "thought",
        "codeExecutionResult",
        "executableCode",
        "fileData",
        "functionCall",
        "functionResponse",
        "inlineData",
    }
)


@dataclass(frozen=True, slots=True)
class SessionFile:
    """What a session file holds for ``--resume``: its session id (None: not a session) and
    whether any of its messages can be resumed."""

    session_id: str | None
    resumable: bool


def read_session(data: bytes) -> SessionFile:
    """Replay a session file as the CLI does: each line a record (a line that is not JSON is
    skipped), a message by id (a later one with the same id replaces it), ``$set`` merges the
    metadata and its ``messages`` replace them all, ``$rewindTo`` drops a message and the rest.
    A file with no JSON-lines header is read as the older single JSON document."""
    meta: JsonObject = {}
    messages: dict[str, JsonObject] = {}
    for line in data.splitlines():
        record = _json_object(line)
        if record is None:
            continue
        update = record.get("$set")
        if isinstance(record.get("$rewindTo"), str):
            messages = _rewound(messages, str(record["$rewindTo"]))
        elif isinstance(record.get("id"), str):
            messages[str(record["id"])] = record
        elif isinstance(update, dict):
            if isinstance(update.get("messages"), list):
                messages = dict(_by_id(update["messages"]))
            meta.update(update)
        elif _is_header(record):
            meta.update(record)
            messages.update(_by_id(record.get("messages")))
    if not _is_header(meta):
        meta = _json_object(data) or {}
        messages = dict(_by_id(meta.get("messages")))
    session_id = meta.get("sessionId")
    if not isinstance(session_id, str):
        return SessionFile(None, False)
    return SessionFile(session_id, any(_resumable(m) for m in messages.values()))


def session_files(gemini_dir: Path, session_id: str) -> list[Path]:
    """The CLI's files named for ``session_id`` in any folder's chats under ``gemini_dir``
    (``~/.gemini``), whatever they hold. Raises ``Internal`` if the folders cannot be listed."""
    short = glob.escape(session_id[:8])
    with os_errors("list the sessions in", gemini_dir / "tmp"):
        found = (gemini_dir / "tmp").glob(f"*/chats/session-*-{short}.json*")
        return sorted(p for p in found if p.name.endswith((".json", ".jsonl")))


class SessionKeeper:
    """Keeps in ``backup_dir`` a copy of the file that resumes a session, as
    ``<slug>/<file name>``: where it came from is in its own path, so a copy outlives IdeA."""

    def __init__(self, gemini_dir: Path, backup_dir: Path) -> None:
        self._gemini_dir = gemini_dir
        self._backup_dir = backup_dir

    def prepare(self, session_id: str) -> None:
        """Before a run resumes ``session_id``: restore the kept copy if the CLI has no file that
        resumes it any more, then keep a copy of the one that does."""
        try:
            self.restore(session_id)
            self.keep(session_id)
        except IdeaError as exc:
            log.warning("cannot keep a copy of Gemini session %s: %s", session_id, exc.message)

    def keep(self, session_id: str) -> Path | None:
        """Copy the newest file that resumes ``session_id`` (the one the CLI resumes); the copy,
        or None when no file resumes it. Raises ``Internal``."""
        resuming = self._resuming(session_id)
        if not resuming:
            return None
        source, data = resuming[-1]
        copy = self._backup_dir / source.parent.parent.name / source.name
        with os_errors("create", copy.parent):
            copy.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(copy, data)
        for stale in self._copies(session_id):
            if stale != copy:
                with os_errors("remove", stale):
                    stale.unlink(missing_ok=True)
        return copy

    def restore(self, session_id: str) -> Path | None:
        """If no file resumes ``session_id``, write the newest kept copy back where it came
        from; the restored file, or None. Raises ``Internal``."""
        if self._resuming(session_id):
            return None
        kept = _resuming(session_id, self._copies(session_id))
        if not kept:
            return None
        copy, data = kept[-1]
        target = self._gemini_dir / "tmp" / copy.parent.name / "chats" / copy.name
        with os_errors("create", target.parent):
            target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(target, data)
        log.warning(
            "Gemini session %s had nothing left to resume (a run stopped while it resumed): "
            "restored it from %s",
            session_id,
            copy,
        )
        return target

    def _resuming(self, session_id: str) -> list[tuple[Path, bytes]]:
        return _resuming(session_id, session_files(self._gemini_dir, session_id))

    def _copies(self, session_id: str) -> list[Path]:
        short = glob.escape(session_id[:8])
        with os_errors("list", self._backup_dir):
            return sorted(self._backup_dir.glob(f"*/session-*-{short}.json*"))


def _resuming(session_id: str, paths: list[Path]) -> list[tuple[Path, bytes]]:
    """Those of ``paths`` that resume ``session_id``, with their content, oldest first."""
    found = []
    for path in paths:
        data = _read(path)
        if data is not None and read_session(data) == SessionFile(session_id, True):
            with os_errors("inspect", path):
                found.append((path.stat().st_mtime_ns, path, data))
    return [(path, data) for _, path, data in sorted(found)]


def _read(path: Path) -> bytes | None:
    """A session file's content; None if it is gone or too large to keep a copy of."""
    try:
        return read_bytes(path, MAX_SESSION_BYTES)
    except IdeaError as exc:
        log.warning("not keeping a copy of %s: %s", path, exc.message)
        return None


def _json_object(text: bytes) -> JsonObject | None:
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _is_header(record: JsonObject) -> bool:
    """A record naming the session (the CLI's ``isPartialMetadataRecord``)."""
    return isinstance(record.get("sessionId"), str) and isinstance(record.get("projectHash"), str)


def _by_id(messages: JsonValue) -> list[tuple[str, JsonObject]]:
    if not isinstance(messages, list):
        return []
    found = []
    for message in messages:
        if isinstance(message, dict) and isinstance(message_id := message.get("id"), str):
            found.append((message_id, message))
    return found


def _rewound(messages: dict[str, JsonObject], message_id: str) -> dict[str, JsonObject]:
    """The messages before ``message_id``; none if it is not among them (as the CLI does)."""
    ids = list(messages)
    if message_id not in ids:
        return {}
    return {key: messages[key] for key in ids[: ids.index(message_id)]}


def _resumable(message: JsonObject) -> bool:
    """The CLI's ``isResumableMessageRecord``: a prompt of the user's, or anything the model
    said, called or thought."""
    text = _text(message.get("content")).strip()
    if message.get("type") == "user":
        return bool(text) and not text.startswith(_IGNORED_PREFIXES)
    if message.get("type") == "gemini":
        done = (message.get("toolCalls"), message.get("thoughts"))
        return bool(text) or any(isinstance(v, list) and len(v) > 0 for v in done)
    return False


def _text(content: JsonValue) -> str:
    """A message's content as the CLI flattens it (``partListUnionToString``)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(_text(part) for part in content)
    if isinstance(content, dict):
        if _NON_TEXT_PARTS & content.keys():
            return "[part]"
        text = content.get("text")
        return text if isinstance(text, str) else ""
    return ""
