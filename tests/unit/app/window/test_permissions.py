"""What the window's page may be granted: notifications and the clipboard, for the UI's own
origin only (the real window's clipboard: tests/e2e/test_window_desktop.py)."""

from __future__ import annotations

import pytest

QtCore = pytest.importorskip("PySide6.QtCore")
permissions = pytest.importorskip("idea.app.window.permissions")
Kind = pytest.importorskip("PySide6.QtWebEngineCore").QWebEnginePermission.PermissionType

OWN = QtCore.QUrl("http://127.0.0.1:41234/?token=abc")


@pytest.mark.parametrize("kind", [Kind.Notifications, Kind.ClipboardReadWrite])
def test_the_uis_own_origin_may_notify_and_use_the_clipboard(kind):
    assert permissions.allowed(kind, QtCore.QUrl("http://127.0.0.1:41234"), OWN)


@pytest.mark.parametrize(
    "origin",
    [
        "http://127.0.0.1:41235",
        "https://127.0.0.1:41234",
        "http://localhost:41234",
        "https://x.org",
    ],
)
def test_another_origin_gets_nothing(origin):
    assert not permissions.allowed(Kind.ClipboardReadWrite, QtCore.QUrl(origin), OWN)


@pytest.mark.parametrize(
    "kind", [Kind.Geolocation, Kind.MediaAudioCapture, Kind.DesktopVideoCapture, Kind.MouseLock]
)
def test_every_other_permission_is_denied_even_to_the_ui(kind):
    assert not permissions.allowed(kind, QtCore.QUrl("http://127.0.0.1:41234"), OWN)
