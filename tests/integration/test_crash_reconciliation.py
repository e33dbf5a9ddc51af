"""Open after a crash: a real `idea serve` is killed with SIGKILL while an agent runs, the files
are left as a crash leaves them, and the next open repairs everything before resuming."""

import json
import os
import signal
import sys

import psutil
import pytest

from idea.app.bootstrap import open_project
from idea.application.reconcile_at_open import reconcile_layouts
from idea.domain.agent import Agent
from idea.domain.layout import Layouts
from idea.infrastructure.processes.run_dir import read_pid_records
from idea.infrastructure.stores.layouts import JsonLayoutStore
from idea.infrastructure.stores.paths import ProjectPaths
from tests.fakes.ports.clock import FakeClock, SequentialIds
from tests.fakes.ports.session_starter import FakeSessionStarter
from tests.paths import FAKE_CLIS
from tests.processes import LineWatcher, spawned
from tests.waiting import until
from tests.worlds import trust_project

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and shells")


def crashed_layout() -> Layouts:
    return (
        Layouts.empty("t1", "l1")
        .split("l1", "row", "l2", "s1")
        .bind("l1", "id-sleeper", "terminal")
        .bind("l2", "id-sleeper", "terminal")
        .set_running("l1", True)
        .set_running("l2", True)
    )


def write_crash_state(paths: ProjectPaths) -> None:
    paths.layouts.write_text(json.dumps(crashed_layout().to_json()), encoding="utf-8")
    row = {
        "agent_id": "id-sleeper",
        "status": "working",
        "ticket": "T-1",
        "intent": "sleep",
        "last_delegation": {"target": "x"},
        "updated_at_ms": 10**13,
    }
    paths.work_state.write_text(
        json.dumps({"version": 1, "agents": {"id-sleeper": row}}), encoding="utf-8"
    )


@pytest.mark.timeout(90)
async def test_open_after_sigkill_repairs_then_resumes_once(tmp_path):
    paths = ProjectPaths(tmp_path)
    paths.ideai.mkdir()
    # A terminal agent whose process survives its terminal going away (ignores SIGHUP).
    paths.profiles.write_text(
        json.dumps(
            {"profiles": {"sleeper": {"command": ["sh", "-c", "trap '' HUP; exec sleep 600"]}}}
        ),
        encoding="utf-8",
    )
    paths.agents.mkdir()
    paths.agent_file("sleeper").write_text(
        Agent(id="id-sleeper", name="sleeper", profile="sleeper").to_markdown(), encoding="utf-8"
    )
    write_crash_state(paths)
    trust_project(tmp_path)

    leftover = None
    try:
        with spawned([sys.executable, "-m", "idea", "serve", str(tmp_path)]) as serve:
            out = LineWatcher(serve.stdout)
            out.wait_for(lambda line: line.startswith("resumed:"), timeout=30)
            assert "sleeper" in out.text()
            (record,) = read_pid_records(paths.run_dir("sleeper"))
            leftover = psutil.Process(record.pid)
            serve.send_signal(signal.SIGKILL)
            serve.wait(timeout=10)
        assert leftover.is_running() and leftover.status() != psutil.STATUS_ZOMBIE
        write_crash_state(paths)  # the crash left the duplicate flags and the busy row

        starter = FakeSessionStarter()
        runtime = await open_project(tmp_path, starter=starter, file_door=False)
        try:
            report = runtime.report
            assert report.duplicate_cells_cleared == 1
            # Repaired on disk, not only in memory: one cell keeps the flags.
            on_disk = Layouts.from_json(json.loads(paths.layouts.read_text(encoding="utf-8")))
            assert [(leaf.id, leaf.agent_was_running) for leaf in on_disk.leaves()] == [
                ("l1", True),
                ("l2", False),
            ]
            assert on_disk == runtime.layouts()
            saved_row = json.loads(paths.work_state.read_text(encoding="utf-8"))["agents"]
            assert saved_row["id-sleeper"]["status"] == "idle"
            assert report.orphan_rows_set_idle == ["id-sleeper"]
            assert [r.pid for r in report.leftover_processes_killed] == [record.pid]
            assert not leftover.is_running() or leftover.status() == psutil.STATUS_ZOMBIE
            row = runtime.services.work_state.load().rows["id-sleeper"]
            assert (row.status.value, row.ticket, row.last_delegation, row.intent) == (
                "idle",
                None,
                None,
                "sleep",
            )
            assert starter.starts == [("sleeper", "terminal", None)]
            assert runtime.sessions.host_node("id-sleeper") == "l1"
        finally:
            await runtime.close()
    finally:
        if leftover is not None and leftover.is_running():
            os.kill(leftover.pid, signal.SIGKILL)


def test_reconciling_twice_leaves_the_files_bytes_as_the_first_time_wrote_them(tmp_path):
    """R0c: idempotent on disk. The first pass writes the repair; the second writes nothing."""
    paths = ProjectPaths(tmp_path)
    paths.ideai.mkdir()
    write_crash_state(paths)
    store = JsonLayoutStore(paths, FakeClock(), SequentialIds())
    first = reconcile_layouts(store)
    assert len(first.cleared) == 1
    repaired = paths.layouts.read_bytes()
    assert Layouts.from_json(json.loads(repaired)) == first.layouts
    stat = paths.layouts.stat()
    second = reconcile_layouts(store)
    assert second.cleared == ()
    assert paths.layouts.read_bytes() == repaired
    assert (paths.layouts.stat().st_ino, paths.layouts.stat().st_mtime_ns) == (
        stat.st_ino,
        stat.st_mtime_ns,
    )


@pytest.mark.timeout(90)
async def test_an_ask_in_flight_when_the_app_is_killed_is_logged_lost_and_answered_again(
    tmp_path,
):
    """DESIGN.md §15: the in-flight journal outlives a SIGKILL; at open the ask is logged LOST
    (and listed), and the file door answers its request file again."""
    paths = ProjectPaths(tmp_path)
    paths.ideai.mkdir()
    wrapper = tmp_path / "fake-claude"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE_CLIS / "claude.py"}" "$@"\n')
    wrapper.chmod(0o755)
    profiles = {"fake": {"command": [str(wrapper)], "structured": "claude"}}
    paths.profiles.write_text(json.dumps({"profiles": profiles}), encoding="utf-8")
    paths.agents.mkdir()
    paths.agent_file("slow").write_text(
        Agent(id="id-slow", name="slow", profile="fake").to_markdown(), encoding="utf-8"
    )
    trust_project(tmp_path)
    request = {"action": "agent.message", "targetAgent": "slow", "task": "SLOW work"}
    with spawned([sys.executable, "-m", "idea", "serve", str(tmp_path)]) as serve:
        LineWatcher(serve.stdout).wait_for(lambda line: line.startswith("file door:"), timeout=30)
        paths.orchestrator.mkdir(exist_ok=True)
        (paths.orchestrator / ".r.tmp").write_text(json.dumps(request), encoding="utf-8")
        os.replace(paths.orchestrator / ".r.tmp", paths.orchestrator / "r.request.json")
        await until(lambda: b'"event":"start"' in _read(paths.asks_journal), timeout=30)
        serve.send_signal(signal.SIGKILL)
        serve.wait(timeout=10)

    runtime = await open_project(tmp_path, starter=FakeSessionStarter())
    try:
        [lost] = runtime.report.lost_asks
        assert (lost["code"], lost["target"], lost["source"], lost["depth"]) == (
            "LOST",
            "slow",
            "file",
            1,
        )
        rows = [json.loads(line) for line in paths.delegations_log.read_text().splitlines()]
        assert next(r["code"] for r in rows if r["action"] == "agent.message") == "LOST"
        answer = paths.orchestrator / "r.response.json"
        await until(answer.exists, timeout=15)  # the file door answers it again
        assert json.loads(answer.read_text())["reply"] == "echo: SLOW work"
    finally:
        await runtime.close()
    # Reconciled once: a second open finds nothing lost.
    again = await open_project(tmp_path, starter=FakeSessionStarter(), file_door=False)
    try:
        assert again.report.lost_asks == []
    finally:
        await again.close()


def _read(path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return b""
