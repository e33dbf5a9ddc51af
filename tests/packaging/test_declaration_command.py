"""Which command the frozen build declares to agents' CLIs (DESIGN.md §9.5, §10): no build needed.

The AppImage runtime sets ``$APPIMAGE`` (the image) and ``$APPDIR`` (where its files are: a FUSE
mount, or a folder it unpacked them to under ``APPIMAGE_EXTRACT_AND_RUN=1``).
"""

import sys

import pytest

from idea.infrastructure.clis.declaration import frozen_command

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="AppImage is Linux")

IMAGE = "/home/u/Apps/IdeA-x86_64.AppImage"


def mounted(path: str) -> bool:
    return path.startswith("/tmp/.mount_")


def test_from_its_fuse_mount_the_appimage_is_declared():
    env = {"APPIMAGE": IMAGE, "APPDIR": "/tmp/.mount_IdeAab12"}
    exe = "/tmp/.mount_IdeAab12/usr/lib/idea/idea"
    assert frozen_command(exe, env, mounted) == IMAGE


def test_unpacked_without_fuse_the_unpacked_executable_is_declared():
    env = {"APPIMAGE": IMAGE, "APPDIR": "/tmp/appimage_extracted_0f82"}
    exe = "/tmp/appimage_extracted_0f82/usr/lib/idea/idea"
    assert frozen_command(exe, env, mounted) == exe


def test_the_one_folder_build_declares_itself():
    exe = "/opt/idea/idea"
    assert frozen_command(exe, {}, mounted) == exe


def test_an_appimage_it_was_started_from_is_not_its_own():
    # e.g. `idea` run in a terminal of some other AppImage application
    env = {"APPIMAGE": "/home/u/Apps/Editor.AppImage", "APPDIR": "/tmp/.mount_Editorcd34"}
    exe = "/opt/idea/idea"
    assert frozen_command(exe, env, mounted) == exe
