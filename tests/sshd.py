"""A real OpenSSH server on 127.0.0.1 for the SSH tests: Debian's ``/usr/sbin/sshd``, run as root
with a config, host key and client key made for it, logging in a second local account.

``running_sshd()`` starts one on a free port and yields an ``Sshd``; on exit the listener, every
per-connection sshd and every process a session started (marked by an environment variable sshd
sets) is killed and reaped, and the files it made are removed. Tests that need it skip, naming
``apt-get install openssh-server``, when sshd is missing or the tests do not run as root.

The account (``REMOTE_USER``) is made once and kept: its home holds one authorized-keys file and
one work folder per running sshd, so that several can run side by side (other test runs too).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import psutil
import pytest

from idea.domain.host import Host
from tests.net import free_port
from tests.processes import LineWatcher
from tests.waiting import until_blocking

if TYPE_CHECKING:
    import pwd

SSHD = Path("/usr/sbin/sshd")
REMOTE_USER = "idea-remote"
MARKER = "IDEA_TEST_SSHD"  # set by sshd (SetEnv) in every session it starts
START_TIMEOUT_S = 10.0
STOP_TIMEOUT_S = 10.0
INSTALL = "apt-get install openssh-server openssh-client"


def skip_reason() -> str | None:
    """Why the sshd tests cannot run here, or None."""
    if not hasattr(os, "geteuid"):
        return "the sshd tests run on POSIX only"
    if not SSHD.is_file():
        return f"no {SSHD} ({INSTALL})"
    if shutil.which("ssh-keygen") is None:
        return f"no ssh-keygen ({INSTALL})"
    if os.geteuid() != 0:
        return "the sshd tests need root (sshd logs a second account in)"
    if shutil.which("useradd") is None:
        return "no useradd (apt-get install passwd)"
    return None


def require_sshd() -> None:
    reason = skip_reason()
    if reason is not None:
        pytest.skip(reason)


def keygen(path: Path, comment: str = "idea-test") -> Path:
    """A fresh ed25519 key pair, ``path`` and ``path.pub``, no passphrase."""
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", str(path)],
        check=True,
        capture_output=True,
        timeout=30,
    )
    return path


def fingerprint(public_key: Path) -> str:
    """``SHA256:…`` as ``ssh-keygen -lf`` prints it."""
    out = subprocess.run(
        ["ssh-keygen", "-lf", str(public_key)],
        check=True,
        capture_output=True,
        text=True,
        timeout=30,
    ).stdout
    return out.split()[1]


def remote_account() -> pwd.struct_passwd:
    """``REMOTE_USER``, made if absent, with a shell and a password that is not "locked" (sshd
    without PAM refuses a locked account even a key login; '*' matches no password)."""
    import pwd  # noqa: PLC0415 - POSIX only, and this module is imported on Windows too

    try:
        account = pwd.getpwnam(REMOTE_USER)
    except KeyError:
        made = subprocess.run(
            ["useradd", "--create-home", "--shell", "/bin/bash", "--password", "*", REMOTE_USER],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        try:  # made by a test run beside this one meanwhile, maybe
            account = pwd.getpwnam(REMOTE_USER)
        except KeyError:
            raise AssertionError(f"useradd {REMOTE_USER} failed: {made.stderr}") from None
    if _locked(REMOTE_USER):
        subprocess.run(["usermod", "--password", "*", REMOTE_USER], check=True, timeout=30)
    return account


def install_build(program: Path, folder: Path) -> Path:
    """The one-folder build whose program is ``program`` copied into ``folder``, every file the
    account's (as its user installs IdeA); returns the program there. The caller removes it."""
    account = remote_account()
    shutil.copytree(program.parent, folder, symlinks=True)
    for path in (folder, *folder.rglob("*")):
        os.lchown(path, account.pw_uid, account.pw_gid)
    return folder / program.name


def _locked(user: str) -> bool:
    with contextlib.suppress(OSError):
        for line in Path("/etc/shadow").read_text(encoding="utf-8").splitlines():
            name, _, rest = line.partition(":")
            if name == user:
                return rest.startswith("!")
    return False


@dataclass
class Sshd:
    """A running sshd and what a client needs to reach it."""

    port: int
    folder: Path  # this server's files (root's, 0700)
    host_key: Path  # the server's private host key; its public half is host_key.pub
    known_hosts: Path  # one line: [127.0.0.1]:PORT ssh-ed25519 … (the client's known_hosts)
    client_key: Path  # a private key the account accepts; client_key.pub beside it
    user: str  # the account sessions run as
    home: Path  # its home
    work: Path  # a folder of its own in that home for this server (scripts, checkouts)
    token: str  # the value of MARKER in its sessions' environment
    process: subprocess.Popen[str]
    log: LineWatcher[str]
    address: str = "127.0.0.1"
    _uid: int = field(default=0, repr=False)

    @property
    def host_fingerprint(self) -> str:
        return fingerprint(self.host_key.with_suffix(".pub"))

    def host(self, name: str = "lab", **fields: object) -> Host:
        """A ``Host`` for this server (root: ``work``), any field overridden."""
        values: dict[str, object] = {
            "name": name,
            "user": self.user,
            "address": self.address,
            "port": self.port,
            "identity_file": str(self.client_key),
            "root": str(self.work),
            **fields,
        }
        return Host(**values)  # type: ignore[arg-type]

    def write(self, relative: str, content: str | bytes, mode: int = 0o644) -> Path:
        """A file in ``work`` owned by the account (a script with ``mode=0o755``)."""
        path = self.work / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        os.chmod(path, mode)
        for made in (path, *[p for p in path.parents if self.work in (p, *p.parents)]):
            os.chown(made, self._uid, -1)
        return path

    def connections(self) -> list[psutil.Process]:
        """The per-connection sshd processes alive now: the listener's sshd descendants, and any
        process holding an established connection to its port (one whose parent died)."""
        found: dict[int, psutil.Process] = {}
        with contextlib.suppress(psutil.NoSuchProcess):
            listener = psutil.Process(self.process.pid)
            found.update((p.pid, p) for p in listener.children(recursive=True) if _is_sshd(p))
        for conn in psutil.net_connections(kind="tcp"):
            if (
                conn.pid is not None
                and conn.pid != self.process.pid
                and conn.status == psutil.CONN_ESTABLISHED
                and conn.laddr
                and conn.laddr.port == self.port
            ):
                with contextlib.suppress(psutil.NoSuchProcess):
                    found.setdefault(conn.pid, psutil.Process(conn.pid))
        return [p for p in found.values() if _alive(p)]

    def cut_connections(self) -> int:
        """Kill every live connection's sshd processes at once (the listener goes on accepting):
        the client sees its link drop; what the sessions started is left running, as after a
        network cut. Returns how many processes were killed.

        Each is stopped first, until no new one appears: a connection's sshd forks its session
        process once the login succeeds, and a child forked after a look-up would keep the link
        alive on its own."""
        doomed: dict[int, psutil.Process] = {}
        while fresh := [p for p in self.connections() if p.pid not in doomed]:
            for process in fresh:
                with contextlib.suppress(psutil.NoSuchProcess):
                    process.suspend()
                doomed[process.pid] = process
        for process in doomed.values():
            with contextlib.suppress(psutil.NoSuchProcess):
                process.kill()
        _wait_gone(list(doomed.values()))
        return len(doomed)

    def session_processes(self) -> list[psutil.Process]:
        """Every process that a session of this server started, alive now (parent or not)."""
        found = []
        for process in psutil.process_iter(["uids"]):
            try:
                if process.info["uids"] and process.info["uids"].real != self._uid:
                    continue
                if process.environ().get(MARKER) == self.token:
                    found.append(process)
            except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
                continue
        return found

    def text(self) -> str:
        """What sshd logged so far (for a failing test's message)."""
        return self.log.text()


def _alive(process: psutil.Process) -> bool:
    """Not gone, not a zombie (dead; its parent reaps it when it will), not exiting."""
    try:
        return process.status() not in (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD)
    except psutil.NoSuchProcess:
        return False


def _wait_gone(processes: Sequence[psutil.Process]) -> None:
    """Until each is gone or a zombie."""
    until_blocking(
        lambda: not any(_alive(p) for p in processes),
        STOP_TIMEOUT_S,
        f"gone after SIGKILL: {processes}",
        poll_s=0.01,
    )


def _is_sshd(process: psutil.Process) -> bool:
    with contextlib.suppress(psutil.Error):
        return process.name().startswith("sshd") or "sshd" in " ".join(process.cmdline()[:1])
    return False


def _config(
    port: int,
    host_key: Path,
    keys_file: str,
    token: str,
    extra: Sequence[str],
    env: Mapping[str, str],
) -> str:
    for name, value in env.items():
        assert name.isidentifier() and name != MARKER, name
        assert value and not any(c.isspace() or c in "\"'\\" for c in value), (name, value)
    lines = [
        f"Port {port}",
        "ListenAddress 127.0.0.1",
        f"HostKey {host_key}",
        "PidFile none",
        "UsePAM no",
        "StrictModes yes",
        f"AllowUsers {REMOTE_USER}",
        "PermitRootLogin no",
        "PubkeyAuthentication yes",
        "PasswordAuthentication no",
        "KbdInteractiveAuthentication no",
        f"AuthorizedKeysFile {keys_file}",
        "AllowStreamLocalForwarding yes",
        "StreamLocalBindUnlink yes",
        "AllowTcpForwarding yes",
        "X11Forwarding no",
        "PrintMotd no",
        "PrintLastLog no",
        "LogLevel VERBOSE",
        # sshd takes its first SetEnv line only: every variable goes on this one.
        " ".join(["SetEnv", f"{MARKER}={token}", *(f"{k}={v}" for k, v in env.items())]),
    ]
    # sshd takes the first value of most keywords: extra lines go first to override the above.
    return "\n".join([*extra, *lines]) + "\n"


@contextlib.contextmanager
def running_sshd(
    extra_config: Sequence[str] = (), attempts: int = 5, env: Mapping[str, str] | None = None
) -> Iterator[Sshd]:
    """An sshd on a free port of 127.0.0.1 until the block ends (see the module's docstring).
    ``extra_config``: sshd_config lines that take precedence (``AllowStreamLocalForwarding no``);
    ``env``: variables set in this server's sessions only (sshd's ``SetEnv``; the account's
    ``~/.ssh/environment`` would be every server's), values without blanks or quotes."""
    require_sshd()
    account = remote_account()
    home = Path(account.pw_dir)
    token = secrets.token_hex(8)
    folder = Path(tempfile.mkdtemp(prefix="idea-sshd-"))
    ssh_dir = home / ".ssh"
    keys_file = ssh_dir / f"idea-test-{token}.keys"
    work = home / f"idea-test-{token}"
    sshd: Sshd | None = None
    try:
        host_key = keygen(folder / "host_ed25519", "idea-test-host")
        client_key = keygen(folder / "client_ed25519", "idea-test-client")
        ssh_dir.mkdir(mode=0o700, exist_ok=True)
        os.chmod(ssh_dir, 0o700)
        os.chown(ssh_dir, account.pw_uid, account.pw_gid)
        keys_file.write_text(client_key.with_suffix(".pub").read_text(encoding="utf-8"), "utf-8")
        os.chmod(keys_file, 0o600)
        os.chown(keys_file, account.pw_uid, account.pw_gid)
        work.mkdir(mode=0o755)
        os.chown(work, account.pw_uid, account.pw_gid)
        # sshd's privilege separation folder (the openssh-server package's service makes it).
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)
        for _ in range(attempts):
            port = free_port()
            config = folder / "sshd_config"
            relative_keys = str(keys_file.relative_to(home))
            text = _config(port, host_key, relative_keys, token, extra_config, env or {})
            config.write_text(text, "utf-8")
            process = subprocess.Popen(
                [str(SSHD), "-D", "-e", "-f", str(config)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                errors="replace",
            )
            log = LineWatcher(process.stderr)  # type: ignore[arg-type]
            sshd = Sshd(
                port=port,
                folder=folder,
                host_key=host_key,
                known_hosts=folder / "known_hosts",
                client_key=client_key,
                user=REMOTE_USER,
                home=home,
                work=work,
                token=token,
                process=process,
                log=log,
                _uid=account.pw_uid,
            )
            if _listening(sshd):
                break
            _stop(sshd)
            sshd = None
        if sshd is None:
            raise AssertionError(f"sshd did not start in {attempts} attempts")
        public = host_key.with_suffix(".pub").read_text(encoding="utf-8").split()
        sshd.known_hosts.write_text(f"[127.0.0.1]:{sshd.port} {public[0]} {public[1]}\n", "utf-8")
        yield sshd
    finally:
        if sshd is not None:
            _stop(sshd)
        keys_file.unlink(missing_ok=True)
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(folder, ignore_errors=True)


def _listening(sshd: Sshd) -> bool:
    """True once sshd says it listens; False when it ended (its port taken meanwhile)."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        try:
            line = sshd.log.next_line(timeout=max(0.1, deadline - time.monotonic()))
        except AssertionError:
            break
        if line is None:
            return False
        if "Server listening on" in line:
            return True
    raise AssertionError(f"sshd did not listen within {START_TIMEOUT_S} s:\n{sshd.text()}")


def _stop(sshd: Sshd) -> None:
    """The listener, its connections and what their sessions started: killed and reaped."""
    with contextlib.suppress(ProcessLookupError):
        sshd.process.send_signal(signal.SIGSTOP)  # accepts and forks no more
    sshd.cut_connections()
    with contextlib.suppress(ProcessLookupError):
        sshd.process.kill()
    sshd.process.wait(timeout=STOP_TIMEOUT_S)

    # No sshd left to start any: kill what the sessions started until nothing is left (one may
    # have been forking meanwhile).
    def none_left() -> bool:
        sessions = sshd.session_processes()
        for process in sessions:
            with contextlib.suppress(psutil.NoSuchProcess):
                process.kill()
        _wait_gone(sessions)
        return not sessions

    until_blocking(none_left, STOP_TIMEOUT_S, "no process of the sessions left", poll_s=0)
    sshd.log.join(STOP_TIMEOUT_S)
    if sshd.process.stderr is not None:
        sshd.process.stderr.close()


@contextlib.contextmanager
def installed_idea(frozen: Path) -> Iterator[str]:
    """IdeA's one-folder build (``frozen``: its executable) copied into the host account's home,
    its files the account's own, as a user installs it there; yields the command that runs it
    (the ``idea`` of a hosts.json entry)."""
    folder = Path(tempfile.mkdtemp(prefix="idea-app-", dir=remote_account().pw_dir))
    try:
        os.chmod(folder, 0o755)
        yield str(install_build(frozen, folder / frozen.parent.name))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
