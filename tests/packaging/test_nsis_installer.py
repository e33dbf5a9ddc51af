"""The Windows installer (packaging/windows/idea.nsi, DESIGN.md §10), built and run on Linux.

Debian's ``makensis`` compiles the script against the real frozen Windows build
(``dist/windows/idea``: PyInstaller on ``build.spec`` under wine, ``make windows-build``), with a
file of a non-ASCII name added to its ``_internal/``; Debian's 64-bit ``wine`` runs the installer
and the uninstaller silently in a throwaway prefix. Checked: the files land in the user's programs
folder, the installed ``idea.exe --version`` answers and its MCP bridge starts (and, with no app
serving the project, says so on one stderr line and exits 1), the start-menu shortcut points at
``idea.exe``, the uninstall key carries the package version, an upgrade replaces the bundled
runtime, and the uninstaller (run as the key's QuietUninstallString says) leaves no file,
shortcut or key behind. The bridge's full round trip on the same build is the Windows lane's
(tests/packaging/test_frozen_windows.py).

Skipped when ``makensis`` or ``wine`` is missing, unless ``IDEA_REQUIRE_NSIS=1`` (CI sets it),
which turns the skip into a failure; the build's absence likewise with ``IDEA_REQUIRE_PACKAGE=1``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PureWindowsPath

import pytest

import idea
from tests.packaging.builds import require_build

ROOT = Path(__file__).resolve().parents[2]
WINDOWS_BUILD = ROOT / "dist" / "windows" / "idea"
SCRIPT = ROOT / "packaging" / "windows" / "idea.nsi"
TOOLS = ("makensis", "wine", "wineboot", "wineserver")
UNINSTALL_KEY = r"Software\Microsoft\Windows\CurrentVersion\Uninstall\IdeA"
BOOT_TIMEOUT_S = 180  # a fresh prefix takes ~7 s here; the first boot of a cold machine more
RUN_TIMEOUT_S = 120
# A section line of a wine registry file: [Software\\Microsoft\\...] 1732900000
REG_SECTION = re.compile(r"\[(.*)\](?: \d+)?")
# One value line of a wine registry file: "name"="string" or "name"=dword:0000002a.
REG_VALUE = re.compile(r'"((?:[^"\\]|\\.)*)"=(?:"((?:[^"\\]|\\.)*)"|dword:([0-9a-f]{8}))')

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(BOOT_TIMEOUT_S + 4 * RUN_TIMEOUT_S),  # each step is bounded on its own
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="runs the installer in wine"),
]


def _require_tools() -> dict[str, str]:
    found = {tool: shutil.which(tool) for tool in TOOLS}
    missing = [tool for tool, path in found.items() if path is None]
    if missing:
        reason = (
            f"{', '.join(missing)} not installed (Debian packages nsis, wine, wine64; "
            "IDEA_REQUIRE_NSIS=1 makes this a failure)"
        )
        if os.environ.get("IDEA_REQUIRE_NSIS") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    return {tool: path for tool, path in found.items() if path is not None}


@pytest.fixture
def tools() -> dict[str, str]:
    return _require_tools()


def frozen_build(folder: Path, *extra: str) -> Path:
    """A copy of the frozen Windows build, a non-ASCII name and ``extra`` files added."""
    require_build(WINDOWS_BUILD / "idea.exe", "windows-build")
    dist = folder / "idea"
    shutil.copytree(WINDOWS_BUILD, dist)
    (dist / "_internal" / "données").mkdir()
    (dist / "_internal" / "données" / "thé.txt").write_text("placeholder", encoding="utf-8")
    for name in extra:
        (dist / "_internal" / name).write_text("placeholder", encoding="utf-8")
    return dist


def placeholder_build(folder: Path, *extra: str) -> Path:
    """A stand-in for ``dist/idea`` where no build is installed: the layout PyInstaller makes."""
    dist = folder / "idea"
    (dist / "_internal" / "données").mkdir(parents=True)
    (dist / "idea.exe").write_bytes(b"MZ placeholder for the frozen idea.exe")
    (dist / "_internal" / "base_library.zip").write_bytes(b"placeholder")
    (dist / "_internal" / "données" / "thé.txt").write_text("placeholder", encoding="utf-8")
    for name in extra:
        (dist / "_internal" / name).write_text("placeholder", encoding="utf-8")
    return dist


def makensis(tools: dict[str, str], *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [tools["makensis"], *options, str(SCRIPT)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=RUN_TIMEOUT_S,
        check=False,
    )


def compile_installer(tools: dict[str, str], dist: Path, version: str, out: Path) -> Path:
    # -WX: a warning is a failure, so the script stays clean.
    result = makensis(
        tools, "-V2", "-WX", f"-DVERSION={version}", f"-DDIST={dist}", f"-DOUTFILE={out}"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert out.is_file()
    return out


@dataclass
class Wine:
    tools: dict[str, str]
    prefix: Path
    env: dict[str, str]

    def output(self, program: str, *args: str) -> subprocess.CompletedProcess[str]:
        """A Windows console program's exit code and output (through pipes: a Windows python
        cannot start with its stdout on a regular file)."""
        return subprocess.run(
            [self.tools["wine"], program, *args],
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            env=self.env,
            timeout=RUN_TIMEOUT_S,
            check=False,
        )

    def run(self, program: str, *args: str) -> None:
        """Run a Windows program and wait until every process it started has exited.

        An NSIS uninstaller copies itself to %TEMP% and re-executes from there, so the program's
        own exit says nothing; ``wineserver -w`` returns once the prefix has no process left and
        the server has saved the registry to ``user.reg``.
        """
        result = subprocess.run(
            [self.tools["wine"], program, *args],
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            env=self.env,
            timeout=RUN_TIMEOUT_S,
            check=False,
        )
        assert result.returncode == 0, f"{program} {args}: {result.returncode} {result.stderr}"
        self.settle()

    def settle(self) -> None:
        subprocess.run(
            [self.tools["wineserver"], "-w"], env=self.env, timeout=RUN_TIMEOUT_S, check=True
        )

    def kill(self) -> None:
        subprocess.run(
            [self.tools["wineserver"], "-k"],
            env=self.env,
            capture_output=True,
            timeout=RUN_TIMEOUT_S,
            check=False,
        )

    @property
    def user_dir(self) -> Path:
        users = [p for p in (self.prefix / "drive_c" / "users").iterdir() if p.name != "Public"]
        assert len(users) == 1, users
        return users[0]

    def unix_path(self, windows_path: str) -> Path:
        path = PureWindowsPath(windows_path)
        assert path.drive.upper() == "C:", windows_path
        return self.prefix.joinpath("drive_c", *path.parts[1:])

    def uninstall_key(self) -> dict[str, str | int] | None:
        return registry_key(self.prefix / "user.reg", UNINSTALL_KEY)


@pytest.fixture
def wine(tools, tmp_path) -> Iterator[Wine]:
    home = tmp_path / "home"  # wine links the prefix's user folders to $HOME's: keep it private
    home.mkdir()
    prefix = tmp_path / "prefix"
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LC_ALL": "C.UTF-8",
        "WINEPREFIX": str(prefix),
        "WINEARCH": "win64",
        "WINEDEBUG": "-all",
        # No Mono or Gecko install prompt, and no .desktop files for the shortcuts.
        "WINEDLLOVERRIDES": "mscoree,mshtml=;winemenubuilder.exe=d",
    }  # no DISPLAY: everything runs silent
    box = Wine(tools, prefix, env)
    try:
        subprocess.run(
            [tools["wineboot"], "--init"],
            env=env,
            capture_output=True,
            timeout=BOOT_TIMEOUT_S,
            check=True,
        )
        box.settle()
        yield box
    finally:
        box.kill()


def registry_key(reg_file: Path, key: str) -> dict[str, str | int] | None:
    """The values of ``key`` in a wine registry file (``REGEDIT4``-like text), or None."""
    values: dict[str, str | int] | None = None
    for line in reg_file.read_text(encoding="utf-8", errors="replace").splitlines():
        section = REG_SECTION.fullmatch(line)
        if section:
            if values is not None:
                break
            if _unescape(section.group(1)).lower() == key.lower():  # keys ignore case
                values = {}
            continue
        if values is None:
            continue
        match = REG_VALUE.fullmatch(line)
        if match:
            name, text, dword = match.groups()
            values[_unescape(name)] = int(dword, 16) if dword else _unescape(text)
    return values


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def files_under(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


def start_menu(wine: Wine) -> Path:
    return wine.user_dir / "AppData/Roaming/Microsoft/Windows/Start Menu/Programs"


def test_silent_install_then_silent_uninstall(wine, tmp_path):
    version = idea.__version__
    dist = frozen_build(tmp_path / "dist")
    setup = compile_installer(wine.tools, dist, version, tmp_path / f"IdeA-{version}-setup.exe")

    wine.run(str(setup), "/S")

    install_dir = wine.user_dir / "AppData" / "Local" / "Programs" / "IdeA"
    assert (install_dir / "idea.exe").read_bytes() == (dist / "idea.exe").read_bytes()
    assert (install_dir / "_internal" / "données" / "thé.txt").is_file()
    assert files_under(install_dir) == files_under(dist) | {"uninstall.exe"}

    installed = str(install_dir / "idea.exe")
    answer = wine.output(installed, "--version")
    assert answer.returncode == 0, answer.stderr
    assert answer.stdout.strip() == f"idea {version}"
    key = tmp_path / "agent.key"
    key.write_bytes(bytes(range(32)))
    endpoint = r"\\.\pipe\idea-0123456789abcdef"
    bridge = wine.output(
        installed, "mcp-server", "--endpoint", endpoint, "--project", "p", "--requester", "a",
        "--key-file", "Z:" + str(key).replace("/", "\\"),
    )  # fmt: skip
    assert bridge.returncode == 1, bridge.stderr
    assert bridge.stdout == ""  # nothing but JSON-RPC ever reaches stdout
    assert f"no IdeA endpoint at {endpoint}" in bridge.stderr, bridge.stderr
    wine.settle()

    shortcut = start_menu(wine) / "IdeA.lnk"
    target = r"C:\users" + "\\" + wine.user_dir.name + r"\AppData\Local\Programs\IdeA\idea.exe"
    assert target.encode("utf-16-le") in shortcut.read_bytes()

    key = wine.uninstall_key()
    assert key is not None, "no uninstall key"
    assert key["DisplayName"] == "IdeA"
    assert key["DisplayVersion"] == version
    assert key["Publisher"] == "IdeA"
    assert wine.unix_path(str(key["InstallLocation"])) == install_dir
    assert key["DisplayIcon"] == target + ",0"
    assert key["UninstallString"] == f'"{key["InstallLocation"]}\\uninstall.exe"'
    assert key["QuietUninstallString"] == f"{key['UninstallString']} /S"
    assert key["NoModify"] == 1
    assert key["NoRepair"] == 1
    assert isinstance(key["EstimatedSize"], int) and key["EstimatedSize"] > 0

    # What "Apps" runs for a silent removal.
    quiet = re.fullmatch(r'"([^"]+)" (/S)', str(key["QuietUninstallString"]))
    assert quiet is not None
    wine.run(quiet.group(1), quiet.group(2))

    assert not install_dir.exists()
    assert not shortcut.exists()
    assert wine.uninstall_key() is None


def test_upgrade_replaces_the_runtime_and_the_version(wine, tmp_path):
    old = frozen_build(tmp_path / "old", "only_in_the_old_version.txt")
    new = frozen_build(tmp_path / "new")
    old_setup = compile_installer(wine.tools, old, "0.0.1", tmp_path / "IdeA-0.0.1-setup.exe")
    wine.run(str(old_setup), "/S")
    install_dir = wine.user_dir / "AppData" / "Local" / "Programs" / "IdeA"
    assert (install_dir / "_internal" / "only_in_the_old_version.txt").is_file()

    setup = compile_installer(wine.tools, new, idea.__version__, tmp_path / "IdeA-new-setup.exe")
    wine.run(str(setup), "/S")

    assert not (install_dir / "_internal" / "only_in_the_old_version.txt").exists()
    assert (install_dir / "_internal" / "données" / "thé.txt").is_file()
    key = wine.uninstall_key()
    assert key is not None
    assert key["DisplayVersion"] == idea.__version__
    assert [p.name for p in start_menu(wine).glob("IdeA*")] == ["IdeA.lnk"]


def test_the_script_refuses_to_compile_without_a_version_or_a_build(tools, tmp_path):
    dist = placeholder_build(tmp_path / "dist")
    out = tmp_path / "IdeA-setup.exe"
    no_version = makensis(tools, f"-DDIST={dist}", f"-DOUTFILE={out}")
    assert no_version.returncode != 0
    assert "VERSION is not defined" in no_version.stdout + no_version.stderr

    no_build = makensis(
        tools, "-DVERSION=0.1.0", f"-DDIST={tmp_path / 'missing'}", f"-DOUTFILE={out}"
    )
    assert no_build.returncode != 0
    assert "idea.exe is missing" in no_build.stdout + no_build.stderr
    assert not out.exists()
