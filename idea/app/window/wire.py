"""What the app and its window process (``link.py``, ``process.py``) say to each other: one JSON
object per line, UTF-8, over the window process's stdin (the app's orders) and stdout (the
window's events).

Orders: ``{url, title, root}`` once the UI server listens, ``{title, root}`` after a project
switch, ``{close}``. Events: ``{event: shown | ready | unavailable, reason?}``.
"""

from __future__ import annotations

import json

URL, TITLE, ROOT, CLOSE = "url", "title", "root", "close"
EVENT, REASON = "event", "reason"
SHOWN, READY, UNAVAILABLE = "shown", "ready", "unavailable"


def encode(message: dict[str, str]) -> bytes:
    return json.dumps(message).encode("utf-8") + b"\n"


def decode(line: bytes) -> dict[str, str]:
    """Raises ``ValueError`` if ``line`` is not a JSON object of strings."""
    message = json.loads(line)
    if not isinstance(message, dict) or not all(isinstance(v, str) for v in message.values()):
        raise ValueError(f"not a message: {line!r}")
    return message
