"""PyInstaller runtime hook, listed FIRST in build.spec (DESIGN.md §10).

One ``idea`` executable serves the window, ``serve`` and the MCP bridge. The bridge is spawned once
per agent CLI, so its start-up time matters: PyInstaller's own runtime hooks (inspect, pkgutil,
multiprocessing, PySide6, ...) would add ~40 ms to every spawn. This hook runs before them and,
for ``idea mcp-server``, runs the bridge (stdlib, msgpack, ``idea.protocol`` only) and exits.
"""

import sys

if len(sys.argv) > 1 and sys.argv[1] == "mcp-server":
    from idea.bridge.main import main

    raise SystemExit(main(sys.argv[2:]))
