"""The AppImage (``make appimage`` -> ``dist/IdeA-x86_64.AppImage``, DESIGN.md §10, §9.5).

Run both ways a user's machine runs it: mounted through FUSE (libfuse2; skipped where there is no
FUSE), and unpacked (``APPIMAGE_EXTRACT_AND_RUN=1``). Either way its runtime execs ``AppRun``, a
symlink to the frozen executable. Checked: the image's layout; its bridge answers the official
SDK client against a headless project runtime; an agent started by the AppImage's ``idea serve``
is handed a declaration that works and names what outlives the agent: the AppImage itself when
mounted (the mount goes away with the process), the unpacked executable when unpacked (starting
the image again would unpack 0.5 GB per bridge and delete the shared folder on exit).
Skipped without the build, a failure then under ``IDEA_REQUIRE_PACKAGE=1`` (builds.py).
"""

import contextlib
import ctypes.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

import idea
from tests.packaging.builds import ask_through_the_sdk, bridge_argv, packaged_env
from tests.processes import LineWatcher, spawned
from tests.ui_client import UiClient

PROBE = Path(__file__).with_name("probe_agent.py")
# Unpacking ~0.5 GB on a start takes seconds here; more on a loaded machine.
START_TIMEOUT_S = 120
FUSE = "fuse"
UNPACKED = "unpacked"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="AppImage is Linux-only"),
]


def fuse_missing() -> str | None:
    if not os.path.exists("/dev/fuse"):
        return "no /dev/fuse on this machine"
    if ctypes.util.find_library("fuse") is None:
        return "libfuse2 is not installed (apt-get install libfuse2)"
    if os.geteuid() != 0 and shutil.which("fusermount") is None:
        return "fusermount is not installed (apt-get install fuse)"
    return None


@pytest.fixture(params=[FUSE, UNPACKED])
def mode(request) -> str:
    if request.param == FUSE and (why := fuse_missing()):
        pytest.skip(f"AppImage through FUSE: {why}")
    return request.param


def kill_everything_from(folder: Path) -> None:
    """Kill every process running from ``folder`` (an AppImage's mount point or unpacked folder),
    then wait for the rest started with ``TMPDIR=folder`` (the runtime, its FUSE daemon) to end,
    which they do once the app is gone, unmounting on the way. An unpacked image's runtime forks
    the app: killed alone, it would leave the app behind, holding the pipes a test reads."""
    inside = str(folder) + os.sep
    apps, helpers = [], []
    for proc in psutil.process_iter(["exe"]):
        with contextlib.suppress(psutil.Error):
            if (proc.info["exe"] or "").startswith(inside):
                proc.kill()
                apps.append(proc)
            elif proc.environ().get("TMPDIR") == str(folder):
                helpers.append(proc)
    psutil.wait_procs(apps, timeout=10)
    _, alive = psutil.wait_procs(helpers, timeout=10)
    for proc in alive:
        with contextlib.suppress(psutil.Error):
            proc.kill()
    psutil.wait_procs(alive, timeout=10)


@pytest.fixture
def scratch() -> Iterator[Path]:
    """A short ``$TMPDIR`` for the AppImage runtime (its mount point or unpacked folder, and the
    project's socket), emptied of processes and files at the end."""
    folder = Path(tempfile.mkdtemp(prefix="idea-ai-"))
    try:
        yield folder
    finally:
        kill_everything_from(folder)
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def image_started(argv: list[str], env: dict[str, str], scratch: Path):
    """``spawned`` for an AppImage: whatever it started is killed before its pipes are closed."""
    with spawned(argv, env=env, cwd=scratch) as proc:
        try:
            yield proc
        finally:
            kill_everything_from(scratch)


def image_env(mode: str, scratch: Path) -> dict[str, str]:
    extra = {"TMPDIR": str(scratch)}
    if mode == UNPACKED:
        extra["APPIMAGE_EXTRACT_AND_RUN"] = "1"
    return packaged_env(**extra)


def app_of(proc: subprocess.Popen[str], appimage: Path) -> psutil.Process:
    """The IdeA process behind an AppImage start: the process itself once the runtime has
    exec'd AppRun (FUSE), its one child when the runtime forked it (unpacked)."""
    started = psutil.Process(proc.pid)
    if started.exe() != str(appimage):
        return started
    children = started.children()
    assert len(children) == 1, children
    return children[0]


@pytest.mark.timeout(300)
def test_the_image_holds_the_one_folder_build_behind_an_apprun_symlink(appimage, scratch):
    subprocess.run(
        [str(appimage), "--appimage-extract"],
        cwd=scratch,
        capture_output=True,
        timeout=START_TIMEOUT_S,
        check=True,
    )
    appdir = scratch / "squashfs-root"
    apprun = appdir / "AppRun"
    assert apprun.is_symlink()
    assert os.readlink(apprun) == "usr/lib/idea/idea"
    assert (appdir / "usr" / "lib" / "idea" / "_internal").is_dir()
    desktop = (appdir / "idea.desktop").read_text(encoding="utf-8")
    assert "Name=IdeA" in desktop
    assert "Icon=idea" in desktop
    assert (appdir / "idea.png").is_file()
    assert (appdir / ".DirIcon").resolve() == (appdir / "idea.png").resolve()


@pytest.mark.timeout(300)
def test_the_appimage_answers(appimage, mode, scratch):
    out = subprocess.run(
        [str(appimage), "--version"],
        env=image_env(mode, scratch),
        capture_output=True,
        text=True,
        timeout=START_TIMEOUT_S,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    # The unpacking runtime prints a line per file it already has; the app's line comes last.
    assert out.stdout.strip().splitlines()[-1] == f"idea {idea.__version__}"


@pytest.mark.timeout(300)
async def test_sdk_client_against_the_appimage_bridge(runtime, appimage, mode, scratch):
    await ask_through_the_sdk(bridge_argv(runtime, appimage, "id-caller"), image_env(mode, scratch))


def _probe_project(root: Path, report_socket: Path) -> Path:
    """A project with one agent, ``probe``, whose CLI is probe_agent.py; its profile takes the
    MCP declaration's path in ``$PROBE_MCP``."""
    project = root / "project"
    ideai = project / ".ideai"
    (ideai / "agents").mkdir(parents=True)
    # Through a script: IdeA resolves a CLI's real path, which for a virtualenv's python is the
    # base interpreter, without the virtualenv's packages (the SDK).
    cli = root / "probe-cli"
    cli.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{PROBE}" "$@"\n', encoding="utf-8")
    cli.chmod(0o755)
    profiles = {
        "version": 1,
        "profiles": {
            "probe": {
                "command": [str(cli), str(report_socket)],
                "mcp": {"kind": "env", "var": "PROBE_MCP"},
                "description": "Uses IdeA's MCP declaration like an agent's CLI",
            }
        },
    }
    (ideai / "profiles.json").write_text(json.dumps(profiles), encoding="utf-8")
    (ideai / "agents" / "probe.md").write_text(
        "---\nname: probe\nprofile: probe\n---\nProbe.\n", encoding="utf-8"
    )
    return project


def _receive_report(listener: socket.socket) -> dict:
    conn, _ = listener.accept()  # bounded by the listener's timeout
    with conn, conn.makefile("rb") as stream:
        return json.loads(stream.readline())


@pytest.mark.timeout(600)
async def test_an_agent_launched_from_the_appimage_gets_a_working_declaration(
    appimage, mode, scratch
):
    with socket.socket(socket.AF_UNIX) as listener:
        report_socket = scratch / "report.sock"
        listener.bind(str(report_socket))
        listener.listen(1)
        listener.settimeout(START_TIMEOUT_S)
        project = _probe_project(scratch, report_socket)
        argv = [str(appimage), "serve", str(project), "--port", "0", "--trust"]
        with image_started(argv, image_env(mode, scratch), scratch) as serve:
            line = LineWatcher(serve.stdout).wait_for(
                lambda s: s.startswith("IdeA UI: "), timeout=START_TIMEOUT_S
            )
            app = app_of(serve, appimage)
            async with UiClient.connect(line.removeprefix("IdeA UI: ").strip()) as ui:
                await ui.call("session.launch", name="probe", mode="terminal")
                report = _receive_report(listener)
                # IdeA is unharmed by the agent's bridge (an unpacked image keeps its files).
                agents = await ui.call("agents.list")
                assert [row["name"] for row in agents] == ["probe"]
            app.send_signal(signal.SIGTERM)
            assert serve.wait(timeout=60) == 0

    assert "error" not in report, report["error"]
    env = report["env"]
    server = report["server"]
    if mode == FUSE:
        assert server["command"] == str(appimage)
    else:
        assert server["command"] == str(Path(env["APPDIR"]) / "usr" / "lib" / "idea" / "idea")
    assert server["args"][0] == "mcp-server"
    assert "PYTHONPATH" not in server.get("env", {})
    call = report["call"]
    assert call["server_name"] == "idea"
    assert {"idea_list_agents", "idea_ask_agent"} <= set(call["tools"])
    assert not call["is_error"]
    assert "probe" in call["text"]
    # What the agent inherits: $APPIMAGE, but no library path into the bundle.
    assert env["APPIMAGE"] == str(appimage)
    assert env["IDEA_AGENT"] == "probe"
    assert env["APPDIR"] not in (env["LD_LIBRARY_PATH"] or "")
