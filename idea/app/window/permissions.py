"""What the page in the window (Qt WebEngine) may do beyond showing itself: notify, and use the
clipboard, for its own origin only; every other permission is denied.

pywebview's Qt backend denies every web permission but the camera and microphone (and its handler
fails on PySide6's enum types), so without this the UI's ``new Notification(...)`` never shows and
``navigator.clipboard.readText()`` is refused: the terminal's Paste (its menu, the palette) could
not read what another application copied. Installed on the GUI thread before the window shows;
the UI's own origin is asked for at each request, since the window opens before the UI has one.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QUrl
from PySide6.QtWebEngineCore import QWebEnginePermission, QWebEngineSettings

GRANTED = (
    QWebEnginePermission.PermissionType.Notifications,
    QWebEnginePermission.PermissionType.ClipboardReadWrite,
)


def install(native_window: Any, app_url: Callable[[], str]) -> None:
    """``native_window`` is pywebview's Qt ``BrowserView``; call on the GUI thread. ``app_url``:
    the UI's URL, or "" while there is none (then nothing is granted)."""
    page = native_window.webview.page()
    with contextlib.suppress(RuntimeError, TypeError):
        page.featurePermissionRequested.disconnect()
    settings = page.settings()
    # Without these Qt refuses a script's clipboard access before any permission is asked.
    settings.setAttribute(QWebEngineSettings.WebAttribute.JavascriptCanAccessClipboard, True)
    settings.setAttribute(QWebEngineSettings.WebAttribute.JavascriptCanPaste, True)

    def decide(permission: QWebEnginePermission) -> None:
        own = app_url()
        if own and allowed(permission.permissionType(), permission.origin(), QUrl(own)):
            permission.grant()
        else:
            permission.deny()

    page.permissionRequested.connect(decide)


def allowed(kind: QWebEnginePermission.PermissionType, origin: QUrl, own: QUrl) -> bool:
    """Whether the page may have ``kind``: one of ``GRANTED``, asked by the UI's own origin."""
    return kind in GRANTED and same_origin(origin, own)


def same_origin(origin: QUrl, own: QUrl) -> bool:
    return (origin.scheme(), origin.host(), origin.port()) == (own.scheme(), own.host(), own.port())
