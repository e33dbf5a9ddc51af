"""The SSH link to a host (DESIGN.md §16): one asyncssh connection, opened as OpenSSH would.

Invariants:
- a host key is trusted only when a known_hosts entry names it (the user's files, as OpenSSH's
  ``UserKnownHostsFile`` says, ``~/.ssh/known_hosts`` by default): an unknown key is refused with
  its fingerprint and how to accept it, a changed one is refused naming the entry it contradicts.
  Not even ``UserKnownHostsFile none`` in ``~/.ssh/config`` turns the check off;
- IdeA logs in with keys only (``identity_file``, else what ``~/.ssh/config`` names or the default
  ``~/.ssh/id_*``; the ssh-agent's keys when ``SSH_AUTH_SOCK`` is set): no password nor
  keyboard-interactive prompt, which a window cannot answer, and the agent is never forwarded;
- asyncssh's and the OS's errors are translated here, once (``ssh_errors`` for an open link), into
  the ``IdeaError`` tree: ``HostKeyUnknown``, ``HostKeyChanged``, ``AuthRefused``,
  ``HostUnreachable``, ``ForwardingRefused``, ``HostIdeaMissing``, ``HostIdeaVersion``;
- what a host sends back is bounded (``OUTPUT_LIMIT``) and every remote command has a deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import socket
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import asyncssh

from idea.domain.errors import (
    AuthRefused,
    ForwardingRefused,
    HostIdeaMissing,
    HostKeyChanged,
    HostKeyUnknown,
    HostUnreachable,
    IdeaError,
    IdeaTimeout,
    Invalid,
    NotFound,
    Unavailable,
)
from idea.domain.host import DEFAULT_PORT, Host, check_version
from idea.infrastructure.remote.ssh.known_hosts import entries_for, read_entries
from idea.infrastructure.remote.ssh.local_stream import open_local_stream, relay

__all__ = [
    "COMMAND_TIMEOUT_S",
    "CONNECT_TIMEOUT_S",
    "OUTPUT_LIMIT",
    "RemoteResult",
    "check_forwarding",
    "check_idea",
    "check_root",
    "check_version",
    "connect",
    "forward_socket",
    "remote_version",
    "run_command",
    "ssh_errors",
]

CONNECT_TIMEOUT_S = 15.0
COMMAND_TIMEOUT_S = 30.0
OUTPUT_LIMIT = 64 * 1024  # characters of stdout (and as many of stderr) kept from one command
DEFAULT_KNOWN_HOSTS = "~/.ssh/known_hosts"
_SHELL_NOT_FOUND, _SHELL_CANNOT_EXECUTE = 127, 126


class _Client(asyncssh.SSHClient):
    """Keeps the key a host presented when no known_hosts entry vouched for it (asyncssh drops
    it), so that the refusal can show its fingerprint; trusts nothing itself."""

    def __init__(self) -> None:
        self.presented: tuple[str, str, int, asyncssh.SSHKey] | None = None

    def validate_host_public_key(
        self, host: str, addr: str, port: int, key: asyncssh.SSHKey
    ) -> bool:
        self.presented = (host, addr, port, key)
        return False


async def connect(
    host: Host,
    *,
    known_hosts: str | None = None,
    client_keys: Sequence[str] | None = None,
    connect_timeout: float = CONNECT_TIMEOUT_S,
) -> asyncssh.SSHClientConnection:
    """An authenticated SSH connection to ``host``; the caller closes it.

    ``known_hosts``: a known_hosts file to use instead of the user's; ``client_keys``: private
    key files to offer instead of ``host.identity_file`` and the defaults (the agent's keys are
    offered too while ``SSH_AUTH_SOCK`` is set). ``connect_timeout`` bounds the whole handshake.
    Raises ``HostKeyUnknown``, ``HostKeyChanged``, ``AuthRefused``, ``HostUnreachable``,
    ``Invalid`` (an identity file that is not there, a bad ``~/.ssh/config``).
    """
    keys = list(client_keys) if client_keys is not None else _identity_files(host)
    settings: dict[str, object] = {
        "port": host.port if host.port != DEFAULT_PORT else (),  # () : ~/.ssh/config's, or 22
        "username": host.user or (),
        "known_hosts": known_hosts if known_hosts is not None else (),
        "client_keys": keys or (),
        "ignore_encrypted": True,  # a key with a passphrase is used through the agent
        "password_auth": False,
        "kbdint_auth": False,
        # As the user's ssh would: forwarded only where ~/.ssh/config says ForwardAgent yes.
        "agent_forwarding": (),
        "connect_timeout": connect_timeout,
    }
    options = await _options(host, settings)
    files = [known_hosts] if known_hosts is not None else _user_known_hosts(options)
    if options.known_hosts is None:  # ~/.ssh/config: UserKnownHostsFile none
        settings["known_hosts"] = read_entries(files)
    client = _Client()
    try:
        return await asyncssh.connect(
            host.address, config=(), client_factory=lambda: client, **settings
        )
    except asyncssh.HostKeyNotVerifiable as exc:
        raise _host_key_refused(host, client, files, exc) from exc
    except asyncssh.PermissionDenied as exc:
        raise _auth_refused(host, options, keys) from exc
    except (TimeoutError, OSError, asyncssh.Error) as exc:
        raise _unreachable(host, exc, connect_timeout) from exc


def _identity_files(host: Host) -> list[str]:
    if host.identity_file is None:
        return []
    path = os.path.expanduser(host.identity_file)
    if not os.path.isfile(path):
        raise Invalid(
            f"host '{host.name}': identity_file {host.identity_file} is not a file here",
            field=f"hosts.{host.name}.identity_file",
        )
    return [path]


async def _options(host: Host, settings: dict[str, object]) -> asyncssh.SSHClientConnectionOptions:
    """The options asyncssh will connect with, ``~/.ssh/config`` applied (what it says about
    this host, its known_hosts files and its keys)."""
    try:
        options: asyncssh.SSHClientConnectionOptions = (
            await asyncssh.SSHClientConnectionOptions.construct(
                config=(), host=host.address, **settings
            )
        )
    except (ValueError, OSError) as exc:  # a key that does not load, a config that does not parse
        raise Invalid(f"host '{host.name}': cannot prepare the SSH connection: {exc}") from exc
    return options


def _user_known_hosts(options: asyncssh.SSHClientConnectionOptions) -> list[str]:
    configured = options.known_hosts
    if isinstance(configured, list | tuple) and configured:
        return [os.path.expanduser(str(path)) for path in configured]
    return [os.path.expanduser(DEFAULT_KNOWN_HOSTS)]


def _host_key_refused(
    host: Host, client: _Client, files: Sequence[str], exc: asyncssh.HostKeyNotVerifiable
) -> IdeaError:
    shown = files[0] if files else DEFAULT_KNOWN_HOSTS
    if client.presented is None:  # revoked, or a certificate from an untrusted CA
        return HostKeyChanged(
            f"host '{host.name}': the host key of {host.endpoint} is refused ({exc.reason}); "
            f"see the entries for it in {shown}",
            host=host.name,
            address=host.endpoint,
            fingerprint="",
            known_hosts=shown,
        )
    name, addr, port, key = client.presented
    fingerprint = key.get_fingerprint("sha256")
    kind = key.get_algorithm()
    entries = entries_for(files, name, addr, None if port == DEFAULT_PORT else port)
    if not entries:
        keyscan = f"ssh-keyscan {'' if host.port == DEFAULT_PORT else f'-p {host.port} '}"
        ssh = f"ssh {'' if host.port == DEFAULT_PORT else f'-p {host.port} '}"
        target = f"{host.user}@{host.address}" if host.user else host.address
        return HostKeyUnknown(
            f"host '{host.name}': the host key of {host.endpoint} is not known here ({kind} "
            f"{fingerprint}), and IdeA connects only to hosts whose key it can check. Check that "
            f"this is the host's key (on the host: ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub), "
            f"then accept it: `{ssh}{target}` once (it asks), or "
            f"`{keyscan}{host.address} >> {shlex.quote(shown)}`",
            host=host.name,
            address=host.endpoint,
            fingerprint=fingerprint,
        )
    pattern = name if port == DEFAULT_PORT else f"[{name}]:{port}"
    where = ", ".join(f"{path} line {line}" for path, line in entries)
    first_path, first_line = entries[0]
    return HostKeyChanged(
        f"host '{host.name}': the host key of {host.endpoint} CHANGED: it is now {kind} "
        f"{fingerprint}, which the known key ({where}) is not. Someone may be between you and "
        "the host, or the host was reinstalled: IdeA refuses to connect. If you know why it "
        f"changed, remove the old key (`ssh-keygen -f {shlex.quote(first_path)} -R '{pattern}'`) "
        "and accept "
        "the new one",
        host=host.name,
        address=host.endpoint,
        fingerprint=fingerprint,
        known_hosts=f"{first_path}:{first_line}",
    )


def _auth_refused(
    host: Host, options: asyncssh.SSHClientConnectionOptions, keys: Sequence[str]
) -> AuthRefused:
    loaded = len(options.client_keys or ())
    if keys:
        offered = f"the key {', '.join(keys)}" if len(keys) == 1 else f"the keys {', '.join(keys)}"
        if loaded < len(keys):
            offered += " (one with a passphrase is offered through the agent only: ssh-add it)"
    else:
        offered = f"{loaded} key(s) from ~/.ssh/config's IdentityFile or ~/.ssh/id_*"
    if options.agent_path:
        offered += f" and the ssh-agent's keys ({options.agent_path})"
    user = options.username
    copy_id = f"ssh-copy-id {'' if host.port == DEFAULT_PORT else f'-p {host.port} '}"
    return AuthRefused(
        f"host '{host.name}': {user}@{host.endpoint} refused the login; IdeA tried publickey "
        f"with {offered} (no password nor keyboard-interactive: IdeA cannot ask for one). Put "
        f"your public key in ~{user}/.ssh/authorized_keys there "
        f"(`{copy_id}{user}@{host.address}`), load your key into the agent (`ssh-add`), or "
        f"set hosts.{host.name}.identity_file",
        host=host.name,
        address=host.endpoint,
    )


def _unreachable(host: Host, exc: BaseException, timeout: float) -> HostUnreachable:
    if isinstance(exc, socket.gaierror):
        why = f"the name {host.address} does not resolve ({exc.strerror or exc})"
    elif isinstance(exc, ConnectionRefusedError):
        why = "the connection was refused (no SSH server listens there)"
    elif isinstance(exc, TimeoutError):
        why = f"no SSH answer within {timeout:g} s"
    elif isinstance(exc, asyncssh.DisconnectError):
        why = f"the host ended the connection: {exc.reason or type(exc).__name__}"
    elif isinstance(exc, OSError):
        why = exc.strerror or str(exc) or type(exc).__name__
    else:
        why = str(exc) or type(exc).__name__
    return HostUnreachable(
        f"host '{host.name}': cannot reach {host.endpoint}: {why}",
        host=host.name,
        address=host.endpoint,
    )


@contextlib.contextmanager
def ssh_errors(
    host: Host, doing: str, conn: asyncssh.SSHClientConnection | None = None
) -> Iterator[None]:
    """Translate what an open link (``conn``) raises while ``doing`` something: a lost link →
    ``HostUnreachable``, a channel the host refused → ``Unavailable``, a deadline →
    ``IdeaTimeout``."""
    try:
        yield
    except IdeaError:
        raise
    except TimeoutError as exc:
        raise IdeaTimeout(f"host '{host.name}': {doing} did not finish in time") from exc
    except asyncssh.ChannelOpenError as exc:
        if conn is None or not conn.is_closed():
            raise Unavailable(f"host '{host.name}' refused to {doing}: {exc.reason}") from exc
        raise _lost(host, doing, exc) from exc
    except (asyncssh.DisconnectError, OSError, asyncssh.Error) as exc:
        raise _lost(host, doing, exc) from exc


def _lost(host: Host, doing: str, exc: Exception) -> HostUnreachable:
    why = getattr(exc, "reason", "") or str(exc) or type(exc).__name__
    return HostUnreachable(
        f"host '{host.name}': the connection to {host.endpoint} was lost while trying to "
        f"{doing}: {why}",
        host=host.name,
        address=host.endpoint,
    )


@dataclass(frozen=True, slots=True)
class RemoteResult:
    """What a command run on the host ended with. ``exit_status``: its exit code, the negative
    signal number that killed it, or None when the host said neither."""

    exit_status: int | None
    stdout: str
    stderr: str


async def run_command(
    conn: asyncssh.SSHClientConnection,
    host: Host,
    command: str,
    *,
    timeout: float = COMMAND_TIMEOUT_S,
    limit: int = OUTPUT_LIMIT,
) -> RemoteResult:
    """Run ``command`` with the host's shell (no terminal, stdin closed) until it exits.

    Raises ``IdeaTimeout`` after ``timeout`` (the command is closed), ``Unavailable`` when it
    prints more than ``limit`` characters on a stream, ``HostUnreachable`` (link lost)."""
    with ssh_errors(host, f"run {command[:80]!r}", conn):
        process = await asyncio.wait_for(
            conn.create_process(
                command, stdin=asyncssh.DEVNULL, encoding="utf-8", errors="replace"
            ),
            timeout,
        )
        try:
            out, err = await asyncio.wait_for(
                asyncio.gather(_bounded(process.stdout, limit), _bounded(process.stderr, limit)),
                timeout,
            )
            if len(out) > limit or len(err) > limit:
                raise Unavailable(
                    f"host '{host.name}': {command[:80]!r} printed more than {limit} characters"
                )
            await asyncio.wait_for(process.wait_closed(), timeout)
        finally:
            process.close()
        return RemoteResult(process.returncode, out, err)


async def _bounded(stream: asyncssh.SSHReader[str], limit: int) -> str:
    """All of ``stream`` up to ``limit`` characters; one more means it had more."""
    chunks: list[str] = []
    size = 0
    while size <= limit:
        chunk = await stream.read(limit + 1 - size)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return "".join(chunks)


async def remote_version(
    conn: asyncssh.SSHClientConnection, host: Host, *, timeout: float = COMMAND_TIMEOUT_S
) -> str:
    """The version ``<host.idea> --version`` reports there (``idea 0.1.0`` → ``0.1.0``).

    Raises ``HostIdeaMissing`` (not found: the shell's 127; cannot run; not IdeA),
    ``IdeaTimeout``, ``HostUnreachable``."""
    result = await run_command(conn, host, f"{host.idea} --version", timeout=timeout, limit=4096)
    setting = f"hosts.{host.name}.idea"
    if result.exit_status in (_SHELL_NOT_FOUND, _SHELL_CANNOT_EXECUTE):
        why = "is not found" if result.exit_status == _SHELL_NOT_FOUND else "cannot be run"
        searched = "/" not in host.idea.split()[0]
        hint = (
            f", or set {setting} to its full path (a non-interactive SSH shell may not have "
            "~/.local/bin on its PATH: try ~/.local/bin/idea)"
            if searched
            else f", or set {setting} to the command that runs it"
        )
        raise HostIdeaMissing(
            f"host '{host.name}': `{host.idea}` {why} there ({_last_line(result.stderr)}). "
            f"Install IdeA on the host{hint}",
            host=host.name,
        )
    words = result.stdout.strip().split()
    if result.exit_status != 0 or len(words) != 2 or words[0] != "idea" or len(words[1]) > 64:
        said = _last_line(result.stderr) if result.exit_status else _last_line(result.stdout)
        raise HostIdeaMissing(
            f"host '{host.name}': `{host.idea} --version` is not IdeA's answer (exit status "
            f"{result.exit_status}: {said}); set {setting} to the command that runs IdeA there",
            host=host.name,
        )
    return words[1]


async def check_idea(conn: asyncssh.SSHClientConnection, host: Host, local_version: str) -> str:
    """The host's IdeA version, when it is ``local_version``. Raises as ``remote_version`` and
    ``check_version`` (``HostIdeaVersion``)."""
    remote = await remote_version(conn, host)
    check_version(local_version, remote, host.name)
    return remote


async def check_root(conn: asyncssh.SSHClientConnection, host: Host) -> None:
    """Raises ``NotFound`` unless ``host.root`` is a folder there (``Unavailable``,
    ``IdeaTimeout``, ``HostUnreachable`` when the test itself fails)."""
    result = await run_command(conn, host, f"test -d {shlex.quote(host.root)}", limit=4096)
    if result.exit_status == 1:
        raise NotFound(
            f"host '{host.name}': no folder {host.root} there (hosts.{host.name}.root names the "
            "checkout agents work in)"
        )
    if result.exit_status != 0:
        raise Unavailable(
            f"host '{host.name}': cannot check {host.root} (exit status {result.exit_status}: "
            f"{_last_line(result.stderr)})"
        )


async def forward_socket(
    conn: asyncssh.SSHClientConnection, host: Host, remote_path: str, local_path: str
) -> asyncssh.SSHListener:
    """Forward the Unix socket ``remote_path`` the host's sshd makes to the endpoint
    ``local_path`` here (a Unix socket, or on Windows a named pipe: each connection is relayed,
    ``local_stream.py``); the caller closes the listener. Raises ``ForwardingRefused``,
    ``HostUnreachable``."""

    async def joined(reader: asyncssh.SSHReader[bytes], writer: asyncssh.SSHWriter[bytes]) -> None:
        try:
            local = await open_local_stream(local_path)
        except OSError:
            writer.close()  # the project closed meanwhile: the host's bridge says so
            return
        await relay((reader, writer), local)

    with ssh_errors(host, "forward a Unix socket", conn):
        try:
            listener = await conn.start_unix_server(lambda: joined, remote_path)
        except asyncssh.ChannelListenError as exc:
            raise ForwardingRefused(
                f"host '{host.name}': its SSH server refused to forward a Unix socket "
                f"({exc}); remote agents need it to reach the project: set "
                "`AllowStreamLocalForwarding yes` in its sshd_config",
                host=host.name,
                address=host.endpoint,
            ) from exc
    if listener is None:  # asyncssh's other way of saying the server refused
        raise ForwardingRefused(
            f"host '{host.name}': its SSH server refused to forward a Unix socket; remote agents "
            "need it to reach the project: set `AllowStreamLocalForwarding yes` in its "
            "sshd_config",
            host=host.name,
            address=host.endpoint,
        )
    return listener


async def check_forwarding(conn: asyncssh.SSHClientConnection, host: Host) -> None:
    """Open and close a Unix-socket forwarding from a fresh path on the host. Raises
    ``ForwardingRefused``, ``HostUnreachable``."""
    token = os.urandom(12).hex()
    remote_path = f"/tmp/idea-check-{token}.sock"
    local = Path(tempfile.gettempdir()) / f"idea-check-{token}.sock"  # never made: no peer
    listener = await forward_socket(conn, host, remote_path, str(local))
    listener.close()
    await listener.wait_closed()
    with contextlib.suppress(IdeaError):
        await run_command(conn, host, f"rm -f {shlex.quote(remote_path)}", limit=4096)


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    last = lines[-1] if lines else "nothing printed"
    return last if len(last) <= 200 else last[:199] + "…"
