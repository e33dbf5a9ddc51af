"""The file door: ``.ideai/orchestrator/<id>.request.json`` in, ``<id>.response.json`` out.

Requests are answered in arrival order (oldest first: modification time, then name), at most
``MAX_IN_FLIGHT`` at once, by that many workers pulling from one queue; the rest wait, however
many there are, at a constant cost each. Watchdog's events are coalesced on its thread and handed
to the core loop by one scheduled callback per burst, not one per event; a periodic scan (a safety
net for missed events, and the requests already waiting when the door opens) lists the folder on
a thread and queues only the names not known yet. No request file is read, listed, written or
moved on the core loop: that work runs on the door's own few threads (``request_files``).

A request is read once it parses (a writer that is not atomic is waited for, bounded: one that
never parses, unchanged for ``SETTLE_S``, gets an error response, and waiting holds no worker).
Only a regular file of at most ``MAX_REQUEST_BYTES`` is read (a FIFO or a link to ``/dev/zero``
gets an error response, not a frozen app). Every request is dispatched at most once and gets one
response, then moves to ``done/``; when its response cannot be written (a name too long, a folder
in the way, a full disk) it moves to ``failed/`` with the reason logged, and is never dispatched
again. ``stop`` returns promptly however many are queued: requests not answered yet stay on disk
for next time.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
import threading
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from idea.application.tasks import TaskSet
from idea.domain.errors import Invalid
from idea.domain.json_types import JsonObject, JsonValue
from idea.infrastructure.doors.request_files import (
    MAX_REQUEST_BYTES,
    REQUEST_SUFFIX,
    RESPONSE_SUFFIX,
    Archive,
    Identity,
    Read,
    read_request,
    request_id_of,
    unknown_requests,
)
from idea.infrastructure.doors.request_queue import Pending, RequestQueue
from idea.infrastructure.files.atomic import make_folder

__all__ = [
    "MAX_IN_FLIGHT",
    "MAX_REQUEST_BYTES",
    "REQUEST_SUFFIX",
    "RESPONSE_SUFFIX",
    "FileDoor",
    "Handler",
]

log = logging.getLogger(__name__)
T = TypeVar("T")

if sys.platform.startswith("linux"):
    from watchdog.observers.inotify_move_event_grouper import InotifyMoveEventGrouper

    # watchdog holds every rename for 0.5 s to pair it with its source; the door only needs the
    # destination of an atomic writer's rename (reported as a creation when unpaired), so the
    # pairing delay is switched off. The file door is watchdog's only user in IdeA.
    InotifyMoveEventGrouper.delay = 0.0

# A request that still does not parse after this long, unchanged, is answered as malformed.
SETTLE_S = 1.0
RETRY_S = 0.02
RESCAN_S = 2.0
# Requests being answered at once; the others wait in the queue, in arrival order. An ask holds
# its place until answered, so the bound is generous: asks queued behind one agent whose own turn
# drops a request file would otherwise take every place and starve that request. The file work
# itself is bounded by DOOR_THREADS, whatever this is.
MAX_IN_FLIGHT = 256
# The door's threads for its file work (reads, listings, fsynced responses, moves).
DOOR_THREADS = 4

# (request id, parsed body or None, why it did not parse) -> response object
Handler = Callable[[str, JsonValue, Invalid | None], Awaitable[JsonObject]]


class _Inbox:
    """What watchdog saw, coalesced: names gathered on its thread, handed to the core loop by
    one callback per burst (thousands of events do not flood the loop's wakeup channel)."""

    def __init__(self, deliver: Callable[[Iterable[Pending]], None]) -> None:
        self._deliver = deliver
        self._lock = threading.Lock()
        self._names: dict[str, int] = {}
        self._scheduled = False
        self._loop: asyncio.AbstractEventLoop | None = None

    def open(self, loop: asyncio.AbstractEventLoop) -> None:
        with self._lock:
            self._loop = loop

    def close(self) -> None:
        with self._lock:
            self._loop = None
            self._names.clear()

    def put(self, name: str, mtime_ns: int) -> None:
        """A request file was seen (any thread)."""
        with self._lock:
            loop = self._loop
            if loop is None:
                return
            self._names[name] = mtime_ns
            if self._scheduled:
                return
            self._scheduled = True
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(self._drain)

    def _drain(self) -> None:
        with self._lock:
            names, self._names = self._names, {}
            self._scheduled = False
            if self._loop is None:
                return
        self._deliver(Pending(mtime_ns, name) for name, mtime_ns in names.items())


class _Events(FileSystemEventHandler):
    def __init__(self, folder: str, inbox: _Inbox) -> None:
        self._folder = folder
        self._inbox = inbox

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.is_directory:
            return
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            path = os.fsdecode(raw) if raw else ""
            if not path.endswith(REQUEST_SUFFIX):
                continue
            folder, name = os.path.split(path)
            if folder != self._folder or request_id_of(name) is None:
                continue
            try:  # on watchdog's thread: a request moved away (ours, into done/) is not queued
                info = os.lstat(path)
            except OSError:
                continue
            self._inbox.put(name, info.st_mtime_ns)


class FileDoor:
    def __init__(self, folder: Path, handler: Handler) -> None:
        self.folder = folder
        self.done = folder / "done"
        self.failed = folder / "failed"
        self._handler = handler
        self._archive = Archive(folder)
        self._queue = RequestQueue()
        self._inbox = _Inbox(self._offer)
        # Requests dispatched whose file could not be moved away: never dispatched again.
        self._dispatched: set[Identity] = set()
        # Requests not parsing yet: (digest of what was read, since when it is unchanged).
        self._settling: dict[str, tuple[bytes, float]] = {}
        self._retries: dict[str, asyncio.TimerHandle] = {}
        self._ready = asyncio.Event()  # the queue may hold work
        self._scan_now = asyncio.Event()
        self._tasks = TaskSet("file door")
        self._threads: ThreadPoolExecutor | None = None
        self._observer: Observer | None = None  # type: ignore[valid-type]
        self.answered = 0
        self.scans = 0  # scans of the folder completed (what they found is offered)

    async def start(self) -> None:
        make_folder(self.done)  # and the door's folder
        self._threads = ThreadPoolExecutor(DOOR_THREADS, thread_name_prefix="file-door")
        self._inbox.open(asyncio.get_running_loop())
        observer = Observer()
        observer.schedule(_Events(str(self.folder), self._inbox), str(self.folder), recursive=False)
        observer.daemon = True
        observer.start()
        self._observer = observer
        self._tasks.spawn(self._scan_forever(), name="file-door-scan")
        for number in range(MAX_IN_FLIGHT):
            self._tasks.spawn(self._work(), name=f"file-door-worker-{number}")

    async def stop(self) -> None:
        """Stop watching; requests being answered are cancelled, and every request not answered
        yet stays on disk for next time. Returns promptly however many are queued."""
        self._inbox.close()
        for retry in self._retries.values():
            retry.cancel()
        self._retries.clear()
        await self._tasks.close()
        self._queue.clear()
        self._settling.clear()
        observer, self._observer = self._observer, None
        if observer is not None:
            observer.stop()
            await asyncio.to_thread(observer.join, 5)
        threads, self._threads = self._threads, None
        if threads is not None:
            # A file operation under way ends by itself (each is small); queued ones are dropped.
            threads.shutdown(wait=False, cancel_futures=True)

    def scan(self) -> None:
        """Look for request files an event was missed for, soon (core loop only)."""
        self._scan_now.set()

    def waiting(self) -> int:
        """Requests queued and not taken by a worker yet."""
        return self._queue.waiting()

    def in_hand(self) -> int:
        """Requests queued, being answered or waiting to be read again."""
        return len(self._queue.known())

    def _offer(self, found: Iterable[Pending]) -> None:
        added = False
        for pending in found:
            added = self._queue.offer(pending.name, pending.mtime_ns) or added
        if added:
            self._ready.set()

    async def _scan_forever(self) -> None:
        while True:
            self._scan_now.clear()
            found = await self._off_loop(unknown_requests, self.folder, self._queue.known())
            self._offer(found)
            self.scans += 1
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(RESCAN_S):
                    await self._scan_now.wait()

    async def _work(self) -> None:
        while True:
            pending = self._queue.take()
            if pending is None:
                self._ready.clear()
                await self._ready.wait()
                continue
            await self._answer(pending)

    async def _answer(self, pending: Pending) -> None:
        name = pending.name
        path = self.folder / name
        waits_again = False
        try:
            read = await self._off_loop(read_request, path)
            if read is None:
                return  # the file went away before it could be read
            problem = read.problem
            if read.unparsed is not None:
                problem = self._settled(name, read)
                if problem is None:  # perhaps a writer that has not finished: read it again
                    waits_again = True
                    self._retry_later(pending)
                    return
            if read.identity in self._dispatched:
                return  # answered (or failed) already; its file could not be moved away
            self._dispatched.add(read.identity)
            response = await self._respond(name[: -len(REQUEST_SUFFIX)], read.body, problem)
            archived = await self._off_loop(self._archive.answer, path, response)
            if archived.moved:
                self._dispatched.discard(read.identity)
            if archived.written:
                self.answered += 1
        finally:
            if not waits_again:
                self._settling.pop(name, None)
                self._queue.release(name)

    async def _respond(
        self, request_id: str, body: JsonValue, problem: Invalid | None
    ) -> JsonObject:
        try:
            return await self._handler(request_id, body, problem)
        except Exception as exc:  # the handler must answer; if it cannot, we still do
            log.exception("file door: request %s failed", request_id)
            return {
                "id": request_id,
                "ok": False,
                "detail": str(exc),
                "error": {"code": "INTERNAL", "message": str(exc)},
            }

    def _settled(self, name: str, read: Read) -> Invalid | None:
        """The problem of a request that does not parse, once it has stayed so unchanged for
        ``SETTLE_S``; None while it may still be being written."""
        now = asyncio.get_running_loop().time()
        last = self._settling.get(name)
        if last is None or last[0] != read.unparsed:
            self._settling[name] = (read.unparsed or b"", now)
            return None
        if now - last[1] >= SETTLE_S:
            return Invalid(f"the request file is not valid JSON: {read.why}")
        return None

    def _retry_later(self, pending: Pending) -> None:
        def again() -> None:
            del self._retries[pending.name]
            self._queue.put_back(pending)
            self._ready.set()

        loop = asyncio.get_running_loop()
        self._retries[pending.name] = loop.call_later(RETRY_S, again)

    async def _off_loop(self, work: Callable[..., T], *args: object) -> T:
        assert self._threads is not None, "the file door is not started"
        return await asyncio.get_running_loop().run_in_executor(self._threads, work, *args)
