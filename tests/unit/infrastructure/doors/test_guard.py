"""The guard of the local HTTP doors, on a door of its own (not the UI server): what adding an
HTTP door gets from it without writing a check."""

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from idea.infrastructure.doors.guard import LoopbackGuard


@pytest.fixture
async def door():
    guard = LoopbackGuard("test door", origin_required=("/ws",))

    async def hello(request):
        response = web.Response(text="hello")
        guard.remember(request, response)
        return response

    app = web.Application(middlewares=[guard.middleware()])
    app.router.add_get("/{path:.*}", hello)
    client = TestClient(TestServer(app, host="127.0.0.1"))
    await client.start_server()
    try:
        yield guard, client
    finally:
        await client.close()


def own(client, **headers):
    return {"Host": f"127.0.0.1:{client.port}", **headers}


async def test_the_token_opens_the_door_and_leaves_a_cookie(door):
    guard, client = door
    first = await client.get(f"/?token={guard.token}", headers=own(client))
    assert (first.status, await first.text()) == (200, "hello")
    assert client.session.cookie_jar.filter_cookies(client.make_url("/"))
    again = await client.get("/page", headers=own(client))  # the cookie, no token
    assert again.status == 200


@pytest.mark.parametrize(
    ("path", "headers", "why"),
    [
        ("/?token=wrong", {}, "missing or wrong token"),
        ("/", {}, "missing or wrong token"),
        ("/?token={token}", {"Host": "evil.example:80"}, "Host header"),
        ("/?token={token}", {"Origin": "http://evil.example"}, "own origin"),
        ("/ws?token={token}", {}, "own origin"),  # a WebSocket path needs its Origin
    ],
)
async def test_anything_else_is_refused_with_the_reason(door, path, headers, why):
    guard, client = door
    response = await client.get(path.format(token=guard.token), headers=own(client, **headers))
    assert response.status == 403
    assert why in await response.text()
