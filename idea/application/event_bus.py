"""In-process publish/subscribe of domain events; handlers run synchronously, in order.

A failing handler is logged and never stops the others or the publisher.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import Protocol

from idea.domain.events import DomainEvent

log = logging.getLogger(__name__)

Handler = Callable[[DomainEvent], None]


class EventPublisher(Protocol):
    def publish(self, event: DomainEvent) -> None: ...


class EventBus:
    def __init__(self) -> None:
        self._handlers: list[Handler] = []

    def subscribe(self, handler: Handler) -> Callable[[], None]:
        self._handlers.append(handler)

        def unsubscribe() -> None:
            with contextlib.suppress(ValueError):
                self._handlers.remove(handler)

        return unsubscribe

    def publish(self, event: DomainEvent) -> None:
        for handler in list(self._handlers):
            try:
                handler(event)
            except Exception:
                log.exception("event handler failed on %s", type(event).__name__)
