"""The sshd fixture itself: a cut drops links but not what sessions run; the end leaves nothing."""

import asyncio

import psutil
import pytest

from idea.infrastructure.remote.ssh import channels, connection
from tests.sshd import running_sshd
from tests.waiting import until

pytestmark = pytest.mark.timeout(60)

# Left behind by its session (no stdio to it): only the fixture's end can stop it.
DETACHED = "sleep 300 < /dev/null > /dev/null 2>&1 & echo $!"


async def start_detached(sshd) -> int:
    conn = await connection.connect(sshd.host(), known_hosts=str(sshd.known_hosts))
    try:
        result = await channels.run_command(conn, sshd.host(), DETACHED)
    finally:
        conn.close()
        await conn.wait_closed()
    return int(result.stdout.split()[-1])


async def test_a_cut_drops_the_link_and_leaves_the_sessions_processes(monkeypatch):
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    with running_sshd() as sshd:
        conn = await connection.connect(sshd.host(), known_hosts=str(sshd.known_hosts))
        try:
            process = await conn.create_process("sleep 300")
            await until(sshd.session_processes, what="the session's sleep")
            sleeper = sshd.session_processes()[0]
            assert sshd.cut_connections() >= 2  # the connection's monitor and its session
            await until(conn.is_closed, what="the client sees the link drop")
            assert not sshd.connections()
            assert sleeper.is_running()  # as after a network cut
            process.close()
            again = await connection.connect(sshd.host(), known_hosts=str(sshd.known_hosts))
            again.close()
            await again.wait_closed()
        finally:
            conn.close()
    assert not psutil.pid_exists(sleeper.pid) or sleeper.status() == psutil.STATUS_ZOMBIE


async def test_the_end_stops_sshd_and_whatever_the_sessions_started(monkeypatch):
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    with running_sshd() as sshd:
        pid = await start_detached(sshd)
        detached = psutil.Process(pid)
        await until(lambda: detached.name() == "sleep", what="the shell's child runs sleep")
        assert detached.environ().get("IDEA_TEST_SSHD") == sshd.token
        listener = psutil.Process(sshd.process.pid)
        work, keys = sshd.work, sshd.folder
    gone = [p for p in (detached, listener) if p.is_running() and p.status() != "zombie"]
    assert not gone
    assert not work.exists() and not keys.exists()


def test_two_servers_run_side_by_side(monkeypatch):
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)

    async def check(sshd):
        conn = await connection.connect(sshd.host(), known_hosts=str(sshd.known_hosts))
        conn.close()
        await conn.wait_closed()

    with running_sshd() as one, running_sshd() as two:
        assert one.port != two.port and one.work != two.work
        asyncio.run(check(one))
        asyncio.run(check(two))


async def session_says(sshd, script: str) -> str:
    conn = await connection.connect(sshd.host(), known_hosts=str(sshd.known_hosts))
    try:
        return (await channels.run_command(conn, sshd.host(), script)).stdout
    finally:
        conn.close()
        await conn.wait_closed()


async def test_env_is_set_in_this_servers_sessions_only_and_the_marker_stays(monkeypatch):
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    env = {"IDEA_TEST_ONE": "1", "PATH": "/opt/idea-test/bin:/usr/bin:/bin"}
    script = 'printf "%s|%s|%s" "$IDEA_TEST_SSHD" "$IDEA_TEST_ONE" "$PATH"'
    with running_sshd(env=env) as sshd, running_sshd() as other:
        mine, theirs = [await session_says(server, script) for server in (sshd, other)]
    assert mine == f"{sshd.token}|1|{env['PATH']}"  # sshd reads one SetEnv line: all on it
    assert theirs.split("|")[:2] == [other.token, ""]
