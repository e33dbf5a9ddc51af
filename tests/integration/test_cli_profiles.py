"""`idea profiles`: which CLIs are installed, by absolute path of the real executable."""

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX executables")


def test_profiles_report_the_real_executable_or_why_not(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    package = tmp_path / "lib" / "node_modules" / "@anthropic-ai" / "claude-code"
    (package / "bin").mkdir(parents=True)
    (package / "package.json").write_text('{"name": "@anthropic-ai/claude-code"}', "utf-8")
    real = package / "bin" / "claude.exe"  # the native binary, once the postinstall ran
    real.write_bytes(b"\x7fELF" + b"\x00" * 60)
    real.chmod(0o755)
    (bin_dir / "claude").symlink_to(real)  # what an npm bin link looks like
    project = tmp_path / "project"
    project.mkdir()
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin"}
    run = lambda *args: subprocess.run(  # noqa: E731
        [sys.executable, "-m", "idea", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert run("init").returncode == 0
    out = run("profiles", "--json")
    assert out.returncode == 0, out.stderr
    rows = {row["name"]: row for row in json.loads(out.stdout)}
    assert rows["claude"]["executable"] == str(real)
    assert rows["claude"]["runs"] == [str(real)]
    assert "npm package @anthropic-ai/claude-code" in rows["claude"]["found"]
    assert rows["claude"]["structured"] == "claude"
    assert rows["codex"]["executable"] is None
    assert "not on PATH" in rows["codex"]["problem"]
