"""Delivery that outlives a dropped link: numbered messages kept until acknowledged.

One ``Outbox`` per direction and one ``Inbox`` per receiver. The sender numbers each message it
must not lose (``seq``) and keeps it until the other side acknowledges it; after a reconnect it
sends again what the other side says it did not get (``resend_after``). The receiver takes each
``seq`` once (``fresh``) and says how far it got (``seen``).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from idea.infrastructure.remote.wire import Message

KEPT_MAX = 4096  # unacknowledged messages kept; beyond, the oldest go (the link was long gone)


class Outbox:
    def __init__(self) -> None:
        self._next = 1
        self._kept: OrderedDict[int, Message] = OrderedDict()

    def number(self, message: Message) -> Message:
        """``message`` with its ``seq``, kept until acknowledged."""
        numbered = {**message, "seq": self._next}
        self._kept[self._next] = numbered
        self._next += 1
        while len(self._kept) > KEPT_MAX:
            self._kept.popitem(last=False)
        return numbered

    def acknowledged(self, seen: int) -> None:
        while self._kept and next(iter(self._kept)) <= seen:
            self._kept.popitem(last=False)

    def resend_after(self, seen: int) -> list[Message]:
        self.acknowledged(seen)
        return list(self._kept.values())


class Inbox:
    def __init__(self) -> None:
        self.seen = 0

    def fresh(self, message: Message) -> bool:
        """True the first time a numbered message arrives (unnumbered ones always are)."""
        seq: Any = message.get("seq")
        if not isinstance(seq, int) or isinstance(seq, bool):
            return True
        if seq <= self.seen:
            return False
        self.seen = seq
        return True
