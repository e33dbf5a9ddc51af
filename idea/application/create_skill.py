"""``skill.create``: write a project skill, creating or replacing it."""

from __future__ import annotations

from idea.application.caller import Caller
from idea.application.ports import SkillStore
from idea.domain import commands as c
from idea.domain.errors import NotFound
from idea.domain.knowledge import Skill
from idea.domain.outcome import OrchestratorOutcome


async def create_skill(
    command: c.CreateSkill, _caller: Caller, *, skills: SkillStore
) -> OrchestratorOutcome:
    try:
        skills.get(command.name)
        verb = "updated"
    except NotFound:
        verb = "created"
    skills.save(Skill(command.name, command.description, command.body))
    return OrchestratorOutcome(f"skill {command.name} {verb}")
