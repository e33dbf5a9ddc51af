"""CLI discovery on Windows with a real npm layout: a ``.cmd`` shim on PATH is resolved to the
native ``.exe`` of its package (spawned directly, never through ``cmd /c``); a shim with no
``.exe`` behind it is reported, not spawned."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from idea.infrastructure.processes.executables import resolve_executable
from tests.windows_lane import windows_only

pytestmark = windows_only

TRIPLE = "x86_64-pc-windows-msvc"


def npm_prefix(tmp_path: Path, name: str, with_exe: bool) -> tuple[Path, Path]:
    """What ``npm install -g`` leaves: ``<prefix>\\<name>.cmd`` and ``.ps1`` shims, the package
    under ``node_modules`` and, for a native CLI, its ``.exe`` deep inside."""
    prefix = tmp_path / "npm"
    package = prefix / "node_modules" / "@openai" / name
    (package / "bin").mkdir(parents=True)
    (package / "bin" / f"{name}.js").write_text("// launcher\n", encoding="utf-8")
    shim = f'@ECHO off\r\nnode "%~dp0\\node_modules\\@openai\\{name}\\bin\\{name}.js" %*\r\n'
    (prefix / f"{name}.cmd").write_text(shim, encoding="utf-8")
    (prefix / f"{name}.ps1").write_text("# ps1 shim\n", encoding="utf-8")
    exe = package / "vendor" / TRIPLE / name / f"{name}.exe"
    if with_exe:
        exe.parent.mkdir(parents=True)
        shutil.copyfile(sys.executable, exe)  # a real PE executable
    return prefix, exe


def test_a_cmd_shim_resolves_to_the_packages_exe(tmp_path):
    prefix, exe = npm_prefix(tmp_path, "codex", with_exe=True)
    found = resolve_executable("codex", search_path=str(prefix))
    assert found.path is not None, found.reason
    assert Path(found.path).samefile(exe)
    assert found.path.lower().endswith(".exe")


def test_a_shim_without_an_exe_is_reported_not_spawned(tmp_path):
    prefix, _ = npm_prefix(tmp_path, "gemini", with_exe=False)
    found = resolve_executable("gemini", search_path=str(prefix))
    assert found.path is None
    assert "gemini.cmd" in found.reason.lower()
    assert "not a real .exe" in found.reason


def test_a_real_exe_on_path_is_taken_as_is(tmp_path):
    folder = tmp_path / "bin"
    folder.mkdir()
    shutil.copyfile(sys.executable, folder / "claude.exe")
    found = resolve_executable("claude", search_path=str(folder))
    assert found.path is not None
    assert Path(found.path).samefile(folder / "claude.exe")
