"""Two agents of the REAL Claude Code, each in its own worktree, offline against the scripted
model: the model answers with a Write tool call (the profile lets Claude edit files), the file is
written in the agent's worktree and not in the project; agent.changes lists it with its diff;
agent.merge brings the first into the project's branch; the second, which wrote the same file
otherwise, is a CONFLICT with the project untouched; agent.discard takes it back to its base."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from idea.app.bootstrap import default_starter, open_project, project_services
from idea.domain import commands as c
from idea.domain.agent import Agent, Workspace
from idea.domain.errors import Conflict
from idea.domain.profile import Mode
from tests.git_repos import git
from tests.integration.test_real_delegation import offline_environment
from tests.real_cli import clis
from tests.real_cli.mock_model import MockModel, Request, ToolCall, last_prompt, last_tool_result

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("git") is None, reason="needs git"),
    pytest.mark.skipif(
        not clis.real_cli_available("claude"), reason=str(clis.missing_reason("claude"))
    ),
]

ORDER = re.compile(r"WRITE (\S+) (\S+) SAYING (\S+)")


def respond(request: Request):
    """ "WRITE <folder> <file> SAYING <word>": a Write call, then a one-line answer."""
    order = ORDER.search(last_prompt(request))
    if order is None:
        return "nothing to do"
    if last_tool_result(request) is None:
        folder, name, word = order.groups()
        return ToolCall("Write", {"file_path": f"{folder}/{name}", "content": f"{word}\n"})
    return f"wrote {order.group(2)}"


@pytest.mark.timeout(180)
async def test_real_claude_agents_write_in_their_worktrees_then_merge_conflict_discard(tmp_path):
    mock = MockModel(respond=respond).start()
    try:
        env = offline_environment(mock, tmp_path)
        project = tmp_path / "project"
        (project / "README.md").write_text("hello\n", encoding="utf-8")
        git(project, "init", "-q", "-b", "main")
        services = project_services(project)
        profiles = {
            "profiles": {
                # The team's: Claude may edit files without asking (its own option).
                "claude": {"command": ["claude", "--permission-mode=acceptEdits"]},
            }
        }
        services.paths.profiles.write_text(json.dumps(profiles), encoding="utf-8")
        services.trust.grant()
        for name in ("dev", "qa"):
            services.agents.save(
                Agent(
                    id=f"id-{name}",
                    name=name,
                    profile="claude",
                    mode=Mode.STRUCTURED,
                    workspace=Workspace.WORKTREE,
                    context=f"You are {name}.",
                )
            )
        git(project, "add", "-A")
        git(project, "commit", "-q", "-m", "start")
        head = git(project, "rev-parse", "HEAD")
        starter = default_starter(services, with_mcp=True, base_env=env)
        runtime = await open_project(project, starter=starter, resume=False, file_door=False)
        try:
            trees = {n: project / ".ideai" / "worktrees" / n for n in ("dev", "qa")}
            for name, word in (("dev", "alpha"), ("qa", "beta")):
                task = f"WRITE {trees[name]} notes.md SAYING {word}"
                out = await runtime.orchestrator.dispatch(c.AskAgent(name, task), c.Source.UI)
                assert out.reply == "wrote notes.md", mock.describe()
                assert (trees[name] / "notes.md").read_text(encoding="utf-8") == f"{word}\n"
            assert not (project / "notes.md").exists()

            async def do(command):
                return await runtime.orchestrator.dispatch(command, c.Source.FILE)

            changes = (await do(c.AgentChanges("dev"))).data
            assert [(f["path"], f["status"], f["additions"]) for f in changes["files"]] == [
                ("notes.md", "added", 1)
            ]
            assert "+alpha" in changes["diff"]
            merged = (await do(c.MergeAgent("dev"))).data
            assert (merged["into"], merged["files"]) == ("main", 1)
            assert (project / "notes.md").read_text(encoding="utf-8") == "alpha\n"
            message = git(project, "log", "-2", "--format=%B")
            assert f"dev: WRITE {trees['dev']} notes.md SAYING alpha" in message

            merged_head = git(project, "rev-parse", "HEAD")
            with pytest.raises(Conflict) as err:
                await do(c.MergeAgent("qa"))
            assert "notes.md" in err.value.message
            assert git(project, "rev-parse", "HEAD") == merged_head
            assert (project / "notes.md").read_text(encoding="utf-8") == "alpha\n"

            await do(c.DiscardAgentChanges("qa"))
            assert not (trees["qa"] / "notes.md").exists()
            assert git(trees["qa"], "rev-parse", "HEAD") == head
        finally:
            await runtime.close()
    finally:
        mock.stop()
    assert mock.errors == [], mock.describe()
