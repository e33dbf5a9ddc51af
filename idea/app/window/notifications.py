"""Desktop notifications from the page in the window (Qt WebEngine), shown by the desktop.

Qt has no notification UI of its own: a web notification (which ``permissions`` lets the
page's own origin send) goes to the freedesktop notification service over D-Bus on Linux (what
GNOME, KDE and others show), and to a tray icon's message elsewhere (the Windows toast). Installed
on the GUI thread before the window shows.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from typing import Any

from PySide6.QtWebEngineCore import QWebEngineNotification

log = logging.getLogger(__name__)

APP_NAME = "IdeA"
EXPIRE_DEFAULT = -1  # the notification server decides
NOTIFY_TIMEOUT_S = 5.0


def install(native_window: Any) -> None:
    """``native_window`` is pywebview's Qt ``BrowserView``; call on the GUI thread."""
    presenter = _Presenter(native_window)
    # Keep it alive as long as the window: Qt holds only the callable.
    native_window.idea_notifications = presenter
    native_window.webview.page().profile().setNotificationPresenter(presenter.show)


class _Presenter:
    def __init__(self, native_window: Any) -> None:
        self._window = native_window
        self._tray: Any = None

    def show(self, notification: QWebEngineNotification) -> None:
        # GUI thread: the D-Bus round trip goes to a thread; the tray (Qt) stays here.
        title, body = notification.title(), notification.message()
        if sys.platform.startswith("linux") and os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
            threading.Thread(
                target=_show_dbus_logged, args=(title, body), name="idea-notify", daemon=True
            ).start()
            return
        try:
            self._show_tray(title, body)
        except Exception:
            log.exception("could not show a desktop notification")

    def _show_tray(self, title: str, body: str) -> bool:
        from PySide6.QtWidgets import QSystemTrayIcon  # noqa: PLC0415

        if not QSystemTrayIcon.isSystemTrayAvailable():
            log.info("no notification service nor system tray: notification %r not shown", title)
            return False
        if self._tray is None:
            self._tray = QSystemTrayIcon(self._window.windowIcon(), self._window)
            self._tray.show()
        self._tray.showMessage(title, body)
        return True


def _show_dbus_logged(title: str, body: str) -> None:
    try:
        _show_dbus(title, body)
    except Exception:
        log.exception("could not show a desktop notification")


def _show_dbus(title: str, body: str) -> bool:
    """org.freedesktop.Notifications.Notify on the session bus; False if there is no bus or no
    notification service on it."""
    from jeepney import DBusAddress, MessageType, new_method_call  # noqa: PLC0415
    from jeepney.io.blocking import open_dbus_connection  # noqa: PLC0415

    if not os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
        return False
    service = DBusAddress(
        "/org/freedesktop/Notifications",
        bus_name="org.freedesktop.Notifications",
        interface="org.freedesktop.Notifications",
    )
    # Notify(app_name, replaces_id, app_icon, summary, body, actions, hints, expire_timeout)
    call = new_method_call(
        service, "Notify", "susssasa{sv}i", (APP_NAME, 0, "", title, body, [], {}, EXPIRE_DEFAULT)
    )
    try:
        with open_dbus_connection(bus="SESSION") as bus:
            reply = bus.send_and_get_reply(call, timeout=NOTIFY_TIMEOUT_S)
    except (OSError, TimeoutError, ValueError) as exc:
        log.info("no notification service: %s", exc)
        return False
    if reply.header.message_type == MessageType.error:
        log.info("notification service refused: %s", reply.body)
        return False
    return True
