"""Packaged MCP bridge start-up: spawn -> ``initialize`` answered, medians (DESIGN.md §10).

Contenders, alternated each round (the order rotates), against one headless project runtime (fake
agents) in a background process (``bench/mcp_spawn.py``'s):
* ``python -c pass``: spawn -> exit, the floor of any Python process;
* ``idea mcp-server`` from source, as IdeA declares it (``python -m idea mcp-server …``);
* the frozen one-folder build, ``dist/idea/idea mcp-server …`` (``make package``);
* the AppImage, ``dist/IdeA-x86_64.AppImage mcp-server …`` (``make appimage``), mounted through
  FUSE as an agent's CLI would start it (needs libfuse2); ``--extract-and-run`` measures
  ``APPIMAGE_EXTRACT_AND_RUN=1`` instead (the whole app is unpacked on every spawn).
A build that is absent is reported and left out. The sizes of both builds are printed.

Targets: frozen one-folder <= 2.5x ``python -c pass``; AppImage <= 150 ms.
Usage: python bench/frozen_spawn.py [--rounds 30] [--extract-and-run]
"""

from __future__ import annotations

import argparse
import ctypes.util
import os
import statistics
import sys
from pathlib import Path

from mcp_spawn import ROOT, Contender, HeadlessRuntime, measure

FROZEN = ROOT / "dist" / "idea" / "idea"
APPIMAGE = ROOT / "dist" / "IdeA-x86_64.AppImage"
PASS = "python -c pass"
SOURCE = "idea mcp-server (source)"
FROZEN_NAME = "frozen one-folder"
APPIMAGE_NAME = "AppImage"
FROZEN_RATIO_TARGET = 2.5
APPIMAGE_TARGET_S = 0.150


def packaged_env(**extra: str) -> dict[str, str]:
    # The source tree must not leak into a packaged build.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "APPIMAGE")}
    env.update(extra)
    return env


def packaged(runtime: HeadlessRuntime, executable: Path, name: str, **env: str) -> Contender:
    """The declared bridge, with the packaged executable in place of ``python -m idea``."""
    args = runtime.declaration["args"]
    assert args[:3] == ["-m", "idea", "mcp-server"], args
    return Contender(name, [str(executable), *args[2:]], packaged_env(**env))


def size_of(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def contenders(
    runtime: HeadlessRuntime, extract_and_run: bool
) -> tuple[list[Contender], list[str]]:
    field_ = [Contender(PASS, [sys.executable, "-c", "pass"], mcp=False), runtime.bridge()]
    notes = []
    if FROZEN.is_file():
        field_.append(packaged(runtime, FROZEN, FROZEN_NAME))
    else:
        notes.append(f"{FROZEN_NAME}: left out, {FROZEN} is missing (make package)")
    if not APPIMAGE.is_file():
        notes.append(f"{APPIMAGE_NAME}: left out, {APPIMAGE} is missing (make appimage)")
    elif extract_and_run:
        field_.append(packaged(runtime, APPIMAGE, APPIMAGE_NAME, APPIMAGE_EXTRACT_AND_RUN="1"))
    elif ctypes.util.find_library("fuse") is None:
        notes.append(f"{APPIMAGE_NAME}: left out, libfuse2 is not installed (or --extract-and-run)")
    else:
        field_.append(packaged(runtime, APPIMAGE, APPIMAGE_NAME))
    return field_, notes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument(
        "--extract-and-run", action="store_true", help="AppImage with APPIMAGE_EXTRACT_AND_RUN=1"
    )
    args = parser.parse_args()
    with HeadlessRuntime() as runtime:
        field_, notes = contenders(runtime, args.extract_and_run)
        samples = measure(field_, args.rounds)
    print(f"spawn -> initialize answered, {args.rounds} rounds alternated ({sys.executable})")
    medians = {}
    for name, values in samples.items():
        medians[name] = statistics.median(values)
        what = "spawn -> exit" if name == PASS else "spawn -> initialize"
        print(
            f"  {name:<26} median {medians[name] * 1e3:7.1f} ms   "
            f"min {min(values) * 1e3:7.1f} ms   max {max(values) * 1e3:7.1f} ms   ({what})"
        )
    for note in notes:
        print(f"  {note}")
    for path in (FROZEN.parent, APPIMAGE):
        if path.exists():
            print(f"size of {path.relative_to(ROOT)}: {size_of(path) / 2**20:.1f} MiB")
    floor = medians[PASS]
    print(f"source bridge / python -c pass: {medians[SOURCE] / floor:.2f}x")
    if FROZEN_NAME in medians:
        ratio = medians[FROZEN_NAME] / floor
        print(
            f"frozen one-folder / python -c pass: {ratio:.2f}x "
            f"(target <= {FROZEN_RATIO_TARGET}x: {_met(ratio <= FROZEN_RATIO_TARGET)})"
        )
    if APPIMAGE_NAME in medians:
        appimage = medians[APPIMAGE_NAME]
        print(
            f"AppImage: {appimage * 1e3:.1f} ms, {appimage / floor:.2f}x python -c pass "
            f"(target <= {APPIMAGE_TARGET_S * 1e3:.0f} ms: {_met(appimage <= APPIMAGE_TARGET_S)})"
        )
    return 0


def _met(ok: bool) -> str:
    return "met" if ok else "MISSED"


if __name__ == "__main__":
    raise SystemExit(main())
