"""The SSH link against a real OpenSSH server: host keys checked as OpenSSH does, keys only, and
each failure a typed error that says what to do."""

import asyncio
import os
import shutil
import socket
import subprocess
import time

import pytest

from idea.domain.errors import (
    AuthRefused,
    ForwardingRefused,
    HostIdeaMissing,
    HostIdeaVersion,
    HostKeyChanged,
    HostKeyUnknown,
    HostUnreachable,
    IdeaTimeout,
    Invalid,
    NotFound,
    Unavailable,
)
from idea.infrastructure.remote.ssh import channels, check, connection
from tests.processes import spawned
from tests.sshd import fingerprint, keygen, running_sshd
from tests.waiting import until, until_blocking

pytestmark = pytest.mark.timeout(60)


async def connected(sshd, **fields):
    return await connection.connect(sshd.host(**fields), known_hosts=str(sshd.known_hosts))


async def close(conn):
    conn.close()
    await asyncio.wait_for(conn.wait_closed(), 10)


async def test_connects_with_the_key_and_runs_a_command_as_the_account(sshd):
    conn = await connected(sshd)
    try:
        result = await channels.run_command(conn, sshd.host(), "id -un; printf 'é\\n' >&2; exit 3")
        assert result == channels.RemoteResult(3, f"{sshd.user}\n", "é\n")
        assert conn.get_server_host_key().get_fingerprint("sha256") == sshd.host_fingerprint
    finally:
        await close(conn)


async def test_an_unknown_host_key_is_refused_with_its_fingerprint(sshd, tmp_path):
    empty = tmp_path / "known_hosts"
    empty.write_text("", encoding="utf-8")
    with pytest.raises(HostKeyUnknown) as caught:
        await connection.connect(sshd.host(), known_hosts=str(empty))
    error = caught.value
    assert error.code == "HOST_KEY_UNKNOWN"
    expected = fingerprint(sshd.host_key.with_suffix(".pub"))  # ssh-keygen -lf
    assert error.fingerprint == expected
    assert expected in error.message
    assert f"ssh-keyscan -p {sshd.port} 127.0.0.1 >> {empty}" in error.message
    assert error.details() == {
        "host": "lab",
        "address": f"127.0.0.1:{sshd.port}",
        "fingerprint": expected,
    }
    await until(lambda: not sshd.connections(), what="no connection left logged in")


async def test_by_default_the_users_known_hosts_decides(sshd, tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    with pytest.raises(HostKeyUnknown):  # no ~/.ssh/known_hosts: nothing is trusted
        await connection.connect(sshd.host())
    (home / ".ssh" / "known_hosts").write_text(sshd.known_hosts.read_text(encoding="utf-8"))
    await close(await connection.connect(sshd.host()))


async def test_known_hosts_none_in_the_ssh_config_does_not_turn_the_check_off(
    sshd, tmp_path, monkeypatch
):
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "config").write_text("Host *\n  UserKnownHostsFile none\n")
    monkeypatch.setenv("HOME", str(home))
    with pytest.raises(HostKeyUnknown):
        await connection.connect(sshd.host())


async def test_a_changed_host_key_is_refused_naming_the_entry(sshd, tmp_path):
    other = keygen(tmp_path / "other_host_key")
    public = other.with_suffix(".pub").read_text(encoding="utf-8").split()
    known = tmp_path / "known_hosts"
    known.write_text(
        f"# a comment\nelsewhere.example ssh-ed25519 {public[1]}\n"
        f"[127.0.0.1]:{sshd.port} {public[0]} {public[1]}\n",
        encoding="utf-8",
    )
    with pytest.raises(HostKeyChanged) as caught:
        await connection.connect(sshd.host(), known_hosts=str(known))
    error = caught.value
    assert error.code == "HOST_KEY_CHANGED"
    assert error.fingerprint == sshd.host_fingerprint
    assert error.known_hosts == f"{known}:3"
    assert f"{known} line 3" in error.message
    assert f"ssh-keygen -f {known} -R '[127.0.0.1]:{sshd.port}'" in error.message


async def test_hashed_entries_count_as_ssh_writes_them(sshd, tmp_path):
    """Debian's ssh_config says HashKnownHosts yes: ~/.ssh/known_hosts names hosts by hash."""
    other = keygen(tmp_path / "other_host_key").with_suffix(".pub").read_text().split()
    known = tmp_path / "known_hosts"
    known.write_text(sshd.known_hosts.read_text(encoding="utf-8"))
    subprocess.run(["ssh-keygen", "-q", "-H", "-f", str(known)], check=True, timeout=30)
    assert "127.0.0.1" not in known.read_text()
    await close(await connection.connect(sshd.host(), known_hosts=str(known)))
    known.write_text(f"[127.0.0.1]:{sshd.port} {other[0]} {other[1]}\n")
    subprocess.run(["ssh-keygen", "-q", "-H", "-f", str(known)], check=True, timeout=30)
    with pytest.raises(HostKeyChanged) as caught:
        await connection.connect(sshd.host(), known_hosts=str(known))
    assert caught.value.known_hosts == f"{known}:1"


async def test_a_revoked_host_key_is_refused(sshd, tmp_path):
    public = sshd.host_key.with_suffix(".pub").read_text(encoding="utf-8").split()
    known = tmp_path / "known_hosts"
    known.write_text(
        sshd.known_hosts.read_text(encoding="utf-8")
        + f"@revoked [127.0.0.1]:{sshd.port} {public[0]} {public[1]}\n",
        encoding="utf-8",
    )
    with pytest.raises(HostKeyChanged, match="revoked"):
        await connection.connect(sshd.host(), known_hosts=str(known))


async def test_a_key_the_account_does_not_accept_is_auth_refused(sshd, tmp_path):
    wrong = keygen(tmp_path / "wrong_key")
    with pytest.raises(AuthRefused) as caught:
        await connection.connect(
            sshd.host(identity_file=str(wrong)), known_hosts=str(sshd.known_hosts)
        )
    error = caught.value
    assert error.code == "AUTH_REFUSED"
    assert "publickey" in error.message
    assert str(wrong) in error.message  # what was tried
    assert f"{sshd.user}@127.0.0.1:{sshd.port}" in error.message


async def test_client_keys_replace_the_identity_file(sshd, tmp_path):
    wrong = keygen(tmp_path / "wrong_key")
    host = sshd.host()
    with pytest.raises(AuthRefused):
        await connection.connect(host, known_hosts=str(sshd.known_hosts), client_keys=[str(wrong)])
    conn = await connection.connect(
        sshd.host(identity_file=None),
        known_hosts=str(sshd.known_hosts),
        client_keys=[str(sshd.client_key)],
    )
    await close(conn)


@pytest.fixture
def agent(tmp_path, monkeypatch):
    """An ssh-agent of this test's own, as SSH_AUTH_SOCK; yields a function adding a key."""
    sock = tmp_path / "agent.sock"
    with spawned(["ssh-agent", "-D", "-a", str(sock)]) as process:
        until_blocking(sock.exists, what="ssh-agent's socket")
        monkeypatch.setenv("SSH_AUTH_SOCK", str(sock))

        def add(key):
            env = {**os.environ, "SSH_AUTH_SOCK": str(sock)}
            subprocess.run(["ssh-add", "-q", str(key)], env=env, check=True, timeout=30)

        yield add
        process.terminate()


async def test_the_agents_keys_are_offered(sshd, agent, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))  # no default key: only the agent's can log in
    host = sshd.host(identity_file=None)
    with pytest.raises(AuthRefused, match="the ssh-agent's keys"):
        await connection.connect(host, known_hosts=str(sshd.known_hosts))
    agent(sshd.client_key)
    await close(await connection.connect(host, known_hosts=str(sshd.known_hosts)))


async def test_a_key_with_a_passphrase_is_left_to_the_agent(sshd, tmp_path):
    locked = tmp_path / "locked"
    shutil.copy(sshd.client_key, locked)
    locked.chmod(0o600)
    subprocess.run(
        ["ssh-keygen", "-q", "-p", "-N", "secret", "-P", "", "-f", str(locked)],
        check=True,
        capture_output=True,
        timeout=30,
    )
    with pytest.raises(AuthRefused, match="ssh-add it"):
        await connected(sshd, identity_file=str(locked))


async def test_an_identity_file_that_is_not_there_names_the_field(sshd, tmp_path):
    with pytest.raises(Invalid) as caught:
        await connected(sshd, identity_file=str(tmp_path / "nope"))
    assert caught.value.field == "hosts.lab.identity_file"


async def test_nothing_listening_is_unreachable_at_once(sshd):
    with socket.socket() as taken:  # a port nobody listens on: bound, never listening
        taken.bind(("127.0.0.1", 0))
        port = taken.getsockname()[1]
        started = time.monotonic()
        with pytest.raises(HostUnreachable) as caught:
            await connection.connect(sshd.host(port=port), known_hosts=str(sshd.known_hosts))
    assert time.monotonic() - started < 5
    assert caught.value.code == "HOST_UNREACHABLE"
    assert f"127.0.0.1:{port}" in caught.value.message
    assert "refused" in caught.value.message
    assert caught.value.address == f"127.0.0.1:{port}"


async def test_a_silent_server_is_unreachable_after_the_timeout(sshd):
    with socket.socket() as silent:  # accepts (the backlog), never speaks SSH
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)
        port = silent.getsockname()[1]
        started = time.monotonic()
        with pytest.raises(HostUnreachable, match=r"no SSH answer within 0\.5 s"):
            await connection.connect(
                sshd.host(port=port), known_hosts=str(sshd.known_hosts), connect_timeout=0.5
            )
    assert time.monotonic() - started < 5


async def test_a_name_that_does_not_resolve_is_unreachable(sshd):
    with pytest.raises(HostUnreachable, match="does not resolve"):
        await connected(sshd, address="no-such-host.invalid")


async def test_a_dropped_link_is_reported_as_unreachable(sshd):
    conn = await connected(sshd)
    try:
        assert sshd.cut_connections() >= 1
        await until(conn.is_closed, what="the client sees the link drop")
        with pytest.raises(HostUnreachable, match="was lost"):
            await channels.run_command(conn, sshd.host(), "true", timeout=5)
    finally:
        await close(conn)
    await until(lambda: not sshd.connections(), what="no connection left")


async def test_the_host_idea_version(sshd):
    script = sshd.write("bin/idea", "#!/bin/sh\necho 'idea 0.1.0'\n", mode=0o755)
    conn = await connected(sshd)
    try:
        host = sshd.host(idea=str(script))
        assert await check.remote_version(conn, host) == "0.1.0"
        assert await check.check_idea(conn, host, "0.1.0") == "0.1.0"
        with pytest.raises(HostIdeaVersion) as caught:
            await check.check_idea(conn, host, "0.2.0")
        assert "0.1.0" in caught.value.message and "0.2.0" in caught.value.message
        with pytest.raises(HostIdeaMissing, match="not found"):
            await check.remote_version(conn, sshd.host(idea=str(sshd.work / "nope")))
        sshd.write("bin/plain", "#!/bin/sh\necho x\n", mode=0o644)
        with pytest.raises(HostIdeaMissing, match="cannot be run"):
            await check.remote_version(conn, sshd.host(idea=str(sshd.work / "bin/plain")))
        other = sshd.write("bin/other", "#!/bin/sh\necho 'IntelliJ IDEA 2024.1'\n", mode=0o755)
        with pytest.raises(HostIdeaMissing, match="not IdeA"):
            await check.remote_version(conn, sshd.host(idea=str(other)))
    finally:
        await close(conn)


async def test_remote_commands_are_bounded_in_time_and_output(sshd):
    conn = await connected(sshd)
    try:
        with pytest.raises(IdeaTimeout):
            await channels.run_command(conn, sshd.host(), "sleep 30", timeout=0.5)
        with pytest.raises(Unavailable, match="more than 1000"):
            await channels.run_command(conn, sshd.host(), "head -c 100000 /dev/zero", limit=1000)
        assert (await channels.run_command(conn, sshd.host(), "echo still")).stdout == "still\n"
    finally:
        await close(conn)


async def test_the_root_folder_is_checked(sshd):
    conn = await connected(sshd)
    try:
        await check.check_root(conn, sshd.host())
        with pytest.raises(NotFound, match="no folder /no/such' dir"):
            await check.check_root(conn, sshd.host(root="/no/such' dir"))
    finally:
        await close(conn)


async def test_unix_socket_forwarding_opens_and_closes(sshd):
    conn = await connected(sshd)
    try:
        await check.check_forwarding(conn, sshd.host())
        left = await channels.run_command(
            conn, sshd.host(), "ls /tmp | grep -c idea-check- || true"
        )
        assert left.stdout.strip() == "0"
    finally:
        await close(conn)


async def test_a_host_that_forbids_socket_forwarding_says_so():
    with running_sshd(["AllowStreamLocalForwarding no"]) as sshd:
        conn = await connected(sshd)
        try:
            with pytest.raises(ForwardingRefused) as caught:
                await check.check_forwarding(conn, sshd.host())
            assert caught.value.code == "HOST_FORWARDING_REFUSED"
            assert "AllowStreamLocalForwarding yes" in caught.value.message
        finally:
            await close(conn)


async def test_the_agent_is_forwarded_only_where_the_users_ssh_config_says(
    sshd, agent, tmp_path, monkeypatch
):
    monkeypatch.setenv("HOME", str(tmp_path))
    agent(sshd.client_key)
    host = sshd.host()

    async def remote_agent_socket() -> str:
        conn = await connection.connect(host, known_hosts=str(sshd.known_hosts))
        try:
            result = await channels.run_command(conn, host, "echo ${SSH_AUTH_SOCK:-none}")
        finally:
            await close(conn)
        return result.stdout.strip()

    assert await remote_agent_socket() == "none"
    (tmp_path / ".ssh").mkdir(mode=0o700)
    (tmp_path / ".ssh" / "config").write_text("Host 127.0.0.1\n  ForwardAgent yes\n", "utf-8")
    assert await remote_agent_socket() != "none"
