"""Soak the crash safety of the JSON store: SIGKILL a writer mid-write N times (default 1000).

Invariant checked after every kill: the store parses and holds the old or the new content exactly.
Usage: python bench/store_crash_soak.py [--kills N] [--seed S] [--max-delay-ms MS]
Exits 1 if any kill left a corrupt, missing or mixed file. POSIX only.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

# Run as a plain script: make the repository (idea, tests.fakes) importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fakes.store_writer import run_kill_loop


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=None, help="seed of the kill delays")
    parser.add_argument("--max-delay-ms", type=float, default=20.0)
    args = parser.parse_args(argv)
    if sys.platform == "win32":
        print("the soak needs POSIX SIGKILL semantics; skipped on Windows")
        return 0
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)

    with tempfile.TemporaryDirectory(prefix="idea-soak-") as folder:
        report = run_kill_loop(
            Path(folder) / "store" / "state.json",
            args.kills,
            rng=random.Random(seed),
            max_delay_s=args.max_delay_ms / 1000,
        )

    print(f"{'seed:':<29} {seed}")
    for line in report.lines():
        print(line)
    for problem in report.problems[:20]:
        print(f"  {problem}")
    print("OK" if report.ok else "FAILED")
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
