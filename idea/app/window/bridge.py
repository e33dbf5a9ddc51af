"""What the page in the window may call (``window.pywebview.api``): the native folder dialog, and
opening a web link in the system browser. It runs in the window process (``process.py``).

Only an absolute http(s) link reaches the system browser: nothing that runs or reads files.
"""

from __future__ import annotations

import webbrowser
from collections.abc import Callable
from typing import Protocol, TypeGuard
from urllib.parse import urlsplit

# What the page may hand to the system browser: a web address, nothing that runs or reads files.
EXTERNAL_SCHEMES = ("http", "https")
EXTERNAL_URL_MAX = 8192


class FolderPicker(Protocol):
    def pick_folder(self) -> str | None: ...


def external_url(url: object) -> TypeGuard[str]:
    """True for an absolute http(s) URL with a host and no whitespace or control characters: the
    only links a chat message may open in the system browser (no ``file:``, ``javascript:``, no
    argument for the opener that starts with ``-``)."""
    if not isinstance(url, str) or not url or len(url) > EXTERNAL_URL_MAX:
        return False
    if any(ch.isspace() or ord(ch) < 0x20 or ord(ch) == 0x7F for ch in url):
        return False
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:  # an unbalanced "[" in the host, a bad port
        return False
    return parts.scheme.lower() in EXTERNAL_SCHEMES and bool(host)


class WindowBridge:
    """The page's API. Its public attributes are exposed to JavaScript, so it holds the window
    behind a private name."""

    def __init__(
        self, window: FolderPicker, open_browser: Callable[[str], bool] = webbrowser.open
    ) -> None:
        self._window = window
        self._open_browser = open_browser

    def pick_folder(self) -> str | None:
        return self._window.pick_folder()

    def open_url(self, url: object) -> bool:
        """Open ``url`` in the system browser if ``external_url`` accepts it; False otherwise."""
        return external_url(url) and bool(self._open_browser(url))
