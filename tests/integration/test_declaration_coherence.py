"""What each CLI is told to start (its MCP declaration) is exactly what the runtime serves.

The fake CLIs stand in for claude, codex and gemini on PATH; IdeA launches them as it would the
real ones. Equality is checked against the listener object itself, never a copy of the string.
"""

import json
import os
import sys
from pathlib import Path

import pytest

from idea.app.bootstrap import default_starter, open_project, project_services
from idea.application.launch_agent import LaunchRequest
from idea.domain.agent import Agent
from idea.domain.profile import Mode
from tests.paths import FAKE_CLIS

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="shell wrappers on PATH")


def fake_clis_on_path(tmp_path: Path) -> dict[str, str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("claude", "codex", "gemini"):
        wrapper = bin_dir / name
        wrapper.write_text(
            f'#!/bin/sh\nexec "{sys.executable}" "{FAKE_CLIS / f"{name}.py"}" "$@"\n',
            encoding="utf-8",
        )
        wrapper.chmod(0o755)
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text(
        json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}}), encoding="utf-8"
    )
    return {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "HOME": str(home),
        "CODEX_HOME": str(home / ".codex"),
        "FAKE_CODEX_LOG": str(tmp_path / "codex.log"),
    }


def args_value(args, flag):
    return args[args.index(flag) + 1]


@pytest.mark.timeout(60)
async def test_declarations_point_at_the_listener(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    env = fake_clis_on_path(tmp_path)
    services = project_services(project)
    for name in ("main", "architect", "critic"):
        profile = {"main": "claude", "architect": "codex", "critic": "gemini"}[name]
        services.agents.save(Agent(id=f"id-{name}", name=name, profile=profile))
    runtime = await open_project(
        project, starter=default_starter(services, with_mcp=True, base_env=env)
    )
    try:
        listener = runtime.listener
        assert listener is not None
        for name in ("main", "architect", "critic"):
            await runtime.launch(LaunchRequest(name, mode=Mode.STRUCTURED))
        paths = runtime.services.paths
        declared = {
            "claude": json.loads((paths.run_dir("main") / "mcp.json").read_text())["mcpServers"][
                "idea"
            ],
            "gemini": json.loads(
                (paths.run_dir("critic") / ".gemini" / "settings.json").read_text()
            )["mcpServers"]["idea"],
        }
        codex_log = [
            json.loads(line) for line in Path(env["FAKE_CODEX_LOG"]).read_text().splitlines()
        ]
        codex_config = next(entry for entry in codex_log if "mcp_servers" in json.dumps(entry))
        declared["codex"] = _find_server(codex_config)
        for cli, server in declared.items():
            args = server["args"]
            assert server["command"] == sys.executable, cli
            assert args[:3] == ["-m", "idea", "mcp-server"], cli
            assert args_value(args, "--endpoint") == listener.endpoint, cli
            assert args_value(args, "--project") == runtime.services.info.id, cli
            requester = args_value(args, "--requester")
            agent = runtime.services.agents.get_by_id(requester)
            key_file = (paths.run_dir(agent.name) / "mcp.key").resolve()
            assert Path(args_value(args, "--key-file")) == key_file, cli
        assert args_value(declared["claude"]["args"], "--requester") == "id-main"
        assert args_value(declared["codex"]["args"], "--requester") == "id-architect"
        assert args_value(declared["gemini"]["args"], "--requester") == "id-critic"
        assert declared["claude"]["alwaysLoad"] is True
        # The fake Codex really spawns the declared server (required=true): the bridge reached
        # the listener, proved the key and was accepted as architect.
        assert listener.accepted >= 1
    finally:
        await runtime.close()


def _find_server(entry):
    """The `idea` server table wherever the fake logged the thread config."""
    if isinstance(entry, dict):
        if "mcp_servers" in entry and "idea" in entry["mcp_servers"]:
            return entry["mcp_servers"]["idea"]
        for value in entry.values():
            found = _find_server(value)
            if found is not None:
                return found
    if isinstance(entry, list):
        for value in entry:
            found = _find_server(value)
            if found is not None:
                return found
    return None
