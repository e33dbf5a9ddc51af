"""Agents as Markdown files ``.ideai/agents/<name>.md``; the file name is the agent's name.

Writes are atomic. A file that cannot be read as an agent is moved aside and reported; the other
agents stay usable. A file without an ``id`` (written by hand) gets one, saved back at once, and so
does a copy of another agent's file (the same id twice): the older file keeps the id. IdeA's own
saves and renames hold one lock (``.ideai/run/edits.lock``); one given the version its edit was
made on refuses to replace a file changed since (``Conflict`` saying so, DESIGN.md §18).
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from idea.application.ports import Clock, CorruptionReporter, IdGenerator
from idea.domain.agent import Agent, AgentIdReassigned
from idea.domain.errors import Conflict, CorruptFile, NotFound
from idea.domain.names import is_slug, validate_slug
from idea.infrastructure.files.atomic import make_folder, write_atomic
from idea.infrastructure.files.file_version import check_unchanged, edit_lock, file_version
from idea.infrastructure.files.model_file import load_text_model
from idea.infrastructure.files.os_errors import os_error
from idea.infrastructure.stores.paths import ProjectPaths

log = logging.getLogger(__name__)

# How much older than a listing the folder's mtime must be for the listing to be kept while the
# mtime stays: more than the coarsest timestamp step of a file system (FAT: 2 s).
SETTLED_AFTER_NS = 3_000_000_000


def _ignore(_: object) -> None:
    pass


class MarkdownAgentStore:
    def __init__(
        self,
        paths: ProjectPaths,
        clock: Clock,
        ids: IdGenerator,
        report: CorruptionReporter = _ignore,
        reassigned: Callable[[AgentIdReassigned], None] = _ignore,
    ) -> None:
        self._paths = paths
        self._clock = clock
        self._ids = ids
        self._report = report
        self._reassigned = reassigned
        self._lock = paths.edits
        # Agents are read on every MCP call and UI refresh: parse a file again only when its
        # identity changed: inode (atomic writes replace the file), modification time or size.
        self._cache: dict[Path, tuple[tuple[int, int, int], Agent]] = {}
        # The folder's last listing and the agent files it names, made again when it changes.
        self._listing: list[tuple[str, bool]] | None = None
        self._listed: list[Path] = []
        # The folder's (inode, mtime) when it was listed, once that mtime was settled (see _files).
        self._settled: tuple[int, int] | None = None

    def all(self) -> list[Agent]:
        agents: dict[Path, Agent] = {}
        for path in self._files():
            try:
                agent = self._read(path)
            except CorruptFile as exc:
                self._report(exc)
                continue
            if agent is not None:
                agents[path] = agent
        if len({agent.id for agent in agents.values()}) < len(agents):
            self._separate_copies(agents)
        return list(agents.values())

    def get(self, name: str) -> Agent:
        validate_slug(name, "agent name")
        agent = self._read(self._paths.agent_file(name))
        if agent is None:
            raise NotFound(f"no agent named '{name}'")
        return agent

    def get_versioned(self, name: str) -> tuple[Agent, str]:
        """The agent and the version of its file. Read again after the version (and after any
        id written back), so a change in between makes the version older than the agent, never
        newer: a save on it is refused, never silently lost."""
        self.get(name)  # a file given an id is rewritten here, before its version is taken
        version = file_version(self._paths.agent_file(name))
        return self.get(name), version

    def get_by_id(self, agent_id: str) -> Agent:
        for agent in self.all():
            if agent.id == agent_id:
                return agent
        raise NotFound(f"no agent with id '{agent_id}'")

    def exists(self, name: str) -> bool:
        return is_slug(name) and self._paths.agent_file(name).is_file()

    def save(self, agent: Agent, expected_version: str | None = None) -> None:
        path = self._paths.agent_file(agent.name)
        data = agent.to_markdown().encode("utf-8")
        with edit_lock(self._lock):
            check_unchanged(path, expected_version, data)
            if path.is_file():
                current = self._read(path)
                if current is not None and current.id != agent.id:
                    raise Conflict(f"an agent named '{agent.name}' already exists")
            make_folder(path.parent)
            write_atomic(path, data)

    def rename(self, old_name: str, new_name: str, expected_version: str | None = None) -> Agent:
        agent = self.get(old_name)
        validate_slug(new_name, "agent name")
        if new_name == old_name:
            return agent
        renamed = agent.renamed(new_name)
        with edit_lock(self._lock):
            old = self._paths.agent_file(old_name)
            check_unchanged(old, expected_version, renamed.to_markdown().encode("utf-8"))
            if self.exists(new_name):
                raise Conflict(f"an agent named '{new_name}' already exists")
            # New file first: a crash in between leaves two copies (same id), never zero.
            write_atomic(self._paths.agent_file(new_name), renamed.to_markdown())
            self._unlink(old)
        return renamed

    def delete(self, name: str) -> None:
        validate_slug(name, "agent name")
        path = self._paths.agent_file(name)
        if not path.is_file():
            raise NotFound(f"no agent named '{name}'")
        self._unlink(path)

    def _separate_copies(self, agents: dict[Path, Agent]) -> None:
        """Each id once: the oldest file (then the first name) keeps it, the others get new ids."""
        holders: dict[str, Agent] = {}
        for path in sorted(agents, key=lambda path: (_mtime_ns(path), path.name)):
            agent = agents[path]
            original = holders.setdefault(agent.id, agent)
            if original is agent:
                continue
            copy = replace(agent, id=self._ids.new_id())
            write_atomic(path, copy.to_markdown())
            self._cache.pop(path, None)
            agents[path] = holders[copy.id] = copy
            notice = AgentIdReassigned(copy.name, original.name, agent.id, copy.id)
            log.warning("%s", notice.message)
            self._reassigned(notice)

    def _files(self) -> list[Path]:
        """The agent files, in name order (the same list while the listing is the same).

        A file added, removed or renamed sets the folder's mtime to the time of the change, so a
        folder whose (inode, mtime) is the one it had when listed holds the same files, provided
        that mtime was older than the listing by more than a file system's timestamp step (as
        git trusts its index): a change made after the listing then has a later mtime. Until
        then the folder is listed again at each call."""
        folder = self._paths.agents
        try:
            seen = os.stat(folder)
            if (seen.st_ino, seen.st_mtime_ns) == self._settled:
                return self._listed
            listed_at_ns = self._clock.now_ms() * 1_000_000
            # DirEntry knows a file's type from the listing itself: no stat per agent here.
            entries = sorted(
                (entry.name, entry.is_file())
                for entry in os.scandir(folder)
                if entry.name.endswith(".md")
            )
        except FileNotFoundError:
            self._settled = None
            return []
        except OSError as exc:
            raise os_error("list", folder, exc) from exc
        settled = seen.st_mtime_ns < listed_at_ns - SETTLED_AFTER_NS
        self._settled = (seen.st_ino, seen.st_mtime_ns) if settled else None
        if entries != self._listing:
            self._listed = self._agent_files(entries)
            self._listing = entries
        return self._listed

    def _agent_files(self, entries: list[tuple[str, bool]]) -> list[Path]:
        files = []
        for name, regular in entries:
            if not is_slug(name[:-3]):
                log.warning("ignoring %s: the file name is not a valid agent name", name)
            elif not regular:  # a folder (or a FIFO) named like an agent is no agent
                log.warning("ignoring %s: not a regular file", name)
            else:
                files.append(self._paths.agents / name)
        return files

    def _read(self, path: Path) -> Agent | None:
        try:
            stat = path.stat()
        except FileNotFoundError:
            self._cache.pop(path, None)
            return None
        except OSError as exc:
            raise os_error("read", path, exc) from exc
        cached = self._cache.get(path)
        if cached is not None and cached[0] == _identity(stat):
            return cached[1]
        agent = self._parse(path)
        if agent is not None:
            with contextlib.suppress(OSError):
                stat = path.stat()  # a file given an id was rewritten
                self._cache[path] = (_identity(stat), agent)
        return agent

    def _parse(self, path: Path) -> Agent | None:
        new_id = self._ids.new_id()
        agent = load_text_model(
            path, lambda text: Agent.from_markdown(path.stem, text, new_id), self._clock.now_ms
        )
        if agent is not None and agent.id == new_id:
            write_atomic(path, agent.to_markdown())
        return agent

    @staticmethod
    def _unlink(path: Path) -> None:
        try:
            path.unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise os_error("delete", path, exc) from exc


def _mtime_ns(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:  # gone since the listing: sorted first, and reading it says the rest
        return 0


def _identity(stat: os.stat_result) -> tuple[int, int, int]:
    return stat.st_ino, stat.st_mtime_ns, stat.st_size
