"""The frozen Windows build (``make windows-build`` -> ``dist/windows/idea/idea.exe``, made by
PyInstaller under wine on ``build.spec``), run by the Windows lane: ``--version`` answers,
``idea.exe serve`` serves the bundled UI, and the official MCP SDK client drives its ``idea
mcp-server`` over the named pipe against a headless project runtime with fake agents, with the
environment IdeA declares and nothing of the source tree. Skipped when the build is absent, a
failure under ``IDEA_REQUIRE_PACKAGE=1``."""

from __future__ import annotations

import subprocess
import urllib.request

import pytest

import idea
from tests.packaging.builds import ROOT, ask_through_the_sdk, bridge_argv, require_build
from tests.processes import LineWatcher
from tests.windows_lane import windows_only

WINDOWS_FROZEN = ROOT / "dist" / "windows" / "idea" / "idea.exe"

pytestmark = [windows_only, pytest.mark.timeout(120)]


@pytest.fixture
def frozen_exe():
    return require_build(WINDOWS_FROZEN, "windows-build")


def test_the_frozen_exe_prints_its_version(frozen_exe):
    out = subprocess.run(
        [str(frozen_exe), "--version"], capture_output=True, text=True, timeout=60, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"idea {idea.__version__}"


async def test_the_sdk_client_through_the_frozen_bridge(runtime, frozen_exe):
    argv = bridge_argv(runtime, frozen_exe, "id-caller")
    entry_env = {"SystemRoot": __import__("os").environ.get("SYSTEMROOT", r"C:\Windows")}
    await ask_through_the_sdk(argv, entry_env)


def test_the_frozen_serve_serves_the_bundled_ui(frozen_exe, tmp_path):
    """The UI bundled in ``_internal`` is found and served. (Its clean stop is not tested: wine
    8's GenerateConsoleCtrlEvent fails with "Invalid handle", so neither Ctrl+C nor Ctrl+Break
    reaches it; it is killed.)"""
    proc = subprocess.Popen(
        [str(frozen_exe), "serve", str(tmp_path), "--port", "0"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        encoding="utf-8",
    )
    try:
        watcher = LineWatcher(proc.stdout)
        line = watcher.wait_for(lambda text: text.startswith("IdeA UI:"), timeout=60)
        url = line.split("IdeA UI:", 1)[1].strip()
        with urllib.request.urlopen(url, timeout=10) as response:
            page = response.read().decode()
        assert "IdeA UI not built" not in page
        assert "<script" in page
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        proc.stdout.close()
    assert (tmp_path / ".ideai" / "project.json").is_file()
