"""PyInstaller runtime hook that build.spec runs FIRST, before PyInstaller's bootstrap script.

One ``idea`` executable serves the window, ``serve`` and the MCP bridge (DESIGN.md §10). The
bridge is spawned once per agent CLI, so its start-up time matters: for ``idea mcp-server`` this
hook sets up the frozen importer itself, runs the bridge (stdlib, msgpack, ``idea.endpoint``) and
exits, skipping the bootstrap's ctypes hooks and every later runtime hook (inspect, pkgutil,
multiprocessing, PySide6, ...).

Otherwise it gives the environment of the programs IdeA starts (agents' CLIs) back its own
library path: the Linux bootloader put the bundle's folder first in ``LD_LIBRARY_PATH``, and a CLI
loading the bundle's libstdc++ or OpenSSL instead of the system's may fail. This process is not
affected: the dynamic loader reads ``LD_LIBRARY_PATH`` once, at start. The bootloader's
bookkeeping variables go too, so that a child that is this executable again (the bridge) sets
the library path up afresh rather than inheriting it.
"""

import sys

if len(sys.argv) > 1 and sys.argv[1] == "mcp-server":
    import pyimod02_importers  # imported by the bootloader, before any script runs

    pyimod02_importers.install()
    sys.frozen = True
    # The bridge's one use of hashing, two HMAC-SHA256 of a few bytes per connection, needs no
    # OpenSSL: hashlib and hmac fall back to Python's builtin sha256 when _hashlib cannot be
    # imported. Loading libcrypto (4.5 MB to relocate, read through FUSE in an AppImage) costs
    # more than the rest of the handshake.
    sys.modules["_hashlib"] = None
    from idea.bridge.main import main

    raise SystemExit(main(sys.argv[2:]))

if sys.platform.startswith("linux"):
    import os

    _saved = os.environ.pop("LD_LIBRARY_PATH_ORIG", None)
    if _saved is None:
        os.environ.pop("LD_LIBRARY_PATH", None)
    else:
        os.environ["LD_LIBRARY_PATH"] = _saved
    for _name in (
        "_PYI_ARCHIVE_FILE",
        "_PYI_APPLICATION_HOME_DIR",
        "_PYI_PARENT_PROCESS_LEVEL",
        "_PYI_LINUX_PROCESS_NAME",
    ):
        os.environ.pop(_name, None)
