"""The real CLIs installed the ways users install them, found by IdeA with its built-in profiles
(no command override), delegating to each other through IdeA, offline.

The SAME pinned versions as ``tests/real_cli/package.json``, from npm (its cache, filled by
``tests/real_cli/install.sh``, makes this quick): ``npm install -g --prefix`` (the global layout:
``<prefix>/bin/codex -> ../lib/node_modules/@openai/codex/bin/codex.js``), a local ``npm install``
with ``node_modules/.bin`` on PATH, and Claude Code's native-installer link ``~/.local/bin/claude``
(not on PATH). PATH holds only that install and the system's own folders.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.integration.test_real_delegation import World, delegate_once
from tests.real_cli import clis

PINNED = json.loads((clis.HERE / "package.json").read_text(encoding="utf-8"))["dependencies"]
PACKAGES = [f"{name}@{PINNED[name]}" for name in ("@openai/codex", "@anthropic-ai/claude-code")]
NEWER = [f"{name}@{PINNED[name]}" for name in ("@qwen-code/qwen-code", "opencode-ai")]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("npm") is None, reason="needs npm (apt-get install npm)"),
    pytest.mark.skipif(
        not clis.real_cli_available("claude"), reason=str(clis.missing_reason("claude"))
    ),
]


@pytest.fixture(scope="module")
def global_prefix(tmp_path_factory) -> Path:
    """`npm install -g --prefix <prefix> @openai/codex @anthropic-ai/claude-code`."""
    prefix = tmp_path_factory.mktemp("npm-global")
    clis.npm_install("-g", "--prefix", str(prefix), *PACKAGES, cwd=prefix)
    assert os.readlink(prefix / "bin" / "codex") == "../lib/node_modules/@openai/codex/bin/codex.js"
    return prefix


@pytest.fixture(scope="module")
def global_prefix_newer(tmp_path_factory) -> Path:
    """`npm install -g --prefix <prefix> @qwen-code/qwen-code opencode-ai`, install scripts run
    (OpenCode's postinstall copies its native binary over the ``bin/opencode.exe`` placeholder),
    with a Node 22 beside them as nvm lays it out (Qwen Code needs Node >= 22)."""
    prefix = tmp_path_factory.mktemp("npm-global-newer")
    clis.npm_install("-g", "--prefix", str(prefix), *NEWER, cwd=prefix)
    assert os.readlink(prefix / "bin" / "opencode") == (
        "../lib/node_modules/opencode-ai/bin/opencode.exe"
    )
    node = clis.node_executable()
    assert node is not None, clis.missing_reason("qwen")
    (prefix / "bin" / "node").symlink_to(node.resolve())
    return prefix


@pytest.fixture(scope="module")
def local_install(tmp_path_factory) -> Path:
    """`npm install @openai/codex @anthropic-ai/claude-code` in a folder of the user's."""
    folder = tmp_path_factory.mktemp("tools")
    (folder / "package.json").write_text('{"name": "tools", "private": true}', encoding="utf-8")
    clis.npm_install(*PACKAGES, cwd=folder)
    return folder / "node_modules" / ".bin"


@pytest.fixture
async def world_of(tmp_path):
    worlds: list[World] = []

    def make(installed) -> World:
        world = World(tmp_path, installed=installed)
        worlds.append(world)
        return world

    yield make
    for world in worlds:
        await world.close()
        assert world.problems == [], world.mock.describe()
        assert world.mock.errors == [], world.mock.describe()


@pytest.mark.timeout(240)
async def test_npm_global_codex_asks_npm_global_claude(world_of, global_prefix):
    world = world_of(lambda home: [global_prefix / "bin"])
    await delegate_once(world, "main", "codex", "reviewer", "claude")


@pytest.mark.timeout(240)
async def test_npm_global_claude_asks_npm_global_codex(world_of, global_prefix):
    world = world_of(lambda home: [global_prefix / "bin"])
    await delegate_once(world, "main", "claude", "architect", "codex")


@pytest.mark.timeout(240)
async def test_a_local_install_on_path_codex_asks_claude(world_of, local_install):
    world = world_of(lambda home: [local_install])
    await delegate_once(world, "main", "codex", "reviewer", "claude")


@pytest.mark.timeout(240)
async def test_claude_from_its_native_installer_off_path_asks_npm_codex(world_of, global_prefix):
    """The native installer links ~/.local/bin/claude to a versioned binary; a desktop session's
    PATH often lacks ~/.local/bin: IdeA looks there too."""

    def installed(home: Path) -> list[Path]:
        versions = home / ".local" / "share" / "claude" / "versions"
        versions.mkdir(parents=True)
        native = global_prefix / "lib" / "node_modules" / "@anthropic-ai" / "claude-code" / "bin"
        shutil.copy2(native / "claude.exe", versions / PINNED["@anthropic-ai/claude-code"])
        (home / ".local" / "bin").mkdir(parents=True)
        (home / ".local" / "bin" / "claude").symlink_to(
            versions / PINNED["@anthropic-ai/claude-code"]
        )
        codex_only = home / "codex-bin"
        codex_only.mkdir()
        (codex_only / "codex").symlink_to(global_prefix / "bin" / "codex")
        return [codex_only]

    world = world_of(installed)
    await delegate_once(world, "main", "claude", "architect", "codex")


@pytest.mark.timeout(300)
async def test_npm_global_qwen_asks_npm_global_opencode(world_of, global_prefix_newer):
    world = world_of(lambda home: [global_prefix_newer / "bin"])
    await delegate_once(world, "main", "qwen", "architect", "opencode")
