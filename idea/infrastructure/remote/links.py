"""One project's links to its agents' hosts, made when an agent first needs one (§16)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from idea.infrastructure.remote.link import Connector, HostLink, LinkState

StateListener = Callable[[str, str], None]  # (host name, link state)


class HostLinks:
    def __init__(
        self,
        connector_for: Callable[[str], Connector],
        project_id: str,
        grace_s: float = 300.0,
        tool_timeout_s: float = 600.0,
    ) -> None:
        """``connector_for(name)`` raises ``NotFound`` for a host the user has not configured."""
        self._connector_for = connector_for
        self._project_id = project_id
        self._grace_s = grace_s
        self._tool_timeout_s = tool_timeout_s
        self._links: dict[str, HostLink] = {}
        self._making: dict[str, asyncio.Lock] = {}
        self._listeners: list[StateListener] = []

    async def link_for(self, name: str) -> HostLink:
        """The live link to ``name``, connected now if there is none (raises what connecting
        raises: the typed errors of the SSH link and of the host)."""
        async with self._making.setdefault(name, asyncio.Lock()):
            link = self._links.get(name)
            if link is not None and link.state in (LinkState.UP, LinkState.RECONNECTING):
                return link
            link = HostLink(
                name,
                self._connector_for(name),
                self._project_id,
                self._grace_s,
                self._tool_timeout_s,
            )
            link.on_state(lambda state: self._changed(name, state))
            await link.start()
            self._links[name] = link
            self._changed(name, link.state)
            return link

    def state(self, name: str) -> str | None:
        """``up``, ``reconnecting``, ``lost``, ``closed``; None before the first connection."""
        link = self._links.get(name)
        return None if link is None else link.state

    def on_state(self, listener: StateListener) -> None:
        self._listeners.append(listener)

    async def close(self) -> None:
        """Stops the agents on every host and ends the links."""
        links, self._links = list(self._links.values()), {}
        await asyncio.gather(*(link.close() for link in links), return_exceptions=True)

    def _changed(self, name: str, state: str) -> None:
        for listener in list(self._listeners):
            listener(name, state)
