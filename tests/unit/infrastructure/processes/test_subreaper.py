"""The subreaper reaps the zombies of adopted orphans, never a child someone waits for.

Run in a child interpreter: making pytest itself a subreaper would adopt every test's orphans."""

import json
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="PR_SET_CHILD_SUBREAPER is Linux's"
)

SCRIPT = textwrap.dedent(
    """
    import json, os, subprocess
    import psutil
    from idea.infrastructure.processes import subreaper as s
    from tests.waiting import until_blocking

    def zombie(pid):
        is_zombie = lambda: psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
        until_blocking(is_zombie, 10, f"{pid} a zombie", poll_s=0.01)

    assert s.become_subreaper() and s.is_subreaper()
    # An orphan: its shell exits at once, the sleep is adopted by this process.
    sh = subprocess.Popen(["sh", "-c", "sleep 0.2 & echo $!"], stdout=subprocess.PIPE,
                          start_new_session=True, text=True)
    orphan = int(sh.stdout.readline())
    sh.wait()
    assert psutil.Process(orphan).ppid() == os.getpid()
    # A child a launcher waits for, in a session of its own, and one in this session.
    waited = subprocess.Popen(["true"], start_new_session=True)
    s.register_waited(waited.pid)
    own = subprocess.Popen(["true"])
    for pid in (orphan, waited.pid, own.pid):
        zombie(pid)
    young = s.reap_orphans()  # too young: may be a launcher's child not registered yet
    reaped = s.reap_orphans(now=float("inf"))
    print(json.dumps({"young": young, "reaped": reaped, "orphan": orphan,
                      "waited": waited.wait(), "own": own.wait()}))
    """
)


@pytest.mark.timeout(30)
def test_only_adopted_orphans_are_reaped():
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=20, check=False
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["young"] == []
    assert result["reaped"] == [result["orphan"]]
    # Their owners still get their exit statuses.
    assert (result["waited"], result["own"]) == (0, 0)
