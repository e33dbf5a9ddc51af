"""The file door: ``.ideai/orchestrator/<id>.request.json`` in, ``<id>.response.json`` out.

Watchdog reports new or changed request files from its thread; they are handed to the core loop.
A request is read once it parses (a writer that is not atomic is waited for, bounded); one that
never parses gets an error response. Only a regular file of at most ``MAX_REQUEST_BYTES`` is read,
and never on the core loop (a FIFO or a link to ``/dev/zero`` gets an error response, not a frozen
app). Every request is dispatched at most once and gets one response, then moves to ``done/``;
when its response cannot be written (a name too long, a folder in the way, a full disk) it moves
to ``failed/`` with the reason logged, and is never dispatched again. Requests already waiting when
the door opens, and any an event was missed for, are found by a scan.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from idea.application.tasks import TaskSet
from idea.domain.errors import IdeaError, Internal, Invalid
from idea.domain.json_types import JsonObject, JsonValue
from idea.infrastructure.files.atomic import MAX_READ_BYTES, read_regular_file, write_atomic
from idea.infrastructure.files.json_document import encode_json

log = logging.getLogger(__name__)

if sys.platform.startswith("linux"):
    from watchdog.observers.inotify_move_event_grouper import InotifyMoveEventGrouper

    # watchdog holds every rename for 0.5 s to pair it with its source; the door only needs the
    # destination of an atomic writer's rename (reported as a creation when unpaired), so the
    # pairing delay is switched off. The file door is watchdog's only user in IdeA.
    InotifyMoveEventGrouper.delay = 0.0

REQUEST_SUFFIX = ".request.json"
RESPONSE_SUFFIX = ".response.json"
# A request that still does not parse after this long, unchanged, is answered as malformed.
SETTLE_S = 1.0
RETRY_S = 0.02
RESCAN_S = 2.0
MAX_REQUEST_BYTES = MAX_READ_BYTES

# (request id, parsed body or None, why it did not parse) -> response object
Handler = Callable[[str, JsonValue, Invalid | None], Awaitable[JsonObject]]


def request_id_of(path: Path) -> str | None:
    name = path.name
    if not name.endswith(REQUEST_SUFFIX) or name.startswith("."):
        return None
    return name[: -len(REQUEST_SUFFIX)] or None


class _Events(FileSystemEventHandler):
    def __init__(self, door: FileDoor) -> None:
        self._door = door

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.is_directory:
            return
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            path = os.fsdecode(raw) if raw else ""
            if path.endswith(REQUEST_SUFFIX):
                self._door.notify_threadsafe(Path(path))


class FileDoor:
    def __init__(self, folder: Path, handler: Handler) -> None:
        self.folder = folder
        self.done = folder / "done"
        self.failed = folder / "failed"
        self._handler = handler
        # Requests dispatched whose file could not be moved away: never dispatched again.
        self._dispatched: set[tuple[str, int, int]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._observer: Observer | None = None  # type: ignore[valid-type]
        self._inflight: set[Path] = set()
        self._tasks = TaskSet("file door")
        self._scanner: asyncio.Task[None] | None = None
        self.answered = 0

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self.folder.mkdir(parents=True, exist_ok=True)
        self.done.mkdir(exist_ok=True)
        observer = Observer()
        observer.schedule(_Events(self), str(self.folder), recursive=False)
        observer.daemon = True
        observer.start()
        self._observer = observer
        self._scanner = asyncio.create_task(self._rescan_forever(), name="file-door-scan")

    async def stop(self) -> None:
        """Stop watching; requests being answered are cancelled (their files stay for next time)."""
        if self._scanner is not None:
            self._scanner.cancel()
        observer, self._observer = self._observer, None
        if observer is not None:
            observer.stop()
            await asyncio.to_thread(observer.join, 5)
        await self._tasks.close()

    def notify_threadsafe(self, path: Path) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self.notify, path)

    def notify(self, path: Path) -> None:
        """A request file may have appeared or changed (core loop only)."""
        if path.parent != self.folder or request_id_of(path) is None:
            return
        if path in self._inflight or not os.path.lexists(path):
            return
        self._inflight.add(path)
        self._tasks.spawn(self._process(path), name=f"request-{path.name}")

    def scan(self) -> None:
        try:
            names = os.listdir(self.folder)
        except OSError:
            return
        for name in sorted(names):
            self.notify(self.folder / name)

    async def _rescan_forever(self) -> None:
        # A safety net for missed events (overflowing watch queues, network folders).
        while True:
            self.scan()
            await asyncio.sleep(RESCAN_S)

    async def _process(self, path: Path) -> None:
        request_id = request_id_of(path)
        assert request_id is not None
        try:
            read = await self._read_when_complete(path)
            if read is None:
                return  # the file went away before it could be read
            identity, body, problem = read
            if identity in self._dispatched:
                return  # answered (or failed) already; its file could not be moved away
            self._dispatched.add(identity)
            try:
                response = await self._handler(request_id, body, problem)
            except Exception as exc:  # the handler must answer; if it cannot, we still do
                log.exception("file door: request %s failed", request_id)
                response = {
                    "id": request_id,
                    "ok": False,
                    "detail": str(exc),
                    "error": {"code": "INTERNAL", "message": str(exc)},
                }
            try:
                write_atomic(self.folder / f"{request_id}{RESPONSE_SUFFIX}", encode_json(response))
            except IdeaError as exc:
                log.error("file door: no response for %s (%s): moved to failed/", path.name, exc)
                if self._move(path, self.failed):
                    self._dispatched.discard(identity)
                return
            if self._move(path, self.done):
                self._dispatched.discard(identity)
            self.answered += 1
        finally:
            self._inflight.discard(path)

    async def _read_when_complete(
        self, path: Path
    ) -> tuple[tuple[str, int, int], JsonValue, Invalid | None] | None:
        """(identity, body, problem), or None when the file is gone. Reads off the core loop."""
        loop = asyncio.get_running_loop()
        last: bytes | None = None
        stable_since = loop.time()
        while True:
            read = await asyncio.to_thread(_read_request, path)
            if read is None:
                return None
            identity, data = read
            if isinstance(data, Invalid):
                return identity, None, data
            try:
                body: JsonValue = json.loads(data)  # UTF-8, or UTF-16/32 with or without a BOM
            except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
                if data != last:
                    last, stable_since = data, loop.time()
                elif loop.time() - stable_since >= SETTLE_S:
                    return identity, None, Invalid(f"the request file is not valid JSON: {exc}")
                await asyncio.sleep(RETRY_S)
                continue
            return identity, body, None

    def _move(self, path: Path, folder: Path) -> bool:
        """Move a request into ``done/`` or ``failed/`` (never over an older one); True once it is
        no longer in the door."""
        target = folder / path.name
        counter = 1
        while os.path.lexists(target):
            target = folder / f"{path.name[: -len(REQUEST_SUFFIX)]}-{counter}{REQUEST_SUFFIX}"
            counter += 1
        try:
            folder.mkdir(exist_ok=True)
            os.replace(path, target)
        except FileNotFoundError:
            return not os.path.lexists(path)
        except OSError as exc:
            log.error("file door: could not move %s to %s/: %s", path.name, folder.name, exc)
            return False
        return True


def _read_request(path: Path) -> tuple[tuple[str, int, int], bytes | Invalid] | None:
    """(identity, content or why it cannot be a request), None when the file is gone."""
    unread = (path.name, 0, 0)
    try:
        read = read_regular_file(path, MAX_REQUEST_BYTES)
    except Internal as exc:  # not a regular file, too large, unreadable
        return unread, Invalid(f"the request file cannot be read: {exc.message}")
    if read is None:
        if os.path.lexists(path):  # a link to nothing: say so rather than wait forever
            return unread, Invalid("the request file is a link to nothing")
        return None
    info, data = read
    return (path.name, info.st_ino, info.st_mtime_ns), data
