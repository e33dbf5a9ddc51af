"""MCP server start-up: spawn -> ``initialize`` answered, median over N rounds (DESIGN.md §12).

Contenders, all on this interpreter and alternated each round (the order rotates):
* ``python -c pass``: spawn -> exit, the floor of any Python process;
* ``idea mcp-server`` from source, started exactly as IdeA declares it to an agent's CLI
  (``mcp_server_entry``: ``python -m idea mcp-server --endpoint … --key-file …``), against a
  headless project runtime (fake agents) running in a background process;
* ``bench/stdio_mcp_server.py``: a stdlib-only stdio MCP server;
* ``bench/sdk_mcp_server.py``: a minimal ``MCPServer`` of the official SDK (one tool).

Targets: the bridge >= 15x faster than the SDK server, and <= 3x ``python -c pass``.
Usage: python bench/mcp_spawn.py [--rounds 30]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
STDLIB_SERVER = BENCH / "stdio_mcp_server.py"
SDK_SERVER = BENCH / "sdk_mcp_server.py"
PROCESS_TIMEOUT = 30.0  # any one spawn or wait; a stuck contender is killed, never waited on

INITIALIZE = (
    json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "idea-bench", "version": "0"},
            },
        },
        separators=(",", ":"),
    ).encode()
    + b"\n"
)
INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'


@dataclass
class Contender:
    name: str
    argv: list[str]
    env: dict[str, str] = field(default_factory=lambda: dict(os.environ))
    mcp: bool = True  # False: just spawn -> exit


# -- the headless runtime behind the bridge, in its own process ----------------------------------


class HeadlessRuntime:
    """``with HeadlessRuntime() as rt``: a project runtime with fake agents in a child process;
    ``rt.declaration`` is IdeA's declaration (``server_json``) of agent ``caller``."""

    def __enter__(self) -> HeadlessRuntime:
        self._dir = tempfile.TemporaryDirectory(prefix="idea-bench-mcp-")
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--serve-runtime", self._dir.name],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        assert self.proc.stdout is not None
        timer = threading.Timer(PROCESS_TIMEOUT, self.proc.kill)
        timer.start()
        try:
            line = self.proc.stdout.readline()
        finally:
            timer.cancel()
        if not line:
            self.__exit__()
            raise RuntimeError("the headless runtime did not start")
        self.declaration: dict = json.loads(line)
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.proc.stdin is not None
        with contextlib.suppress(OSError):
            self.proc.stdin.close()  # EOF: the runtime closes itself
        try:
            self.proc.wait(timeout=PROCESS_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._dir.cleanup()

    def bridge(self) -> Contender:
        server = self.declaration
        env = {**os.environ, **server.get("env", {})}
        return Contender("idea mcp-server (source)", [server["command"], *server["args"]], env)


def serve_runtime(root: str) -> None:
    """Child process: open the runtime, print the declaration, serve until stdin closes."""
    import asyncio  # noqa: PLC0415  (only the child needs IdeA and asyncio)

    sys.path.insert(0, str(ROOT))
    from idea.app.bootstrap import open_project  # noqa: PLC0415
    from idea.domain.agent import Agent  # noqa: PLC0415
    from idea.infrastructure.clis.declaration import server_json  # noqa: PLC0415
    from tests.fakes.ports.session_starter import FakeSessionStarter  # noqa: PLC0415
    from tests.mcp_clients import declared_bridge  # noqa: PLC0415

    async def main() -> None:
        runtime = await open_project(Path(root), starter=FakeSessionStarter())
        try:
            for agent in (
                Agent(id="id-caller", name="caller", profile="claude"),
                Agent(id="id-helper", name="helper", profile="claude"),
                Agent(id="id-sh", name="sh", profile="shell"),
            ):
                runtime.services.agents.save(agent)
            entry = declared_bridge(runtime, "id-caller")
            sys.stdout.write(json.dumps(server_json(entry)) + "\n")
            sys.stdout.flush()
            await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
        finally:
            await runtime.close()

    asyncio.run(main())


# -- measuring -----------------------------------------------------------------------------------


@contextlib.contextmanager
def started(
    contender: Contender, budget: float = PROCESS_TIMEOUT
) -> Iterator[subprocess.Popen[bytes]]:
    """The contender with binary pipes, killed ``budget`` seconds after its start at the latest
    (a hung read then ends with EOF); on leaving, stdin is closed and the process waited for
    (killed if it does not exit within ``PROCESS_TIMEOUT``). Its stderr goes to ours."""
    proc = subprocess.Popen(
        contender.argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=contender.env,
    )
    timer = threading.Timer(budget, proc.kill)
    timer.start()
    try:
        yield proc
    finally:
        timer.cancel()
        for stream in (proc.stdin, proc.stdout):
            with contextlib.suppress(OSError):
                assert stream is not None
                stream.close()
        try:
            proc.wait(timeout=PROCESS_TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def spawn_once(contender: Contender) -> float:
    """Seconds from spawn to the ``initialize`` answer (to exit when ``contender.mcp`` is off)."""
    if not contender.mcp:
        started_at = time.perf_counter()
        subprocess.run(contender.argv, env=contender.env, check=True, timeout=PROCESS_TIMEOUT)
        return time.perf_counter() - started_at
    started_at = time.perf_counter()
    with started(contender) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(INITIALIZE)
        proc.stdin.flush()
        line = proc.stdout.readline()
        elapsed = time.perf_counter() - started_at
    answer = json.loads(line) if line else {}
    if answer.get("id") != 0 or "result" not in answer:
        raise RuntimeError(f"{contender.name}: bad initialize answer {line[:300]!r}")
    return elapsed


def contenders(runtime: HeadlessRuntime) -> list[Contender]:
    return [
        Contender("python -c pass", [sys.executable, "-c", "pass"], mcp=False),
        runtime.bridge(),
        Contender("stdlib stdio server", [sys.executable, str(STDLIB_SERVER)]),
        Contender("SDK MCPServer", [sys.executable, str(SDK_SERVER)]),
    ]


def measure(field_: list[Contender], rounds: int) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {c.name: [] for c in field_}
    for contender in field_:  # warm-up (caches, .pyc), not counted
        spawn_once(contender)
    for round_ in range(rounds):
        shift = round_ % len(field_)
        for contender in field_[shift:] + field_[:shift]:
            samples[contender.name].append(spawn_once(contender))
    return samples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--serve-runtime", metavar="DIR", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_runtime:
        serve_runtime(args.serve_runtime)
        return 0
    with HeadlessRuntime() as runtime:
        field_ = contenders(runtime)
        samples = measure(field_, args.rounds)
    print(f"spawn -> initialize answered, {args.rounds} rounds alternated ({sys.executable})")
    medians = {}
    for name, values in samples.items():
        medians[name] = statistics.median(values)
        what = "spawn -> exit" if name == "python -c pass" else "spawn -> initialize"
        print(
            f"  {name:<26} median {medians[name] * 1e3:7.1f} ms   "
            f"min {min(values) * 1e3:7.1f} ms   max {max(values) * 1e3:7.1f} ms   ({what})"
        )
    bridge = medians["idea mcp-server (source)"]
    sdk_ratio = medians["SDK MCPServer"] / bridge
    pass_ratio = bridge / medians["python -c pass"]
    stdlib_ratio = bridge / medians["stdlib stdio server"]
    print(f"bridge / stdlib stdio server: {stdlib_ratio:.2f}x")
    print(f"SDK MCPServer / bridge: {sdk_ratio:.1f}x (target >= 15x: {_met(sdk_ratio >= 15)})")
    print(f"bridge / python -c pass: {pass_ratio:.2f}x (target <= 3x: {_met(pass_ratio <= 3)})")
    return 0


def _met(ok: bool) -> str:
    return "met" if ok else "MISSED"


if __name__ == "__main__":
    raise SystemExit(main())
