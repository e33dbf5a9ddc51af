"""Used by install.sh: print each real CLI's version, started the way the harness starts it.

Stdlib only (install.sh may run before the project's virtualenv exists). Exit 1 if a CLI is
missing or does not run. Also checks the MCP Inspector CLI the way
``tests/integration/doors/mcp/test_inspector.py`` starts it (``node <its bin> --cli``, Node >=
22.19).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root

from tests.real_cli import clis


def main() -> int:
    home = os.environ.get("SCRATCH_HOME") or str(clis.NODE_MODULES / ".version-home")
    env = {"HOME": home, "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"}
    failed = False
    for name in clis.CLI_NAMES:
        reason = clis.missing_reason(name)
        if reason:
            print(f"  {name}: MISSING - {reason}", file=sys.stderr)
            failed = True
            continue
        argv = [*clis.command(name), "--version"]
        out = subprocess.run(
            argv, capture_output=True, text=True, timeout=120, env=env, check=False
        )
        lines = (out.stdout or out.stderr).strip().splitlines()
        version = lines[0] if lines else "?"
        print(f"  {name}: {version} (exit {out.returncode}) via {' '.join(argv[:-1])}")
        failed = failed or out.returncode != 0
    inspector_ok = _check_inspector(env)
    return 1 if failed or not inspector_ok else 0


INSPECTOR = clis.NODE_MODULES / "@modelcontextprotocol" / "inspector"
INSPECTOR_NODE_MIN = (22, 19)


def _inspector_node() -> str | None:
    """The pinned Node, else one on PATH, if it is >= 22.19 (what Inspector 2.x requires)."""
    for candidate in (str(clis.pinned_node()), shutil.which("node")):
        if not candidate or not Path(candidate).is_file():
            continue
        try:
            out = subprocess.run(
                [candidate, "--version"], capture_output=True, text=True, timeout=30, check=False
            ).stdout.strip()
            version = tuple(int(part) for part in out.lstrip("v").split(".")[:2])
        except (OSError, ValueError, subprocess.TimeoutExpired):
            continue
        if version >= INSPECTOR_NODE_MIN:
            return candidate
    return None


def _check_inspector(env: dict[str, str]) -> bool:
    manifest = INSPECTOR / "package.json"
    if not manifest.is_file():
        print(f"  mcp-inspector: MISSING - {INSPECTOR} not installed", file=sys.stderr)
        return False
    node = _inspector_node()
    if node is None:
        print("  mcp-inspector: MISSING - no Node.js >= 22.19", file=sys.stderr)
        return False
    entry = INSPECTOR / json.loads(manifest.read_text("utf-8"))["bin"]["mcp-inspector"]
    argv = [node, str(entry), "--cli", "--version"]
    out = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        timeout=120,
        env={**env, "MCP_INSPECTOR_SECRET_STORE": "memory"},
        check=False,
    )
    lines = (out.stdout or out.stderr).strip().splitlines()
    version = lines[0] if lines else "?"
    print(f"  mcp-inspector: {version} (exit {out.returncode}) via {' '.join(argv[:-1])}")
    return out.returncode == 0


if __name__ == "__main__":
    raise SystemExit(main())
