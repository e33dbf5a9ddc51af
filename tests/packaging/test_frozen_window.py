"""The frozen build's window: ``dist/idea/idea open`` on a virtual X display (Xvfb).

The same checks as tests/e2e/test_window.py, but on what build.spec bundled: pywebview's Qt
backend, Qt WebEngine and its helper process, the UI files. The window must report ready, show
a non-blank page and close cleanly on SIGTERM with no process left behind.
Skipped without the build, a failure then under ``IDEA_REQUIRE_PACKAGE=1`` (builds.py).
"""

import pytest

from tests.desktop import check_window_opens_and_closes, needs_xvfb, window_env, xvfb
from tests.packaging.builds import without_source

pytestmark = [pytest.mark.slow, needs_xvfb]


@pytest.mark.timeout(240)
def test_the_frozen_window_shows_the_ui_and_closes_cleanly(frozen, tmp_path):
    project = tmp_path / "demo"
    project.mkdir()
    with xvfb() as display:
        env = without_source(window_env(display))
        shot = tmp_path / "frozen-window.png"
        check_window_opens_and_closes(
            [str(frozen), "open", str(project)], env, display, "IdeA — demo", shot
        )
    assert (project / ".ideai" / "project.json").is_file()
