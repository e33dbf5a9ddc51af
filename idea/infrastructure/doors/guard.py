"""The guard of every local HTTP door (the UI server, and any door added beside it).

Invariant: no request reaches a handler unless it carries the per-launch token (``?token=`` or
the cookie that a page load with a valid token sets), names this server in ``Host``
(``127.0.0.1:<port>`` or ``localhost:<port>``) and, if it has an ``Origin`` (always for a
WebSocket), comes from this server's own origin; anything else gets 403 with the reason. That
stops other local users without the token, DNS rebinding (a foreign ``Host``) and cross-site
requests from a browser (a foreign ``Origin``).
"""

from __future__ import annotations

import hmac
import logging
import secrets
from collections.abc import Collection

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware

log = logging.getLogger(__name__)


class LoopbackGuard:
    def __init__(
        self, name: str, token: str | None = None, origin_required: Collection[str] = ()
    ) -> None:
        """``name`` is logged with each refusal; ``origin_required``: paths (WebSocket
        endpoints) whose requests must carry this server's own ``Origin``."""
        self.name = name
        self.token = token or secrets.token_urlsafe(32)
        self._origin_required = frozenset(origin_required)

    def middleware(self) -> Middleware:
        @web.middleware
        async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
            refusal = self.refusal(request)
            if refusal is not None:
                log.warning(
                    "%s refused %s %s: %s", self.name, request.method, request.path, refusal
                )
                return web.Response(status=403, text=f"forbidden: {refusal}\n")
            return await handler(request)

        return guard

    def refusal(self, request: web.Request) -> str | None:
        """Why ``request`` must not be served, or None."""
        port = local_port(request)
        own_hosts = {f"127.0.0.1:{port}", f"localhost:{port}"}
        if request.headers.get("Host") not in own_hosts:
            return "the Host header does not name this server"
        origin = request.headers.get("Origin")
        if (origin is not None or request.path in self._origin_required) and origin not in {
            f"http://{host}" for host in own_hosts
        }:
            return "the request does not come from this app's own origin"
        cookie = request.cookies.get(self.cookie_name(port))
        if not (self.valid(request.query.get("token")) or self.valid(cookie)):
            return "missing or wrong token"
        return None

    def valid(self, candidate: str | None) -> bool:
        return candidate is not None and hmac.compare_digest(
            candidate.encode("utf-8"), self.token.encode("utf-8")
        )

    def remember(self, request: web.Request, response: web.StreamResponse) -> None:
        """After a page load with a valid ``?token=``: the cookie that later requests carry."""
        if self.valid(request.query.get("token")):
            # Cookies ignore ports: the name carries it, so two servers never overwrite each other.
            response.set_cookie(
                self.cookie_name(local_port(request)),
                self.token,
                httponly=True,
                samesite="Strict",
                path="/",
            )

    @staticmethod
    def cookie_name(port: int | None) -> str:
        return f"idea_token_{port}"


def local_port(request: web.Request) -> int | None:
    """The port this server accepted ``request`` on."""
    transport = request.transport
    sockname = transport.get_extra_info("sockname") if transport is not None else None
    return sockname[1] if isinstance(sockname, tuple) and len(sockname) >= 2 else None
