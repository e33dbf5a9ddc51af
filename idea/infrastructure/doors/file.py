"""The file door: ``.ideai/orchestrator/<id>.request.json`` in, ``<id>.response.json`` out.

Watchdog reports new or changed request files from its thread; they are handed to the core loop.
A request is read once it parses (a writer that is not atomic is waited for, bounded); one that
never parses gets an error response. Every request gets exactly one response and is then moved to
``done/``: nothing is dropped silently, nothing is answered twice. Requests already waiting when
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
from idea.domain.errors import Invalid
from idea.domain.json_types import JsonObject, JsonValue
from idea.infrastructure.files.atomic import write_atomic
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
        self._handler = handler
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
        if path in self._inflight or not path.exists():
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
            body, problem = read
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
            write_atomic(self.folder / f"{request_id}{RESPONSE_SUFFIX}", encode_json(response))
            self._archive(path)
            self.answered += 1
        finally:
            self._inflight.discard(path)

    async def _read_when_complete(self, path: Path) -> tuple[JsonValue, Invalid | None] | None:
        loop = asyncio.get_running_loop()
        last: bytes | None = None
        stable_since = loop.time()
        while True:
            try:
                data = path.read_bytes()
            except FileNotFoundError:
                return None
            except OSError as exc:
                data = f"<unreadable: {exc}>".encode()
            try:
                body: JsonValue = json.loads(data.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
                if data != last:
                    last, stable_since = data, loop.time()
                elif loop.time() - stable_since >= SETTLE_S:
                    return None, Invalid(f"the request file is not valid JSON: {exc}")
                await asyncio.sleep(RETRY_S)
                continue
            return body, None

    def _archive(self, path: Path) -> None:
        target = self.done / path.name
        counter = 1
        while target.exists():
            target = self.done / f"{path.name[: -len(REQUEST_SUFFIX)]}-{counter}{REQUEST_SUFFIX}"
            counter += 1
        try:
            os.replace(path, target)
        except FileNotFoundError:
            pass
        except OSError as exc:
            log.warning("file door: could not move %s to done/: %s", path, exc)
