"""A WebSocket client of ``idea serve`` as the web UI is one (ui/API.md), for the UI benchmarks.

It connects with the token and the server's own Origin, calls methods and matches replies by id,
and hands each binary terminal frame to the handler registered for its attach id, undecoded (the
handler decides what to look at, so the client costs what a browser's ``onmessage`` costs).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import struct
import sys
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from urllib.parse import parse_qs, urlsplit

import aiohttp

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the tests' helpers (tests/) are shared with the benchmarks

FrameHandler = Callable[[int, memoryview], None]  # (kind: 1 output / 2 re-sync, UTF-8 text)
_ID_LENGTH = struct.Struct(">H")


class ApiError(Exception):
    def __init__(self, method: str, error: dict) -> None:
        super().__init__(f"{method}: {error.get('code')}: {error.get('message')}")
        self.error = error


class UiClient:
    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.port = parts.port
        self.token = parse_qs(parts.query)["token"][0]
        self.frames: dict[str, FrameHandler] = {}
        self.events: list[dict] = []
        # Each request's future, and what to do with its result inside the reader (before the
        # next frame is read).
        self._pending: dict[int, tuple[asyncio.Future[object], Callable[[object], None]]] = {}
        self._ids = itertools.count(1)
        self._session: aiohttp.ClientSession | None = None
        self._ws: aiohttp.ClientWebSocketResponse | None = None
        self._reader: asyncio.Task[None] | None = None

    async def __aenter__(self) -> UiClient:
        self._session = aiohttp.ClientSession()
        self._ws = await self._session.ws_connect(
            f"ws://127.0.0.1:{self.port}/ws?token={self.token}",
            headers={"Origin": f"http://127.0.0.1:{self.port}"},
            max_msg_size=0,
            autoping=True,
        )
        self._reader = asyncio.create_task(self._read())
        return self

    async def __aexit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        if self._session is not None:
            await self._session.close()

    async def send(
        self, method: str, on_result: Callable[[object], None] = lambda _: None, **params: object
    ) -> asyncio.Future[object]:
        """Send a request; the future resolves to its result (or raises ``ApiError``)."""
        request_id = next(self._ids)
        future: asyncio.Future[object] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = (future, on_result)
        assert self._ws is not None
        await self._ws.send_str(json.dumps({"id": request_id, "method": method, "params": params}))
        future.add_done_callback(
            lambda f: f.exception()
        )  # a dropped error is not "never retrieved"
        return future

    async def call(
        self,
        method: str,
        timeout: float = 30.0,
        on_result: Callable[[object], None] = lambda _: None,
        **params: object,
    ) -> object:
        future = await self.send(method, on_result, **params)
        async with asyncio.timeout(timeout):
            return await future

    async def _read(self) -> None:
        assert self._ws is not None
        async for msg in self._ws:
            if msg.type == aiohttp.WSMsgType.BINARY:
                data = memoryview(msg.data)
                (n,) = _ID_LENGTH.unpack_from(data, 1)
                handler = self.frames.get(bytes(data[3 : 3 + n]).decode("utf-8"))
                if handler is not None:
                    handler(data[0], data[3 + n :])
            elif msg.type == aiohttp.WSMsgType.TEXT:
                message = json.loads(msg.data)
                if "event" in message:
                    self.events.append(message)
                    continue
                future, on_result = self._pending.pop(message.get("id"), (None, None))
                if future is None or on_result is None or future.done():
                    continue
                if message["ok"]:
                    on_result(message["result"])
                    future.set_result(message["result"])
                else:
                    future.set_exception(ApiError(str(message.get("id")), message["error"]))
            else:
                break
        for future, _ in self._pending.values():
            if not future.done():
                future.set_exception(ConnectionError("the WebSocket closed"))

    # --- the API calls the benchmarks make -------------------------------------------------------

    async def shell_agent(self, name: str, rows: int = 24, cols: int = 80) -> None:
        """Create a shell agent and launch it in a terminal in the background (no cell)."""
        await self.call("agents.create", name=name, profile="shell", mode="terminal")
        await self.call("session.launch", name=name, mode="terminal", rows=rows, cols=cols)

    async def attach(self, name: str, handler: FrameHandler) -> tuple[str, str]:
        """Attach to an agent's terminal; frames go to ``handler`` from the first one on."""

        def register(result: object) -> None:
            # In the reader, on the reply: it comes before this attach's first frame.
            assert isinstance(result, dict)
            self.frames[result["attach_id"]] = handler

        result = await self.call("terminal.attach", on_result=register, name=name)
        assert isinstance(result, dict)
        return result["attach_id"], result["scrollback"]


class Watch:
    """Waits for a marker in one terminal's output frames (it may span two frames)."""

    def __init__(self, marker: bytes) -> None:
        self.marker = marker
        self.output_bytes = 0  # in output frames: the stream itself
        self.resync_bytes = 0  # in re-sync frames: scrollback sent instead of dropped output
        self.resyncs = 0
        self.found = asyncio.Event()
        self._tail = b""

    def __call__(self, kind: int, text: memoryview) -> None:
        if kind == 2:
            self.resyncs += 1
            self.resync_bytes += len(text)
            self._tail = b""
        else:
            self.output_bytes += len(text)
        if self.found.is_set():
            return
        chunk = bytes(text)
        keep = len(self.marker) - 1
        if self.marker in chunk or self.marker in self._tail + chunk[:keep]:
            self.found.set()
        self._tail = chunk[-keep:] if keep else b""
