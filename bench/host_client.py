"""The raw JSON-lines client of mcp_roundtrip.py, run on an agent's host (remote_link.py).

It starts the bridge command it is given over pipes, as an agent's CLI there does, initializes
it and warms it up, prints ``ready``; then for each line ``FIRST_ID COUNT`` on stdin it makes
COUNT sequential ``tools/call`` round trips and prints their times (seconds) as one JSON list.
Stdin's end ends it. Stdlib only (with mcp_roundtrip.py and mcp_spawn.py beside it): the host's
``python3`` runs it.

Usage: python3 host_client.py BUDGET_S TOOL -- BRIDGE_COMMAND...
"""

from __future__ import annotations

import json
import sys

from mcp_roundtrip import WARM_UP, calls, initialize, tool_call
from mcp_spawn import Contender, started


def main(argv: list[str]) -> int:
    budget, tool, separator, *command = argv
    if separator != "--" or not command:
        sys.stderr.write(__doc__.splitlines()[-1] + "\n")
        return 2
    target = tool_call(Contender("bridge on the host", command), tool, {})
    with started(target.contender, float(budget)) as proc:
        initialize(target, proc)
        calls(target, proc, 1, WARM_UP, record=False)
        print("ready", flush=True)
        for line in sys.stdin:
            first_id, count = (int(word) for word in line.split())
            target.samples.clear()
            calls(target, proc, first_id, count, record=True)
            print(json.dumps(target.samples), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
