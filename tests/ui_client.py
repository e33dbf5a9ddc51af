"""The UI's WebSocket API (ui/API.md) as a test client: a UI URL with its token in, one request
at a time, every wait bounded."""

from __future__ import annotations

import contextlib
import json

import aiohttp

TIMEOUT_S = 60.0


class UiClient:
    """The UI's WebSocket API (ui/API.md), as the UI uses it: one request at a time."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self._ws = ws
        self._next_id = 0

    @property
    def ws(self) -> aiohttp.ClientWebSocketResponse:
        """The connection itself, for a test that sends what the UI never would."""
        return self._ws

    @classmethod
    @contextlib.asynccontextmanager
    async def connect(cls, ui_url: str):
        origin = ui_url.split("/?", 1)[0]
        token = ui_url.split("token=", 1)[1]
        ws_url = origin.replace("http://", "ws://") + f"/ws?token={token}"
        timeout = aiohttp.ClientTimeout(total=TIMEOUT_S)
        async with (
            aiohttp.ClientSession(timeout=timeout) as http,
            http.ws_connect(ws_url, headers={"Origin": origin}) as ws,
        ):
            yield cls(ws)

    async def call(self, method: str, **params: object) -> object:
        """The result; AssertionError if the server answered with an error."""
        reply = await self.reply(method, **params)
        assert reply["ok"], reply
        return reply["result"]

    async def reply(self, method: str, **params: object) -> dict:
        """The whole reply: ``{id, ok: true, result}`` or ``{id, ok: false, error}``."""
        self._next_id += 1
        await self._ws.send_json({"id": self._next_id, "method": method, "params": params})
        async for message in self._ws:
            if message.type != aiohttp.WSMsgType.TEXT:
                continue  # terminal output
            reply = json.loads(message.data)
            if reply.get("id") == self._next_id:
                return reply
        raise AssertionError(f"the UI server closed the WebSocket before answering {method}")
