"""The UI's methods on the project as a whole: which one is open, its trust, its delegation
policy, its profiles, the user's hosts, and ``idea doctor`` on them."""

from __future__ import annotations

import asyncio

from idea.app.terminal_stream import TerminalViews
from idea.app.ui.context import UiContext
from idea.app.ui.params import opt_version, text
from idea.app.ui.rows import (
    is_dir,
    policy_json,
    profile_row,
    project_json,
    trust_json,
)
from idea.domain.errors import Invalid, MissingField, Unavailable
from idea.domain.json_types import JsonObject, JsonValue
from idea.infrastructure.processes.executables import detect_all


def project_info(ctx: UiContext, _: TerminalViews, __: JsonObject) -> JsonValue:
    return project_json(ctx.rt)


def project_recent(ctx: UiContext, _: TerminalViews, __: JsonObject) -> JsonValue:
    recent = ctx.host.recent
    current = str(ctx.s.paths.root)
    rows: list[JsonValue] = []
    for entry in recent.all() if recent is not None else []:
        row = entry.to_json()
        rows.append({**row, "current": entry.root == current, "exists": is_dir(entry.root)})
    return rows


async def project_open(ctx: UiContext, _: TerminalViews, p: JsonObject) -> JsonValue:
    """Closes the current project once the other one is open (``ProjectOpened`` is pushed)."""
    runtime = await ctx.host.switch(text(p, "path"))
    return project_json(runtime)


async def trust_get(ctx: UiContext, _: TerminalViews, __: JsonObject) -> JsonValue:
    # The repository's hooks are listed by git: not on the event loop.
    return await asyncio.to_thread(trust_json, ctx.rt)


async def trust_grant(ctx: UiContext, _: TerminalViews, __: JsonObject) -> JsonValue:
    """The user trusts the project as it is now; what it would run starts
    (``ProjectTrustChanged`` is pushed)."""
    await ctx.rt.trust()
    return await asyncio.to_thread(trust_json, ctx.rt)


def policy_get(ctx: UiContext, _: TerminalViews, __: JsonObject) -> JsonValue:
    return policy_json(ctx.rt)


def policy_set(ctx: UiContext, _: TerminalViews, p: JsonObject) -> JsonValue:
    """Changes some fields of ``.ideai/policy.json``; raises ``Invalid`` naming a bad one,
    ``Conflict`` when ``version`` (from ``policy.get``) is not the file's any more."""
    changes = p.get("policy")
    if not isinstance(changes, dict):
        raise MissingField("policy") if changes is None else Invalid("policy must be an object")
    version = opt_version(p)
    ctx.s.policy.save(ctx.s.policy.current().changed(changes), version)
    return policy_json(ctx.rt)


async def profiles_list(ctx: UiContext, _: TerminalViews, __: JsonObject) -> JsonValue:
    profiles = ctx.s.profiles.all()
    # Looking a CLI up on PATH touches the disk (and walks npm folders on Windows).
    detected = await asyncio.to_thread(detect_all, profiles)
    rows: list[JsonValue] = [
        profile_row(name, profile, detected[name]) for name, profile in sorted(profiles.items())
    ]
    return rows


def hosts_list(ctx: UiContext, _: TerminalViews, __: JsonObject) -> JsonValue:
    """The user's hosts (hosts.json), where an agent may run; raises ``Invalid`` naming the
    file and field when it cannot be read."""
    hosts = ctx.s.hosts.all()
    return [
        {"name": name, "ssh": host.ssh_target, "root": host.root}
        for name, host in sorted(hosts.items())
    ]


async def doctor_run(ctx: UiContext, _: TerminalViews, __: JsonObject) -> JsonValue:
    """``idea doctor`` on the current project's profiles, no model turn (DESIGN.md §17)."""
    if ctx.doctor is None:
        raise Unavailable("idea doctor is not available here")
    rows = await ctx.doctor(ctx.s.paths.root)
    return [row.to_json() for row in rows]
