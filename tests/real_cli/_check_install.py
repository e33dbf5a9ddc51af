"""Used by install.sh: print each real CLI's version, started the way the harness starts it.

Stdlib only (install.sh may run before the project's virtualenv exists). Exit 1 if a CLI is
missing or does not run.
"""

from __future__ import annotations

import os
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
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
