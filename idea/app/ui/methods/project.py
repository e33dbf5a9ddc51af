"""The UI's methods on the project as a whole: which one is open, its trust, its delegation
policy, its profiles, the user's hosts, and ``idea doctor`` on them."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Annotated, TypedDict

from idea.app.doctor import DoctorRow
from idea.app.terminals.streams import TerminalViews
from idea.app.ui.context import UiContext
from idea.app.ui.params import NoParams, custom, opt_version
from idea.app.ui.rows import (
    PolicyInfo,
    ProfileRow,
    ProjectInfo,
    RecentProject,
    TrustInfo,
    is_dir,
    policy_json,
    profile_row,
    project_json,
    trust_json,
)
from idea.domain.errors import Invalid, MissingField, Unavailable
from idea.domain.json_types import JsonObject
from idea.infrastructure.processes.executables import detect_all


@dataclass(frozen=True, slots=True)
class OpenParams:
    path: str


def _policy_changes(p: JsonObject, key: str) -> JsonObject:
    changes = p.get(key)
    if not isinstance(changes, dict):
        raise MissingField(key) if changes is None else Invalid("policy must be an object")
    return changes


@dataclass(frozen=True, slots=True)
class PolicySetParams:
    """Some fields of ``policy.json`` (``PolicyJson``'s), and the ``version`` they were made on."""

    policy: JsonObject = custom(_policy_changes, "Partial<Policy>", required=True)
    version: str | None = custom(lambda p, _: opt_version(p), "string", required=False)


class HostRow(TypedDict):
    name: str
    ssh: str
    root: str


def project_info(ctx: UiContext, _: TerminalViews, __: NoParams) -> ProjectInfo:
    return project_json(ctx.rt)


def project_recent(ctx: UiContext, _: TerminalViews, __: NoParams) -> list[RecentProject]:
    recent = ctx.host.recent
    current = str(ctx.s.paths.root)
    return [
        {
            "root": entry.root,
            "name": entry.name,
            "opened_at_ms": entry.opened_at_ms,
            "current": entry.root == current,
            "exists": is_dir(entry.root),
        }
        for entry in (recent.all() if recent is not None else [])
    ]


async def project_open(ctx: UiContext, _: TerminalViews, p: OpenParams) -> ProjectInfo:
    """Closes the current project once the other one is open (``ProjectOpened`` is pushed)."""
    runtime = await ctx.host.switch(p.path)
    return project_json(runtime)


async def trust_get(ctx: UiContext, _: TerminalViews, __: NoParams) -> TrustInfo:
    # The repository's hooks are listed by git: not on the event loop.
    return await asyncio.to_thread(trust_json, ctx.rt)


async def trust_grant(ctx: UiContext, _: TerminalViews, __: NoParams) -> TrustInfo:
    """The user trusts the project as it is now; what it would run starts
    (``ProjectTrustChanged`` is pushed)."""
    await ctx.rt.trust()
    return await asyncio.to_thread(trust_json, ctx.rt)


def policy_get(ctx: UiContext, _: TerminalViews, __: NoParams) -> PolicyInfo:
    return policy_json(ctx.rt)


def policy_set(ctx: UiContext, _: TerminalViews, p: PolicySetParams) -> PolicyInfo:
    """Changes some fields of ``.ideai/policy.json``; raises ``Invalid`` naming a bad one,
    ``Conflict`` when ``version`` (from ``policy.get``) is not the file's any more."""
    ctx.s.policy.save(ctx.s.policy.current().changed(p.policy), p.version)
    return policy_json(ctx.rt)


async def profiles_list(ctx: UiContext, _: TerminalViews, __: NoParams) -> list[ProfileRow]:
    profiles = ctx.s.profiles.all()
    # Looking a CLI up on PATH touches the disk (and walks npm folders on Windows).
    detected = await asyncio.to_thread(detect_all, profiles)
    return [
        profile_row(name, profile, detected[name]) for name, profile in sorted(profiles.items())
    ]


def hosts_list(ctx: UiContext, _: TerminalViews, __: NoParams) -> list[HostRow]:
    """The user's hosts (hosts.json), where an agent may run; raises ``Invalid`` naming the
    file and field when it cannot be read."""
    hosts = ctx.s.hosts.all()
    return [
        {"name": name, "ssh": host.ssh_target, "root": host.root}
        for name, host in sorted(hosts.items())
    ]


async def doctor_run(
    ctx: UiContext, _: TerminalViews, __: NoParams
) -> list[Annotated[JsonObject, DoctorRow]]:
    """``idea doctor`` on the current project's profiles, no model turn (DESIGN.md §17)."""
    if ctx.doctor is None:
        raise Unavailable("idea doctor is not available here")
    rows = await ctx.doctor(ctx.s.paths.root)
    return [row.to_json() for row in rows]
