"""``idea host --root DIR --daemon``: the keeper of one checkout's agents on this host (§16).

Started by the first ``idea host`` relay, in a session of its own so that it outlives the SSH
link; one per checkout (a lock file says which process it is). It serves relays on a private
Unix socket and ends when its ``HostServer`` is done: IdeA closed the project, or nobody
attached for the grace period. SIGTERM stops the agents too.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import fcntl
import logging
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from idea.app.bootstrap.hosts import host_server
from idea.endpoint.naming import host_endpoint

log = logging.getLogger("idea.host")


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="idea host --daemon")
    parser.add_argument("--root", required=True)
    parser.add_argument("--daemon", action="store_true")
    parser.add_argument("--grace", type=float, default=300.0)
    args = parser.parse_args(list(argv))
    root = os.path.abspath(os.path.expanduser(args.root))
    logging.basicConfig(
        level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(name)s: %(message)s"
    )
    return run_daemon(root, host_endpoint(root), args.grace)


def run_daemon(root: str, path: str, grace_s: float) -> int:
    if sys.platform == "win32":
        raise OSError("an agent host is POSIX only")
    lock = open(path + ".lock", "a+b")  # noqa: SIM115  (held for the daemon's life)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        log.info("another daemon serves %s", root)
        return 0
    try:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        asyncio.run(_serve(Path(root), path, grace_s))
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        lock.close()
    return 0


async def _serve(root: Path, path: str, grace_s: float) -> None:
    if sys.platform == "win32":
        raise OSError("an agent host is POSIX only")
    server = host_server(root, grace_s)

    async def attach(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await server.attach(reader, writer)
        except Exception as exc:
            log.warning("a link ended: %s", exc)
        finally:
            writer.close()

    listener = await asyncio.start_unix_server(attach, path)
    os.chmod(path, 0o600)
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, server.close_soon)
    loop.add_signal_handler(signal.SIGHUP, lambda: None)
    server.start_grace()
    log.info("serving %s on %s", root, path)
    try:
        await server.done.wait()
    finally:
        listener.close()
        log.info("done: every agent of %s stopped", root)
