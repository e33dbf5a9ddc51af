"""A host that is this machine: ``idea host --root R`` run as a subprocess (what SSH runs), and
a Unix-socket proxy standing for SSH's forwarding of the host's MCP socket to the project's
endpoint. ``cut()`` kills the relay, as a dropped link does. ``command`` runs IdeA (default: this
interpreter on the source; the bench gives the frozen build)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import psutil

SOURCE_IDEA = (sys.executable, "-m", "idea")


class LocalHost:
    def __init__(
        self,
        root: Path,
        local_endpoint: str,
        env: Mapping[str, str],
        command: Sequence[str] = SOURCE_IDEA,
    ) -> None:
        self.root, self.local_endpoint, self.env = root, local_endpoint, dict(env)
        self.command = tuple(command)
        self.transports: list[SubprocessTransport] = []
        self.refuse = False  # True: connecting fails, as an unreachable host

    async def connect(self) -> SubprocessTransport:
        if self.refuse:
            raise ConnectionRefusedError("the test host refuses connections")
        proc = await asyncio.create_subprocess_exec(
            *self.command,
            "host",
            "--root",
            str(self.root),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            env=self.env,
        )
        transport = SubprocessTransport(proc, self.local_endpoint)
        self.transports.append(transport)
        return transport

    def cut(self) -> None:
        """Kill the live relays (the daemon and its agents live on)."""
        for transport in self.transports:
            with contextlib.suppress(ProcessLookupError):
                transport.proc.kill()

    def daemon(self) -> psutil.Process | None:
        for proc in psutil.process_iter(["cmdline"]):
            cmdline = proc.info["cmdline"] or []
            if "--daemon" in cmdline and str(self.root) in cmdline:
                return proc
        return None

    async def aclose(self) -> None:
        for transport in self.transports:
            await transport.close()
        daemon = self.daemon()
        if daemon is not None:  # the test failed before IdeA closed it: no orphan
            with contextlib.suppress(psutil.NoSuchProcess):
                daemon.terminate()
                await asyncio.to_thread(daemon.wait, 15)


class SubprocessTransport:
    def __init__(self, proc: asyncio.subprocess.Process, local_endpoint: str) -> None:
        assert proc.stdout is not None and proc.stdin is not None
        self.proc = proc
        self.reader = proc.stdout
        self.writer = proc.stdin
        self._local = local_endpoint
        self._forward: asyncio.AbstractServer | None = None

    async def forward_mcp(self, host_socket: str) -> None:
        async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            with contextlib.suppress(Exception):
                while data := await reader.read(65536):
                    writer.write(data)
                    await writer.drain()
            writer.close()

        async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                up_reader, up_writer = await asyncio.open_unix_connection(self._local)
            except OSError:
                writer.close()
                return
            await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

        with contextlib.suppress(FileNotFoundError):
            os.unlink(host_socket)
        self._forward = await asyncio.start_unix_server(accept, host_socket)

    async def close(self) -> None:
        if self._forward is not None:
            self._forward.close()
        with contextlib.suppress(Exception):
            self.writer.close()
        with contextlib.suppress(ProcessLookupError):
            self.proc.kill()
        await self.proc.wait()
