"""``idea serve`` under a flood of request files, as a user drops them (DESIGN.md §18): every one
is answered, the UI answers HTTP meanwhile, and SIGTERM ends the process, whatever the state."""

from __future__ import annotations

import json
import os
import signal
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.processes import LineWatcher, spawned
from tests.waiting import until_blocking
from tests.worlds import trust_project

IDEA = [sys.executable, "-m", "idea"]
COUNT = 2000
BODY = json.dumps({"action": "workstate.get"})

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def project_with_staged_requests(tmp_path: Path) -> tuple[Path, Path, list[Path]]:
    """A trusted project and ``COUNT`` requests written beside its door, ready to be renamed
    in at once (the same file system)."""
    root = tmp_path / "project"
    root.mkdir()
    trust_project(root)
    folder = root / ".ideai" / "orchestrator"
    folder.mkdir(exist_ok=True)
    staging = root / ".ideai" / "staging"
    staging.mkdir()
    staged = []
    for i in range(COUNT):
        path = staging / f"n{i:05d}.request.json"
        path.write_text(BODY, encoding="utf-8")
        staged.append(path)
    return root, folder, staged


def start(serve) -> str:
    """The UI's URL, once ``idea serve`` runs with its file door open."""
    out = LineWatcher(serve.stdout)
    url = out.wait_for(lambda line: line.startswith("IdeA UI: "), timeout=60)
    out.wait_for(lambda line: line.startswith("headless core running"), timeout=60)
    return url.removeprefix("IdeA UI: ").strip()


def drop(staged: list[Path], folder: Path) -> None:
    for path in staged:
        os.replace(path, folder / path.name)


def responses(folder: Path) -> list[Path]:
    return sorted(folder.glob("n*.response.json"))


@pytest.mark.timeout(240)
def test_2000_request_files_are_all_answered_while_the_ui_serves(tmp_path):
    root, folder, staged = project_with_staged_requests(tmp_path)
    with spawned([*IDEA, "serve", str(root)]) as serve:
        url = start(serve)
        drop(staged, folder)
        # While the door answers the flood, the UI's page still comes back: not only once the
        # flood is over (most requests are still waiting when it does).
        with urllib.request.urlopen(url, timeout=60) as page:
            assert page.status == 200
            assert b"<title>IdeA</title>" in page.read()
        assert len(responses(folder)) < COUNT // 2, "the UI answered only after the flood"
        until_blocking(lambda: len(responses(folder)) == COUNT, 180, "every request answered")
        serve.send_signal(signal.SIGTERM)
        assert serve.wait(timeout=20) == 0
    answers = [json.loads(path.read_text(encoding="utf-8")) for path in responses(folder)]
    assert all(answer["ok"] for answer in answers)
    assert sorted(answer["id"] for answer in answers) == [f"n{i:05d}" for i in range(COUNT)]
    assert len(list((folder / "done").glob("n*.request.json"))) == COUNT
    assert not list(folder.glob("n*.request.json"))


@pytest.mark.timeout(120)
def test_sigterm_as_a_flood_lands_ends_idea_serve_and_leaves_the_rest_for_next_time(tmp_path):
    root, folder, staged = project_with_staged_requests(tmp_path)
    with spawned([*IDEA, "serve", str(root)]) as serve:
        start(serve)
        drop(staged, folder)  # and at once, while the watcher reports thousands of files:
        serve.send_signal(signal.SIGTERM)
        assert serve.wait(timeout=20) == 0
    # IdeA stopped in the middle: it did not answer the whole flood first; each request is
    # answered and archived, or still waiting in the door for next time.
    assert list(folder.glob("n*.request.json")), "SIGTERM waited for the whole flood"
    for i in range(COUNT):
        request_id = f"n{i:05d}"
        answered = (folder / f"{request_id}.response.json").exists()
        archived = (folder / "done" / f"{request_id}.request.json").exists()
        waiting = (folder / f"{request_id}.request.json").exists()
        assert (answered, archived, waiting) in ((True, True, False), (False, False, True))
