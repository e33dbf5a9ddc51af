"""The real clock and id generator behind the ``Clock`` and ``IdGenerator`` ports."""

from __future__ import annotations

import time
import uuid


class SystemClock:
    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000

    def monotonic(self) -> float:
        return time.monotonic()


class UuidGenerator:
    def new_id(self) -> str:
        return str(uuid.uuid4())
