"""The frozen build's window: ``dist/idea/idea open`` on a virtual X display (Xvfb).

The same checks as tests/e2e/test_window.py, but on what build.spec bundled: pywebview's Qt
backend, Qt WebEngine and its helper process, the UI files. The window must report ready, show
a non-blank page and close cleanly on SIGTERM with no process left behind.
Skipped without the build, a failure then under ``IDEA_REQUIRE_PACKAGE=1`` (builds.py).
"""

import shutil
import signal

import psutil
import pytest

from tests.desktop import READY, needs_xvfb, screenshot_colours, window_env, x_titles, xvfb
from tests.packaging.builds import without_source
from tests.processes import LineWatcher, spawned

pytestmark = [pytest.mark.slow, needs_xvfb]


@pytest.mark.timeout(240)
def test_the_frozen_window_shows_the_ui_and_closes_cleanly(frozen, tmp_path):
    project = tmp_path / "demo"
    project.mkdir()
    with xvfb() as display:
        env = without_source(window_env(display))
        with spawned([str(frozen), "open", str(project)], env=env) as proc:
            out = LineWatcher(proc.stdout)
            out.wait_for(lambda line: line.startswith("IdeA UI: http://127.0.0.1:"), timeout=90)
            out.wait_for(lambda line: line.strip() == READY, timeout=120)

            titles = x_titles(display)
            if titles:
                assert '"IdeA — demo"' in titles, titles
            if shutil.which("import") is not None:
                shot = tmp_path / "frozen-window.png"
                assert screenshot_colours(display, shot) > 8, "the frozen window's screenshot is blank"

            tree = psutil.Process(proc.pid).children(recursive=True)
            assert tree, "Qt WebEngine runs helper processes"
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(timeout=30) == 0, proc.stderr.read() if proc.stderr else ""
            _, alive = psutil.wait_procs(tree, timeout=10)
            assert not alive, f"left behind: {alive}"
    assert (project / ".ideai" / "project.json").is_file()
