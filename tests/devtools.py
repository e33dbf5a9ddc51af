"""What a test reads from the page of the desktop window: the Chrome DevTools protocol of its Qt
WebEngine (``QTWEBENGINE_REMOTE_DEBUGGING``), spoken over a WebSocket.

Playwright cannot attach to Qt WebEngine (it has no browser contexts), so this is the protocol
itself, kept to what a test reads: ``Runtime.evaluate``. What the user does goes through X
(xdotool), as a user's keys and clicks do; this only looks.
"""

from __future__ import annotations

import asyncio
import json
import threading
import urllib.request
from collections.abc import Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from typing import Any

import aiohttp

from tests.waiting import until_blocking

CALL_TIMEOUT_S = 15.0


def devtools_env(port: int) -> dict[str, str]:
    """What the window's environment needs for its page to be reachable on ``port``."""
    return {"QTWEBENGINE_REMOTE_DEBUGGING": f"127.0.0.1:{port}"}


class PageDevTools:
    """One page's DevTools session, on a loop of its own (the tests are synchronous)."""

    def __init__(self, ws_url: str) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._next_id = 0
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._session: aiohttp.ClientSession | None = None
        self._ws: aiohttp.ClientWebSocketResponse | None = None
        self._reader: asyncio.Task[None] | None = None
        self._run(self._connect(ws_url))

    def _run(self, coro: Any) -> Any:
        future: Future[Any] = asyncio.run_coroutine_threadsafe(coro, self._loop)
        return future.result(CALL_TIMEOUT_S + 5)

    async def _connect(self, ws_url: str) -> None:
        self._session = aiohttp.ClientSession()
        self._ws = await self._session.ws_connect(ws_url, max_msg_size=64 * 1024 * 1024)
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self._ws is not None
        async for message in self._ws:
            if message.type != aiohttp.WSMsgType.TEXT:
                continue
            reply = json.loads(message.data)
            waiter = self._waiting.pop(reply.get("id", -1), None)
            if waiter is not None and not waiter.done():
                waiter.set_result(reply)
        for waiter in self._waiting.values():
            if not waiter.done():
                waiter.set_exception(ConnectionError("the page's DevTools connection closed"))

    async def _call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        assert self._ws is not None
        self._next_id += 1
        waiter: asyncio.Future[dict[str, Any]] = self._loop.create_future()
        self._waiting[self._next_id] = waiter
        await self._ws.send_str(
            json.dumps({"id": self._next_id, "method": method, "params": params})
        )
        async with asyncio.timeout(CALL_TIMEOUT_S):
            reply = await waiter
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply["result"]

    def evaluate(self, expression: str) -> Any:
        """The JSON value of ``expression`` in the page (a promise is awaited); raises with the
        page's message if it throws."""
        result = self._run(
            self._call(
                "Runtime.evaluate",
                {"expression": expression, "returnByValue": True, "awaitPromise": True},
            )
        )
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise RuntimeError(f"the page threw: {text}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 20, what: str = "") -> Any:
        """Poll ``expression`` until it is truthy; its value."""
        seen: list[Any] = []

        def truthy() -> bool:
            seen[:] = [self.evaluate(expression)]
            return bool(seen[0])

        until_blocking(truthy, timeout, what or expression)
        return seen[0]

    def rect(self, selector: str) -> dict[str, float]:
        """The centre and size of the first element ``selector`` matches, in CSS pixels of the
        page (the window's client area: Qt shows the page from its top-left corner)."""
        found = self.wait_for(
            f"""(() => {{ const e = document.querySelector({json.dumps(selector)});
            if (!e) return null; const r = e.getBoundingClientRect();
            if (!r.width || !r.height) return null;
            return {{x: r.x + r.width / 2, y: r.y + r.height / 2, width: r.width,
                     height: r.height}}; }})()""",
            what=f"{selector} shown",
        )
        return dict(found)

    def close(self) -> None:
        async def shut() -> None:
            if self._ws is not None:
                await self._ws.close()
            if self._reader is not None:
                await asyncio.gather(self._reader, return_exceptions=True)
            if self._session is not None:
                await self._session.close()

        try:
            self._run(shut())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(5)
            self._loop.close()


@contextmanager
def window_page(port: int, timeout: float = 30) -> Iterator[PageDevTools]:
    """The DevTools session of the window's page (the one page Qt WebEngine lists on ``port``)."""
    pages: list[dict[str, Any]] = []

    def listed() -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=5) as r:
                pages[:] = [p for p in json.loads(r.read()) if p.get("type") == "page"]
        except OSError:
            return False
        return bool(pages)

    until_blocking(listed, timeout, f"the window's page on DevTools port {port}")
    page = PageDevTools(pages[0]["webSocketDebuggerUrl"])
    try:
        yield page
    finally:
        page.close()
