"""Hosts: the other machines agents may run on, over SSH (DESIGN.md §16).

``hosts.json`` (per user, in IdeA's config folder) reads ``{"version": 1, "hosts": {"<name>":
{"ssh": "user@host[:port]", "identity_file": null, "root": "<remote checkout>", "idea":
"idea"}}}``. Invariant: a ``Host`` only exists once every field is known, typed and bounded;
anything else is ``Invalid`` naming its field (``hosts.<name>.ssh``…), so a typo is pointed at
rather than guessed around. Pure: nothing here touches the network or the disk.
"""

from __future__ import annotations

import ipaddress
import ntpath
import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass

from idea.domain.errors import HostIdeaVersion, Invalid, NotFound
from idea.domain.json_types import JsonObject, JsonValue
from idea.domain.names import validate_slug

FILE_VERSION = 1
DEFAULT_PORT = 22
DEFAULT_IDEA = "idea"
MAX_HOSTS = 256
MAX_SSH = 320  # a user (64), an address (253), a port and the separators
MAX_PATH = 4096
MAX_COMMAND = 1024
ENTRY_KEYS = ("ssh", "identity_file", "root", "idea")

# Login names as sshd takes them: POSIX names, with dots and '@' (``first.last``, a directory's
# ``user@domain``); never starting with '-', so no tool can read one as an option.
_USER_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._@-]{0,63}")
# DNS names, IPv4 addresses and ~/.ssh/config aliases: dot-separated labels of letters, digits,
# '-' and '_', none empty, none starting with '-'.
_LABEL_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]{0,62}")
_PORT_RE = re.compile(r"[0-9]{1,5}")
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True, slots=True, kw_only=True)
class Host:
    """One entry of ``hosts.json``. ``address`` is bare (an IPv6 one without brackets);
    ``user`` None: the one ``~/.ssh/config`` names, else the local user's name (as ``ssh``);
    ``idea`` is a command line the host's shell runs (``~/.local/bin/idea``)."""

    name: str
    user: str | None
    address: str
    port: int = DEFAULT_PORT
    identity_file: str | None = None
    root: str
    idea: str = DEFAULT_IDEA

    def __post_init__(self) -> None:
        """The same rules as ``parse_host``, so that no ``Host`` escapes them (tests, callers)."""
        where = _entry_field(self.name)
        if self.user is not None:
            _check_user(self.user, f"{where}.ssh")
        _check_address(self.address, f"{where}.ssh")
        if isinstance(self.port, bool) or not 1 <= self.port <= 65535:
            raise Invalid(f"{where}.ssh: port {self.port!r} is not 1-65535", field=f"{where}.ssh")
        _identity_file(self.identity_file, f"{where}.identity_file")
        _root(self.root, f"{where}.root")
        _idea(self.idea, f"{where}.idea")

    @property
    def ssh_target(self) -> str:
        """``user@address[:port]`` as written in ``hosts.json`` (``[::1]`` in brackets; the port
        only when it is not 22)."""
        address = f"[{self.address}]" if ":" in self.address else self.address
        user = f"{self.user}@" if self.user else ""
        port = f":{self.port}" if self.port != DEFAULT_PORT else ""
        return f"{user}{address}{port}"

    @property
    def endpoint(self) -> str:
        """``address:port`` (IPv6 in brackets), the place connection errors name."""
        address = f"[{self.address}]" if ":" in self.address else self.address
        return f"{address}:{self.port}"

    def to_json(self) -> JsonObject:
        return {
            "ssh": self.ssh_target,
            "identity_file": self.identity_file,
            "root": self.root,
            "idea": self.idea,
        }


def parse_hosts(raw: JsonValue) -> dict[str, Host]:
    """The hosts of a decoded ``hosts.json``, by name. Raises ``Invalid`` naming the field."""
    if not isinstance(raw, dict):
        raise Invalid("hosts.json must hold a JSON object", field="hosts")
    unknown = sorted(set(raw) - {"version", "hosts"})
    if unknown:
        raise Invalid(
            f"hosts.json: unknown field {_shown(unknown[0])} (known: version, hosts)",
            field=_bounded(unknown[0]),
        )
    version = raw.get("version", FILE_VERSION)
    if version != FILE_VERSION or isinstance(version, bool):
        raise Invalid(
            f"hosts.json: version {_shown(version)} is not one this IdeA reads ({FILE_VERSION})",
            field="version",
        )
    entries = raw.get("hosts", {})
    if not isinstance(entries, dict):
        raise Invalid("hosts.json: 'hosts' must be an object of name → host", field="hosts")
    if len(entries) > MAX_HOSTS:
        raise Invalid(f"hosts.json: more than {MAX_HOSTS} hosts", field="hosts")
    return {name: parse_host(name, entry) for name, entry in entries.items()}


def parse_host(name: str, entry: JsonValue) -> Host:
    """One entry of ``hosts``. Raises ``Invalid`` naming the field (``hosts.<name>.<key>``)."""
    where = _entry_field(name)
    if not isinstance(entry, dict):
        raise Invalid(f"{where} must be an object with 'ssh' and 'root'", field=where)
    for key in entry:
        if key not in ENTRY_KEYS:
            raise Invalid(
                f"{where}: unknown field {_shown(key)} (known: {', '.join(ENTRY_KEYS)})",
                field=f"{where}.{_bounded(key)}",
            )
    user, address, port = parse_ssh(entry.get("ssh"), f"{where}.ssh")
    return Host(
        name=name,
        user=user,
        address=address,
        port=port,
        identity_file=_identity_file(entry.get("identity_file"), f"{where}.identity_file"),
        root=_root(entry.get("root"), f"{where}.root"),
        idea=_idea(entry.get("idea", DEFAULT_IDEA), f"{where}.idea"),
    )


def _entry_field(name: str) -> str:
    """``hosts.<name>``, once ``name`` is a valid host name (an agent name's rules)."""
    try:
        validate_slug(name, "host name")
    except Invalid as exc:
        raise Invalid(f"hosts.json: {exc.message}", field="hosts") from None
    return f"hosts.{name}"


def parse_ssh(value: JsonValue, field: str = "ssh") -> tuple[str | None, str, int]:
    """``(user, address, port)`` of ``user@host``, ``host``, ``host:port``, ``user@[::1]:2222``.
    Raises ``Invalid`` (``field``)."""
    text = _text(value, field, MAX_SSH, "an SSH target like user@host or user@host:2222")
    user: str | None = None
    if "@" in text:
        user, _, text = text.rpartition("@")
        _check_user(user, field)
    address, port = _address_and_port(text, field)
    return user, address, port


def _check_user(user: str, field: str) -> None:
    if _USER_RE.fullmatch(user) is None:
        raise Invalid(
            f"{field}: user {_shown(user)} is not a login name (letters, digits, '.', '_', "
            "'-', '@'; at most 64, not starting with '-')",
            field=field,
        )


def _check_address(address: str, field: str) -> None:
    """A bare address: IPv6 (it has a ':'), else a host name, an IPv4 address or an alias."""
    if ":" in address:
        try:
            ipaddress.IPv6Address(address)
        except ValueError:
            raise Invalid(
                f"{field}: {_shown(address)} is not an IPv6 address", field=field
            ) from None
        return
    labels = address.split(".")
    if len(address) > 253 or not all(_LABEL_RE.fullmatch(label) for label in labels):
        raise Invalid(
            f"{field}: {_shown(address)} is not a host name or address (letters, digits, "
            "'-', '_' and dots; not starting with '-')",
            field=field,
        )


def _address_and_port(text: str, field: str) -> tuple[str, int]:
    port_text: str | None = None
    if text.startswith("["):
        inner, bracket, rest = text[1:].partition("]")
        if not bracket or (rest and not rest.startswith(":")):
            raise Invalid(f"{field}: write an IPv6 address as [::1] or [::1]:2222", field=field)
        address, port_text = inner, rest[1:] if rest else None
        if ":" not in address:
            raise Invalid(f"{field}: {_shown(address)} is not an IPv6 address", field=field)
    else:
        if text.count(":") > 1:
            raise Invalid(f"{field}: put an IPv6 address in brackets: [{text}]", field=field)
        address, colon, port_text_found = text.partition(":")
        port_text = port_text_found if colon else None
    _check_address(address, field)
    if port_text is None:
        return address, DEFAULT_PORT
    if _PORT_RE.fullmatch(port_text) is None or not 1 <= int(port_text) <= 65535:
        raise Invalid(f"{field}: port {_shown(port_text)} is not 1-65535", field=field)
    return address, int(port_text)


def _root(value: JsonValue, field: str) -> str:
    root = _text(value, field, MAX_PATH, "the absolute path of the checkout on the host")
    if not root.startswith("/"):
        raise Invalid(
            f"{field}: {_shown(root)} is not an absolute POSIX path (it starts with '/')",
            field=field,
        )
    return root


def _idea(value: JsonValue, field: str) -> str:
    command = _text(value, field, MAX_COMMAND, "the command that runs IdeA on the host")
    if command != command.strip():
        raise Invalid(f"{field}: no space before or after the command", field=field)
    return command


def _identity_file(value: JsonValue, field: str) -> str | None:
    if value is None:
        return None
    path = _text(value, field, MAX_PATH, "null or the path of a private key")
    home_relative = path.startswith(("~/", "~\\"))
    if not (home_relative or posixpath.isabs(path) or ntpath.isabs(path)):
        raise Invalid(
            f"{field}: {_shown(path)} must be absolute or start with ~/ (a relative path would "
            "depend on the folder IdeA started in)",
            field=field,
        )
    return path


def _text(value: JsonValue, field: str, limit: int, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise Invalid(f"{field} must be {what}, not {_shown(value)}", field=field)
    if len(value) > limit:
        raise Invalid(f"{field} is longer than {limit} characters", field=field)
    if _CONTROL_RE.search(value):
        raise Invalid(f"{field} holds a control character (a newline?)", field=field)
    return value


def unknown_host(name: str, known: Iterable[str], where: str = "hosts.json") -> NotFound:
    """The error for a host ``where`` (the file) does not configure, naming those it does."""
    names = sorted(known)
    configured = f"configured: {', '.join(names)}" if names else f"none is configured in {where}"
    return NotFound(f"no host named {_shown(name)} ({configured})")


def check_version(local: str, remote: str, host: str = "") -> None:
    """Raises ``HostIdeaVersion`` unless the host (``host``: its name) runs this IdeA's version:
    the relay and the app speak one protocol, versioned as the package is."""
    if remote == local:
        return
    on = f"host '{host}'" if host else "the host"
    raise HostIdeaVersion(
        f"{on} runs IdeA {_bounded(remote, 64)} and this one is {local}: install IdeA {local} "
        f"there (the same version on both sides), or point hosts.{host or '<name>'}.idea at one",
        host=host,
        local_version=local,
        remote_version=_bounded(remote, 64),
    )


def _bounded(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _shown(value: object) -> str:
    return _bounded(repr(value))
