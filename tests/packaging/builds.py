"""The packaged builds under test and what their tests share (DESIGN.md §10).

``make package`` -> ``dist/idea/idea`` (one folder); ``make appimage`` ->
``dist/IdeA-x86_64.AppImage``. A test of a build that is absent skips, naming the command that
makes it, unless ``IDEA_REQUIRE_PACKAGE=1`` (CI sets it after building): then it fails.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from idea.app.runtime import ProjectRuntime
from tests.mcp_clients import declared_bridge

ROOT = Path(__file__).resolve().parents[2]
FROZEN = ROOT / "dist" / "idea" / ("idea.exe" if sys.platform == "win32" else "idea")
APPIMAGE = ROOT / "dist" / "IdeA-x86_64.AppImage"
REQUIRE_ENV = "IDEA_REQUIRE_PACKAGE"

INITIALIZE = (
    json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "idea-test", "version": "0"},
            },
        }
    ).encode()
    + b"\n"
)


def require_build(path: Path, make_target: str) -> Path:
    """``path`` if it exists; else skip (local development) or fail (``IDEA_REQUIRE_PACKAGE=1``)."""
    if path.is_file():
        return path
    how = f"run `make {make_target}`; `make test` builds it"
    if shutil.which("objdump") is None:
        how = "apt-get install binutils, then `make test` builds it"
    reason = f"no packaged build at {path} ({how})"
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{reason}; {REQUIRE_ENV}=1 requires it")
    pytest.skip(reason)


# What would make a packaged build lean on the source tree, or believe it runs inside another
# AppImage (the AppImage runtime sets these for the processes it starts).
NOT_INHERITED = ("PYTHONPATH", "PYTHONHOME", "APPIMAGE", "APPDIR", "ARGV0", "OWD")


def without_source(env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k not in NOT_INHERITED}


def packaged_env(**extra: str) -> dict[str, str]:
    """This process's environment for a packaged build, plus ``extra``."""
    return {**without_source(dict(os.environ)), **extra}


def bridge_argv(runtime: ProjectRuntime, executable: Path, requester: str) -> list[str]:
    """IdeA's own declaration, with ``executable`` in place of ``python -m idea``."""
    entry = declared_bridge(runtime, requester)
    args = list(entry.args)
    assert args[:3] == ["-m", "idea", "mcp-server"]  # the tests run from source
    return [str(executable), *args[2:]]


def text_of(result) -> str:
    return "".join(block.text for block in result.content if block.type == "text")


async def ask_through_the_sdk(argv: list[str], env: dict[str, str]) -> None:
    """The official SDK client drives the bridge at ``argv``: initialize, list the tools, ask
    the fake agent ``helper`` (it answers ``echo: <task>``)."""
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=env)
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write) as session,
    ):
        init = await session.initialize()
        assert init.server_info.name == "idea"
        tools = {tool.name for tool in (await session.list_tools()).tools}
        assert {"idea_list_agents", "idea_ask_agent"} <= tools
        answer = await session.call_tool("idea_ask_agent", {"target": "helper", "task": "hi"})
        assert not answer.is_error
        assert text_of(answer) == "echo: hi"
