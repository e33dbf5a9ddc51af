"""The frozen ONE-FOLDER build (``make package`` -> ``dist/idea/idea``, DESIGN.md §10).

Skipped when the build is absent (local development), a failure then under
``IDEA_REQUIRE_PACKAGE=1`` (CI builds it first; see builds.py). The build must work: the official
MCP SDK client drives the frozen ``idea mcp-server`` against a headless project runtime (fake
agents), ``--version`` answers, and ``idea serve`` serves the bundled UI. Spawn -> ``initialize``
of the frozen bridge is measured against ``python -c pass`` (the figure is printed; run with
``-s`` to see it).
"""

import asyncio
import json
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

import idea
from tests.packaging.builds import INITIALIZE, ask_through_the_sdk, bridge_argv, packaged_env
from tests.processes import LineWatcher, spawned

ROUNDS = 20
# The target is 2.5x (DESIGN.md §10: ~21 ms one-folder with the routing runtime hook); the
# assertion only catches a gross regression (a one-file build is 4.4 s), not a busy machine.
SPAWN_RATIO_LIMIT = 6.0

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform == "win32", reason="Unix socket endpoint"),
]


def test_frozen_version(frozen):
    out = subprocess.run(
        [str(frozen), "--version"], capture_output=True, text=True, timeout=60, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"idea {idea.__version__}"


@pytest.mark.timeout(120)
async def test_sdk_client_against_the_frozen_bridge(runtime, frozen):
    await ask_through_the_sdk(bridge_argv(runtime, frozen, "id-caller"), packaged_env())


def spawn_to_initialize(argv: list[str]) -> float:
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=packaged_env())
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(INITIALIZE)
        proc.stdin.flush()
        line = proc.stdout.readline()
        elapsed = time.perf_counter() - started
        proc.stdin.close()
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
    answer = json.loads(line)
    assert answer["id"] == 0 and "result" in answer, line
    return elapsed


def python_pass() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True, timeout=30)
    return time.perf_counter() - started


@pytest.mark.timeout(300)
async def test_frozen_bridge_spawn_time(runtime, frozen):
    argv = bridge_argv(runtime, frozen, "id-caller")

    def measure() -> tuple[float, float]:
        spawn_to_initialize(argv)  # warm the page cache
        python_pass()
        bridge, floor = [], []
        for _ in range(ROUNDS):  # alternated, so both see the same machine load
            bridge.append(spawn_to_initialize(argv))
            floor.append(python_pass())
        return statistics.median(bridge), statistics.median(floor)

    # The runtime answering the bridge runs on this loop: measure on a thread.
    bridge, floor = await asyncio.to_thread(measure)
    ratio = bridge / floor
    print(
        f"\nfrozen idea mcp-server spawn->initialize {bridge * 1000:.1f} ms, "
        f"python -c pass {floor * 1000:.1f} ms, ratio {ratio:.2f}x (target <= 2.5x)"
    )
    assert ratio <= SPAWN_RATIO_LIMIT


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/<pid>/maps")
@pytest.mark.timeout(120)
async def test_the_frozen_bridge_loads_only_what_it_needs(runtime, frozen):
    """The router runs before PyInstaller's bootstrap (no ctypes, so no libffi) and keeps
    OpenSSL out of the handshake's HMAC (no libcrypto); nothing of Qt, of course."""
    argv = bridge_argv(runtime, frozen, "id-caller")

    def libraries_once_serving() -> set[str]:
        proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=packaged_env()
        )
        try:
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write(INITIALIZE)
            proc.stdin.flush()
            assert json.loads(proc.stdout.readline())["id"] == 0
            maps = Path(f"/proc/{proc.pid}/maps").read_text(encoding="utf-8")
        finally:
            if proc.stdin is not None:
                proc.stdin.close()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()
        return {Path(line.split()[-1]).name for line in maps.splitlines() if ".so" in line}

    # The runtime answering the bridge runs on this loop: run the bridge on a thread.
    loaded = await asyncio.to_thread(libraries_once_serving)
    assert "libpython3" in " ".join(loaded)  # the reading works
    unwanted = ("libcrypto", "libssl", "libffi", "_ctypes", "libQt6", "libpyside", "libshiboken")
    assert not {name for name in loaded if name.startswith(unwanted)}


@pytest.mark.timeout(120)
def test_frozen_serve_serves_the_bundled_ui(tmp_path, frozen):
    with spawned([str(frozen), "serve", str(tmp_path)], env=packaged_env()) as proc:
        line = LineWatcher(proc.stdout).wait_for(
            lambda line: line.startswith("IdeA UI:"), timeout=60
        )
        url = line.split("IdeA UI:", 1)[1].strip()
        with urllib.request.urlopen(url, timeout=10) as response:
            page = response.read().decode()
        assert "IdeA UI not built" not in page
        assert "<script" in page
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    assert (tmp_path / ".ideai" / "project.json").is_file()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ELF libraries")
def test_trimmed_qt_keeps_every_library_dependency(frozen):
    """build.spec drops unused Qt parts: every bundled library must still find its Qt ones."""
    readelf = shutil.which("readelf")
    if readelf is None:
        pytest.skip("readelf not installed")
    internal = frozen.parent / "_internal"
    present = {path.name for path in internal.rglob("*.so*")}
    missing = set()
    for path in internal.rglob("*.so*"):
        if path.is_symlink() or not path.is_file():
            continue
        dynamic = subprocess.run(
            [readelf, "-d", str(path)], capture_output=True, text=True, check=False
        ).stdout
        for needed in re.findall(r"\[((?:libQt6|libpyside|libshiboken)[^\]]+)\]", dynamic):
            if needed not in present:
                missing.add((path.name, needed))
    assert not missing
