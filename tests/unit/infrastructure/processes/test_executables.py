"""Finding a CLI as users install it (DESIGN.md §17): npm launchers resolve to their package's
native binary or run under node; other links are run as found; installer folders off PATH count."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from idea.domain.errors import Unavailable
from idea.infrastructure.clis.mcp_list import run_mcp_list
from idea.infrastructure.processes import executables
from idea.infrastructure.processes.cli_process import CliProcess
from idea.infrastructure.processes.executables import resolve_executable, start_errors

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX symlinks and PATH")

ELF = b"\x7fELF\x02\x01\x01" + b"\x00" * 57


def executable(path, content=b"#!/bin/sh\n"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    path.chmod(0o755)
    return path


def package(root, name, bin_file, content=b"#!/usr/bin/env node\n"):
    """An npm package folder with its package.json and its bin script."""
    (root).mkdir(parents=True, exist_ok=True)
    (root / "package.json").write_text(f'{{"name": "{name}"}}', encoding="utf-8")
    return executable(root / bin_file, content)


def link(where, target):
    where.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(os.path.relpath(target, where.parent), where)
    return where


def codex_global(prefix, native=True):
    """`npm install -g --prefix <prefix> @openai/codex`: the layout npm makes."""
    pkg = prefix / "lib" / "node_modules" / "@openai" / "codex"
    script = package(pkg, "@openai/codex", "bin/codex.js")
    binary = None
    if native:
        key = executables._platform()
        triple = executables._CODEX_TRIPLES[key]
        plat = pkg / "node_modules" / "@openai" / f"codex-{key}"
        package(plat, f"@openai/codex-{key}", "package.json.keep", b"")
        binary = executable(plat / "vendor" / triple / "bin" / "codex", ELF)
    link(prefix / "bin" / "codex", script)
    return script, binary


def test_a_venv_python_is_run_through_its_link_not_the_interpreter_it_points_to(tmp_path):
    system = executable(tmp_path / "usr" / "bin" / "python3", ELF)
    venv_bin = tmp_path / "venv" / "bin"
    link(venv_bin / "python", system)
    found = resolve_executable("python", str(venv_bin), str(tmp_path))
    assert found.argv == (str(venv_bin / "python"),)


def test_npm_install_g_codex_runs_the_native_binary_its_package_ships(tmp_path):
    prefix = tmp_path / "prefix"
    _, binary = codex_global(prefix)
    found = resolve_executable("codex", str(prefix / "bin"), str(tmp_path))
    assert found.argv == (str(binary),)
    assert found.path == str(binary)
    assert "npm package @openai/codex" in found.via and "native" in found.via


def test_a_local_install_found_through_node_modules_bin_resolves_the_same_way(tmp_path):
    project = tmp_path / "tools"
    modules = project / "node_modules"
    script = package(modules / "@openai" / "codex", "@openai/codex", "bin/codex.js")
    key = executables._platform()
    plat = modules / "@openai" / f"codex-{key}"  # hoisted beside it, as a local install does
    package(plat, f"@openai/codex-{key}", "package.json.keep", b"")
    triple = executables._CODEX_TRIPLES[key]
    binary = executable(plat / "vendor" / triple / "bin" / "codex", ELF)
    link(modules / ".bin" / "codex", script)
    found = resolve_executable("codex", str(modules / ".bin"), str(tmp_path))
    assert found.argv == (str(binary),)


def test_a_launcher_without_a_native_binary_runs_under_the_node_beside_it(tmp_path):
    prefix = tmp_path / "prefix"
    script, _ = codex_global(prefix, native=False)
    node = executable(prefix / "bin" / "node", ELF)
    elsewhere = executable(tmp_path / "usr" / "bin" / "node", ELF)
    path = os.pathsep.join([str(prefix / "bin"), str(elsewhere.parent)])
    found = resolve_executable("codex", path, str(tmp_path))
    assert found.argv == (str(node), str(script))
    node.unlink()  # then the one on PATH
    assert resolve_executable("codex", path, str(tmp_path)).argv == (str(elsewhere), str(script))


def test_a_launcher_with_no_node_anywhere_is_unusable_and_says_why(tmp_path):
    prefix = tmp_path / "prefix"
    codex_global(prefix, native=False)
    found = resolve_executable("codex", str(prefix / "bin"), str(tmp_path))
    assert (found.path, found.argv) == (None, ())
    assert "no 'node' was found" in found.reason


def test_claude_from_npm_with_or_without_its_postinstall(tmp_path):
    prefix = tmp_path / "prefix"
    pkg = prefix / "lib" / "node_modules" / "@anthropic-ai" / "claude-code"
    placeholder = package(pkg, "@anthropic-ai/claude-code", "bin/claude.exe", b'echo "Error"\n')
    link(prefix / "bin" / "claude", placeholder)
    key = executables._platform() + ("-musl" if executables._is_musl() else "")
    plat = pkg / "node_modules" / "@anthropic-ai" / f"claude-code-{key}"
    package(plat, f"@anthropic-ai/claude-code-{key}", "package.json.keep", b"")
    native = executable(plat / "claude", ELF)
    bin_dir = str(prefix / "bin")
    # --ignore-scripts: the placeholder is still there; the platform package has the binary.
    assert resolve_executable("claude", bin_dir, str(tmp_path)).argv == (str(native),)
    placeholder.write_bytes(ELF)  # what the postinstall does: the binary copied over it
    assert resolve_executable("claude", bin_dir, str(tmp_path)).argv == (str(placeholder),)


def test_opencode_from_npm_with_or_without_its_postinstall(tmp_path):
    prefix = tmp_path / "prefix"
    modules = prefix / "lib" / "node_modules"
    placeholder = package(modules / "opencode-ai", "opencode-ai", "bin/opencode.exe", b"echo x\n")
    link(prefix / "bin" / "opencode", placeholder)
    os_name, arch = executables._platform().split("-")
    base = f"opencode-{os_name}-{arch}"
    # npm installs every platform package that fits (hoisted beside it): the baseline build
    # is taken only when the plain one is absent.
    baseline = package(modules / f"{base}-baseline", f"{base}-baseline", "bin/opencode", ELF)
    bin_dir = str(prefix / "bin")
    assert resolve_executable("opencode", bin_dir, str(tmp_path)).argv == (str(baseline),)
    plain = package(modules / base, base, "bin/opencode", ELF)
    found = resolve_executable("opencode", bin_dir, str(tmp_path))
    assert found.argv == (str(plain),)
    assert "npm package opencode-ai" in found.via and "native" in found.via
    placeholder.write_bytes(ELF)  # what the postinstall does: the binary copied over it
    assert resolve_executable("opencode", bin_dir, str(tmp_path)).argv == (str(placeholder),)


def test_claudes_native_installer_link_is_found_off_path(tmp_path):
    home = tmp_path / "home"
    version = executable(home / ".local" / "share" / "claude" / "versions" / "2.1.332", ELF)
    installed = link(home / ".local" / "bin" / "claude", version)
    found = resolve_executable("claude", str(tmp_path / "empty"), str(home))
    assert found.argv == (str(installed),)
    assert "not on PATH" in found.via


def test_nvm_installs_are_found_off_path_newest_node_first(tmp_path):
    home = tmp_path / "home"
    for version in ("v18.19.0", "v22.11.0", "v20.1.0"):
        codex_global(home / ".nvm" / "versions" / "node" / version)
    found = resolve_executable("codex", str(tmp_path / "empty"), str(home))
    assert "/v22.11.0/" in found.argv[0]


def test_a_shell_script_in_a_package_runs_as_itself(tmp_path):
    prefix = tmp_path / "prefix"
    script = package(prefix / "lib" / "node_modules" / "tool", "tool", "bin/tool", b"#!/bin/sh\n")
    link(prefix / "bin" / "tool", script)
    assert resolve_executable("tool", str(prefix / "bin"), str(tmp_path)).argv == (str(script),)


def test_a_missing_command_names_itself(tmp_path):
    found = resolve_executable("no-such-cli", str(tmp_path), str(tmp_path))
    assert (found.path, found.reason) == (None, "'no-such-cli' is not on PATH")


@pytest.mark.timeout(10)
def test_a_program_that_cannot_start_is_unavailable_naming_it(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-cli")
    with pytest.raises(Unavailable) as err, start_errors("the tool"):
        subprocess.run([missing], check=False)
    assert err.value.message == "cannot start the tool: No such file or directory"
    assert isinstance(err.value.__cause__, FileNotFoundError)


@pytest.mark.timeout(10)
async def test_every_way_of_starting_a_program_says_so_alike(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-cli")
    with pytest.raises(Unavailable, match=r"^cannot start qwen mcp list: No such file"):
        await run_mcp_list("qwen", [missing, "mcp", "list"], str(tmp_path), {}, 5)
    with pytest.raises(Unavailable, match=rf"^cannot start {re.escape(missing)}: No such file"):
        await CliProcess.start(
            [missing], cwd=str(tmp_path), env={}, on_stdout=lambda _: None, on_exit=lambda _: None
        )
