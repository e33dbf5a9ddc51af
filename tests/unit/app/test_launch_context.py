import subprocess
import sys
from pathlib import Path

from idea.app.launch_context import default_project_folder, hide_own_console


def project(folder: Path) -> Path:
    (folder / ".ideai").mkdir(parents=True)
    return folder


def test_a_project_in_the_current_folder_comes_first(tmp_path: Path) -> None:
    cwd = project(tmp_path / "here")
    recent = [str(project(tmp_path / "other"))]
    assert default_project_folder(cwd, recent, tmp_path / "home") == cwd


def test_else_the_newest_recent_project_that_still_exists(tmp_path: Path) -> None:
    newer = tmp_path / "deleted"
    older = project(tmp_path / "older")
    got = default_project_folder(tmp_path / "install-dir", [str(newer), str(older)], tmp_path)
    assert got == older


def test_else_a_scratch_project_never_the_home_folder(tmp_path: Path) -> None:
    scratch = tmp_path / "config" / "scratch"
    assert default_project_folder(tmp_path, [], scratch) == scratch
    assert scratch.is_dir()


def test_no_terminal_is_seen_as_such_and_hiding_the_console_is_a_no_op_off_windows() -> None:
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "from idea.app.launch_context import started_from_terminal as s; print(s())",
        ],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert probe.stdout.strip() == "False"
    if sys.platform != "win32":
        hide_own_console()
