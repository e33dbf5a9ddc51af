"""The Windows MCP bridge under wine: spawn -> ``initialize`` answered, medians (DESIGN.md §12).

Everything runs in the Windows lane's CPython under Debian's wine (tests/windows_lane), one
wineserver kept running, so that each figure pays the same wine process start. Contenders,
alternated each round (the order rotates), against one headless project runtime (fake agents,
the named-pipe endpoint) in a background process (``bench/mcp_spawn.py``'s):
* ``python -c pass``: the Windows python's spawn -> exit under wine, the floor;
* ``idea mcp-server`` from source, as IdeA declares it (``python -m idea mcp-server …``);
* the frozen build, ``dist/windows/idea/idea.exe mcp-server …`` (``make windows-build``), when
  present.
The ratio to ``python -c pass`` is printed last.
Usage: python bench/wine_bridge_spawn.py [--rounds 20] (from Linux it runs itself under wine).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
LANE = ROOT / "tests" / "windows_lane" / "lane.py"
FROZEN = ROOT / "dist" / "windows" / "idea" / "idea.exe"
PASS = "python -c pass"
SOURCE = "idea mcp-server (source)"
FROZEN_NAME = "frozen idea.exe"


def under_wine(argv: list[str]) -> int:
    """From Linux: the same script by the lane's Windows python (set up if needed)."""
    script = "Z:" + str(Path(__file__).resolve()).replace("/", "\\")
    return subprocess.run(
        [sys.executable, str(LANE), "python", script, *argv], check=False
    ).returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    if sys.platform != "win32":
        return under_wine(sys.argv[1:])
    sys.path.insert(0, str(HERE))
    from mcp_spawn import Contender, HeadlessRuntime, measure  # noqa: PLC0415

    with HeadlessRuntime() as runtime:
        field_ = [Contender(PASS, [sys.executable, "-c", "pass"], mcp=False), runtime.bridge()]
        if FROZEN.is_file():
            declared = runtime.bridge()
            assert declared.argv[1:3] == ["-m", "idea"], declared.argv
            env = {k: v for k, v in declared.env.items() if k != "PYTHONPATH"}
            field_.append(Contender(FROZEN_NAME, [str(FROZEN), *declared.argv[3:]], env))
        else:
            print(f"no frozen build at {FROZEN} (make windows-build): left out")
        samples = measure(field_, args.rounds)
    print(f"spawn -> initialize answered under wine, {args.rounds} rounds alternated")
    medians = {name: statistics.median(values) for name, values in samples.items()}
    for name, values in samples.items():
        what = "spawn -> exit" if name == PASS else "spawn -> initialize"
        print(
            f"  {name:<26} median {medians[name] * 1e3:7.1f} ms   "
            f"min {min(values) * 1e3:7.1f} ms   max {max(values) * 1e3:7.1f} ms   ({what})"
        )
    for name in (SOURCE, FROZEN_NAME):
        if name in medians:
            print(f"{name} / python -c pass under wine: {medians[name] / medians[PASS]:.2f}x")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONIOENCODING", "utf-8")
    raise SystemExit(main())
