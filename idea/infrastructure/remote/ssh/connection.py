"""Opening an SSH connection to a host (DESIGN.md §16) as OpenSSH would, on asyncssh.

Invariants:
- a host key is trusted only when a known_hosts entry names it (the user's files, as OpenSSH's
  ``UserKnownHostsFile`` says, ``~/.ssh/known_hosts`` by default): an unknown key is refused with
  its fingerprint and how to accept it, a changed one is refused naming the entry it contradicts.
  Not even ``UserKnownHostsFile none`` in ``~/.ssh/config`` turns the check off;
- IdeA logs in with keys only (``identity_file``, else what ``~/.ssh/config`` names or the default
  ``~/.ssh/id_*``; the ssh-agent's keys when ``SSH_AUTH_SOCK`` is set): no password nor
  keyboard-interactive prompt, which a window cannot answer, and the agent is never forwarded;
- asyncssh's and the OS's errors while connecting are translated here, once, into the
  ``IdeaError`` tree: ``HostKeyUnknown``, ``HostKeyChanged``, ``AuthRefused``,
  ``HostUnreachable`` (an open connection's are ``channels.ssh_errors``'s).
"""

from __future__ import annotations

import os
import shlex
import socket
from collections.abc import Sequence

import asyncssh

from idea.domain.errors import (
    AuthRefused,
    HostKeyChanged,
    HostKeyUnknown,
    HostUnreachable,
    IdeaError,
    Invalid,
)
from idea.domain.host import DEFAULT_PORT, Host
from idea.infrastructure.remote.ssh.known_hosts import entries_for, read_entries

CONNECT_TIMEOUT_S = 15.0
DEFAULT_KNOWN_HOSTS = "~/.ssh/known_hosts"


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
