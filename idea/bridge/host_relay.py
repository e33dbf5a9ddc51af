"""``idea host --root DIR``: what SSH runs on an agent's host (DESIGN.md §16).

A byte relay between its stdio (the SSH channel) and the host daemon of that checkout, started
here when none runs. The daemon owns the agents, so that they outlive a dropped link: a
reconnect runs another relay to the same daemon. Light like the bridge: the standard library
and ``idea.endpoint`` only; the daemon (``--daemon``) is another process.
"""

from __future__ import annotations

import argparse
import os
import select
import socket
import subprocess
import sys
import time
from collections.abc import Sequence

from idea.bridge.relay_common import EXIT_USAGE
from idea.endpoint.naming import host_endpoint

EXIT_OK = 0
EXIT_FAILED = 1
DAEMON_START_S = 20.0
CHUNK = 256 * 1024
PREFIX = "idea host: "


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="idea host")
    parser.add_argument("--root", required=True, help="the project's checkout on this host")
    parser.add_argument("--daemon", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--grace", type=float, default=300.0, help=argparse.SUPPRESS)
    args = parser.parse_args(list(argv))
    if sys.platform == "win32":
        _say("agents on another host need a Linux or macOS host")
        return EXIT_USAGE
    root = os.path.abspath(os.path.expanduser(args.root))
    if not os.path.isdir(root):
        _say(f"--root {root}: no such folder on this host")
        return EXIT_USAGE
    if args.daemon:  # idea.cli routes it to idea.app.host_daemon before this
        _say("--daemon is not for this process")
        return EXIT_USAGE
    try:
        sock = _daemon_socket(root)
    except OSError as exc:
        _say(f"the host daemon did not start: {exc}")
        return EXIT_FAILED
    return _relay(sys.stdin.buffer.fileno(), sys.stdout.buffer.fileno(), sock)


def _say(text: str) -> None:
    sys.stderr.write(PREFIX + text + "\n")
    sys.stderr.flush()


def _connect(path: str) -> socket.socket:
    if sys.platform == "win32":
        raise OSError("an agent host is POSIX only")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError:
        sock.close()
        raise
    return sock


def _daemon_socket(root: str) -> socket.socket:
    path = host_endpoint(root)
    try:
        return _connect(path)
    except OSError:
        pass
    log = open(path[: -len(".sock")] + ".log", "ab")  # noqa: SIM115  (the daemon's from now on)
    try:
        command = (
            [sys.executable] if getattr(sys, "frozen", False) else [sys.executable, "-m", "idea"]
        )
        subprocess.Popen(
            [*command, "host", "--root", root, "--daemon"],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,  # not the SSH session's: it outlives a dropped link
            close_fds=True,
        )
    finally:
        log.close()
    deadline = time.monotonic() + DAEMON_START_S
    while True:
        try:
            return _connect(path)
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def _relay(stdin: int, stdout: int, sock: socket.socket) -> int:
    """Both ways until the daemon closes; stdin's end is passed on as a half-close."""
    fd = sock.fileno()
    readable = [stdin, fd]
    while True:
        ready, _, _ = select.select(readable, [], [])
        if stdin in ready:
            data = os.read(stdin, CHUNK)
            if data:
                sock.sendall(data)
            else:
                readable.remove(stdin)
                sock.shutdown(socket.SHUT_WR)
        if fd in ready:
            try:
                data = sock.recv(CHUNK)
            except OSError:
                data = b""
            if not data:
                return EXIT_OK
            try:
                _write_all(stdout, data)
            except OSError:  # the channel is gone
                return EXIT_OK


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
