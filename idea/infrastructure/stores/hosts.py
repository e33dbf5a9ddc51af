"""The SSH hosts this user set up (DESIGN.md §16), in ``hosts.json`` beside
``recent-projects.json`` in the user's config folder (never in a project: a clone cannot point
IdeA at a machine).

Invariant: the file is the user's, edited by hand; IdeA reads it (at most ``MAX_BYTES``, a
regular file only) and writes it only through ``save`` (atomic, 0600). An unusable file is
reported, never moved aside nor rewritten: ``Invalid`` names the file and, when it can, the field
(``hosts.lab.ssh``) or the line and column of a JSON syntax error. No file: no host.
"""

from __future__ import annotations

import codecs
from collections.abc import Mapping
from pathlib import Path

from idea.domain.errors import Invalid
from idea.domain.host import FILE_VERSION, Host, parse_hosts, unknown_host
from idea.domain.json_types import JsonObject
from idea.infrastructure.files.atomic import make_folder, read_bytes
from idea.infrastructure.files.json_document import JsonDocument, decode_object
from idea.infrastructure.files.model_file import ChangeCache
from idea.infrastructure.stores.recent_projects import user_config_dir

FILE_NAME = "hosts.json"
MAX_BYTES = 1024 * 1024  # 256 hosts of a few hundred bytes each fit many times over


class JsonHostStore:
    """Adapter of ``HostStore``; raises ``Invalid`` (an unusable file) and ``Internal`` (I/O, not a
    regular file, larger than ``MAX_BYTES``)."""

    def __init__(self, path: Path | None = None) -> None:
        self._doc = JsonDocument(path or user_config_dir() / FILE_NAME, mode=0o600, shared=True)
        # Read again only once the file changed: a host is looked up at each remote launch.
        self._cache: ChangeCache[dict[str, Host]] = ChangeCache(self._doc.path)

    @property
    def path(self) -> Path:
        return self._doc.path

    def all(self) -> dict[str, Host]:
        hosts = self._cache.get(self._load)
        return dict(hosts) if hosts is not None else {}

    def get(self, name: str) -> Host:
        """Raises ``NotFound`` naming the hosts the file configures, ``Invalid``, ``Internal``."""
        hosts = self.all()
        if name not in hosts:
            raise unknown_host(name, hosts, str(self.path))
        return hosts[name]

    def save(self, hosts: Mapping[str, Host]) -> None:
        """Replace the file with exactly ``hosts`` (atomic, 0600). Raises ``Internal``."""
        entries: JsonObject = {name: hosts[name].to_json() for name in sorted(hosts)}
        make_folder(self.path.parent)
        self._doc.save({"version": FILE_VERSION, "hosts": entries})

    def _load(self) -> dict[str, Host]:
        data = read_bytes(self.path, MAX_BYTES)
        if data is None:
            return {}
        # Notepad saves UTF-8 with a byte order mark; json refuses one.
        decoded = decode_object(data.removeprefix(codecs.BOM_UTF8))
        if isinstance(decoded, str):
            raise Invalid(f"{self.path} could not be read: {decoded}")
        try:
            return parse_hosts(decoded)
        except Invalid as exc:
            raise Invalid(f"{self.path}: {exc.message}", field=exc.field) from None
