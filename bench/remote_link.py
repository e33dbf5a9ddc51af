"""Agents on another host over SSH (DESIGN.md §16): the MCP round trip from the host's bridge vs
a local one, and keystroke echo through the link vs a local terminal (DESIGN.md §12).

The host is this machine as another user: Debian's sshd on 127.0.0.1 logging in a second account
(tests/sshd.py; needs root), with IdeA's frozen one-folder build (``make package``) copied into
that account's home as a user installs it. So the figures are the link's own cost (SSH's crypto,
channels and forwarding, IdeA's relay and daemon), no network's.

1. ``tools/call idea_list_agents`` round trips, the raw JSON-lines client of mcp_roundtrip.py,
   the contenders taking turns in blocks of calls (drift hits them alike), against a headless
   project runtime with fake agents (mcp_spawn.py):
   * the local bridge, ``idea mcp-server`` as IdeA declares it to a local agent (from source
     here), and the same command of the frozen build (what an installed IdeA declares);
   * the host's bridge: the installed build's ``mcp-server`` run on the host as its account,
     reaching the host socket that IdeA's SSH link forwards (``forward_socket``) to the project's
     endpoint, the agent's key in a file of that account; its stdio driven through an ``ssh``
     channel;
   * ``cat`` on the host through an ``ssh`` channel (echoes the request): that channel's floor;
   * for reference, the host's bridge driven on the host over pipes by host_client.py, as an
     agent's CLI there drives it: the round trip a remote agent sees (no SSH on the stdio side).
2. Keystroke echo: shell agents (``/bin/sh``: the terminal's line discipline echoes) of one
   project open here, a letter written, its echo awaited in the subscribed output, then a
   backspace; the three take turns, the order rotating, ``--gap-ms`` before each key:
   * a local terminal (the local starter's PTY);
   * a terminal on the host over SSH (``HostLinks`` + ``RemoteStarter``, ``idea host`` of the
     installed build through asyncssh, as in the end-to-end test);
   * a terminal on a host that is a subprocess here (tests/fakes/host_transport.py, the frozen
     ``idea host``): the same relay and daemon without SSH.

Everything ends with it (sshd, its sessions, the daemons, the agents), on an error too; a run
longer than ``--budget`` seconds is stopped. The ratios are printed last.
Usage: python bench/remote_link.py [--calls 5000] [--keys 300] [--gap-ms 20] [--budget 600]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import os
import shlex
import shutil
import signal
import string
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

from frozen_spawn import FROZEN, packaged_env
from mcp_roundtrip import (
    WARM_UP,
    Target,
    calls,
    initialize,
    quantile,
    take_turns,
    tool_call,
)
from mcp_spawn import BENCH, PROCESS_TIMEOUT, Contender, HeadlessRuntime, started

from idea.app.bootstrap import default_starter, project_runtime, project_services
from idea.app.bootstrap.hosts import remote_starter
from idea.application.launch_agent import LaunchRequest
from idea.application.session_ports import TerminalSession
from idea.domain.profile import Mode
from idea.endpoint.naming import mcp_endpoint
from idea.infrastructure.remote.links import HostLinks
from idea.infrastructure.remote.ssh.channels import forward_socket, run_command
from idea.infrastructure.remote.ssh.connection import connect
from idea.infrastructure.remote.ssh.host_transport import ssh_connector
from tests.fakes.host_transport import LocalHost
from tests.sshd import Sshd, install_build, running_sshd, skip_reason

TOOL = "idea_list_agents"
HOST_CLIENT = ("host_client.py", "mcp_roundtrip.py", "mcp_spawn.py")  # copied to the host
SHELL = "/bin/sh"
KEY_WARM_UP = 20  # keys per terminal before measuring, not counted
ECHO_TIMEOUT = 10.0
STOP_SIGNALS = (signal.SIGALRM, signal.SIGTERM)  # the budget's timer, and a stop from outside
SLOW_MS = 20  # a stall of Nagle's algorithm waiting on a delayed ACK is 40 ms on Linux
SETUP = "PS1='> '; echo ready-$((40+2))\n"  # a prompt without letters: only the typed ones are


# -- 1. tools/call round trips ---------------------------------------------------------------


def ssh_command(sshd: Sshd, command: str) -> list[str]:
    """OpenSSH's client running ``command`` on the host (no terminal; only the test's key and
    known_hosts; no config file, agent or multiplexing)."""
    options = {
        "IdentitiesOnly": "yes",
        "IdentityAgent": "none",
        "BatchMode": "yes",
        "UserKnownHostsFile": str(sshd.known_hosts),
        "GlobalKnownHostsFile": "/dev/null",
        "StrictHostKeyChecking": "yes",
    }
    return [
        "ssh",
        *("-F", "none", "-T", "-p", str(sshd.port), "-i", str(sshd.client_key)),
        *(f"-o{name}={value}" for name, value in options.items()),
        f"{sshd.user}@{sshd.address}",
        command,
    ]


@contextlib.contextmanager
def forwarded(sshd: Sshd, host_socket: str, endpoint: str) -> Iterator[None]:
    """For the block: IdeA's SSH link to the host (asyncssh, ``connect``) forwarding the Unix
    socket ``host_socket`` there to ``endpoint`` here (``forward_socket``), served by an event
    loop in a thread of its own."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="ssh-forward")
    thread.start()
    host = sshd.host()
    conns = []

    async def open_() -> None:
        conn = await connect(host, known_hosts=str(sshd.known_hosts))
        conns.append(conn)
        # As the product's link does: a command runs on the connection (the version check,
        # then `idea host`) before the forwarding; sshd sets TCP_NODELAY at a session's start.
        await run_command(conn, host, "true")
        await forward_socket(conn, host, host_socket, endpoint)

    async def close() -> None:
        for conn in conns:
            conn.close()  # its listener with it
            await conn.wait_closed()

    def run(work: Callable[[], Coroutine[None, None, None]]) -> None:
        asyncio.run_coroutine_threadsafe(work(), loop).result(PROCESS_TIMEOUT)

    try:
        run(open_)
        yield
    finally:
        with contextlib.suppress(Exception):
            run(close)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(PROCESS_TIMEOUT)
        loop.close()


def option(argv: list[str], name: str) -> str:
    return argv[argv.index(name) + 1]


def contenders(
    sshd: Sshd, program: str, runtime: HeadlessRuntime, budget: float
) -> tuple[list[Target], Target]:
    """Part 1's contenders driven from here, and the one timed on the host (host_client.py);
    writes the agent's key and the host client on the host."""
    declared = runtime.bridge()
    options = declared.argv[declared.argv.index("mcp-server") :]
    key = Path(option(options, "--key-file")).read_bytes()
    on_host = [program, *options]  # the same bridge, reaching the host's end of the forward
    on_host[on_host.index("--endpoint") + 1] = host_socket(sshd)
    on_host[on_host.index("--key-file") + 1] = str(sshd.write("caller.key", key, 0o600))
    for name in HOST_CLIENT:
        sshd.write(f"bench/{name}", (BENCH / name).read_text(encoding="utf-8"))
    driver = ["python3", str(sshd.work / "bench" / HOST_CLIENT[0]), str(budget), TOOL, "--"]
    driven = [
        tool_call(declared, TOOL, {}),
        tool_call(
            Contender("idea mcp-server (frozen)", [str(FROZEN), *options], packaged_env()), TOOL, {}
        ),
        tool_call(
            Contender("host's bridge over SSH", ssh_command(sshd, shlex.join(on_host))), TOOL, {}
        ),
        Target(
            Contender("cat on the host over SSH", ssh_command(sshd, "cat")), "ping", is_mcp=False
        ),
    ]
    there = Contender("host's bridge, timed there", ssh_command(sshd, shlex.join(driver + on_host)))
    return driven, tool_call(there, TOOL, {})


def host_socket(sshd: Sshd) -> str:
    return str(sshd.work / "mcp.sock")


def host_timed_block(
    target: Target, proc: subprocess.Popen[bytes], first_id: int, count: int
) -> None:
    """``count`` round trips made by host_client.py on the host; their times, taken there."""
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(f"{first_id} {count}\n".encode())
    proc.stdin.flush()
    line = proc.stdout.readline()
    try:
        target.samples.extend(json.loads(line))
    except ValueError:
        raise RuntimeError(f"{target.contender.name}: {line[:300]!r}") from None


def round_trips(sshd: Sshd, program: str, count: int, budget: float) -> list[Target]:
    """Part 1: every contender's round trips, ``count`` each, in turns."""
    with HeadlessRuntime() as runtime, contextlib.ExitStack() as stack:
        driven, host_timed = contenders(sshd, program, runtime, budget)
        endpoint = option(driven[0].contender.argv, "--endpoint")
        stack.enter_context(forwarded(sshd, host_socket(sshd), endpoint))
        blocks = []
        for target in driven:
            proc = stack.enter_context(started(target.contender, budget))
            initialize(target, proc)
            calls(target, proc, 1, WARM_UP, record=False)
            blocks.append(functools.partial(calls, target, proc, record=True))
        proc = stack.enter_context(started(host_timed.contender, budget))
        assert proc.stdout is not None
        if (line := proc.stdout.readline()) != b"ready\n":
            raise RuntimeError(f"the host client did not start: {line[:300]!r}")
        blocks.append(functools.partial(host_timed_block, host_timed, proc))
        take_turns(blocks, count, WARM_UP + 1)
    return [*driven, host_timed]


# -- 2. keystroke echo -----------------------------------------------------------------------


class Echo:
    """A terminal's output since the last ``expect``: when the awaited text showed up in it."""

    def __init__(self) -> None:
        self.expected = ""
        self.output = ""
        self.seen_at = 0.0
        self.seen = asyncio.Event()

    def expect(self, text: str) -> None:
        self.expected, self.output = text, ""
        self.seen.clear()

    def __call__(self, data: str) -> None:
        if self.seen.is_set() or not self.expected:
            return
        self.output += data
        if self.expected in self.output:
            self.seen_at = time.perf_counter()
            self.seen.set()


@dataclass
class Typed:
    """One terminal typed into: its agent (on ``host``), its output, the echo times of its keys."""

    label: str
    agent: str
    host: str | None
    echo: Echo = field(default_factory=Echo)
    terminal: TerminalSession | None = None
    launch_s: float = 0.0  # launch -> the set-up line's answer
    samples: list[float] = field(default_factory=list)

    async def key(self, data: str, expected: str) -> float:
        """Seconds from writing ``data`` to ``expected`` in the output."""
        assert self.terminal is not None
        self.echo.expect(expected)
        sent = time.perf_counter()
        self.terminal.write(data)
        async with asyncio.timeout(ECHO_TIMEOUT):
            await self.echo.seen.wait()
        return self.echo.seen_at - sent


def project_with(folder: Path, typists: list[Typed]) -> Path:
    project = folder / "project"
    agents = project / ".ideai" / "agents"
    agents.mkdir(parents=True)
    for typist in typists:
        host = f"host: {typist.host}\n" if typist.host else ""
        (agents / f"{typist.agent}.md").write_text(
            f"---\nid: id-{typist.agent}\nname: {typist.agent}\nprofile: shell\n{host}---\n"
            "A shell typed into.\n",
            encoding="utf-8",
        )
    return project


async def keystrokes(sshd: Sshd, program: str, keys: int, gap: float) -> list[Typed]:
    """Part 2, stopped as a whole by the budget or SIGTERM (see ``cancelled_on_signals``)."""
    task = asyncio.current_task()
    assert task is not None
    with cancelled_on_signals(task):
        return await type_keys(sshd, program, keys, gap)


@contextlib.contextmanager
def cancelled_on_signals(task: asyncio.Task[list[Typed]]) -> Iterator[None]:
    """While the block runs, the budget's SIGALRM and SIGTERM cancel ``task``, once: an
    exception raised in the middle of the event loop's own code would leave it unable to end
    the agents and the links."""
    loop = asyncio.get_running_loop()

    def cancel() -> None:
        if not task.cancelling():
            task.cancel()

    for signum in STOP_SIGNALS:
        loop.add_signal_handler(signum, cancel)
    try:
        yield
    finally:
        for signum in STOP_SIGNALS:
            loop.remove_signal_handler(signum)
            signal.signal(signum, _out_of_time)


async def type_keys(sshd: Sshd, program: str, keys: int, gap: float) -> list[Typed]:
    """Part 2: the echo time of ``keys`` letters in each terminal, in turns."""
    typists = [
        Typed("local terminal", "near", None),
        Typed("host over SSH", "far", "box"),
        Typed("host as a subprocess (no SSH)", "loop", "loop"),
    ]
    folder = Path(tempfile.mkdtemp(prefix="idea-bench-remote-"))
    project = project_with(folder, typists)
    sshd.write("checkout/README", "the host's checkout\n")
    box = sshd.host("box", root=str(sshd.work / "checkout"), idea=program)
    (folder / "loop-checkout").mkdir()
    services = project_services(project)
    services.trust.grant()
    endpoint = mcp_endpoint(services.info.id, str(project))
    env = dict(os.environ)
    loop_host = LocalHost(folder / "loop-checkout", endpoint, env, command=(str(FROZEN),))
    over_ssh = ssh_connector(
        {"box": box}.__getitem__,
        endpoint,
        functools.partial(connect, known_hosts=str(sshd.known_hosts)),
    )
    links = HostLinks(
        lambda name: loop_host.connect if name == "loop" else over_ssh(name),
        services.info.id,
        grace_s=60,
    )
    starter = remote_starter(services, default_starter(services, True, base_env=env), links)
    runtime = project_runtime(services, starter, hosts=links)
    try:
        await runtime.open(resume=False, file_door=False, mcp=True)
        for i, typist in enumerate(typists):
            started_at = time.perf_counter()
            request = LaunchRequest(typist.agent, node_id=f"cell-{i}", mode=Mode.TERMINAL)
            await runtime.launch(request)
            typist.terminal = runtime.sessions.terminal_session(f"id-{typist.agent}")
            assert typist.terminal is not None
            typist.terminal.subscribe(typist.echo)
            await typist.key(SETUP, "ready-42")
            typist.launch_s = time.perf_counter() - started_at
        for k in range(KEY_WARM_UP + keys):
            letter = string.ascii_lowercase[k % 26]
            shift = k % len(typists)
            for typist in [*typists[shift:], *typists[:shift]]:
                await asyncio.sleep(gap)
                elapsed = await typist.key(letter, letter)
                if k >= KEY_WARM_UP:
                    typist.samples.append(elapsed)
                await asyncio.sleep(gap)
                await typist.key("\x7f", "\x08")  # the backspace's echo: the line stays empty
    finally:
        try:
            await runtime.close()
        finally:
            await loop_host.aclose()
            shutil.rmtree(folder, ignore_errors=True)
    return typists


# -- the run ---------------------------------------------------------------------------------


class OutOfTime(Exception):
    """The run's budget is spent."""


def _out_of_time(signum: int, frame: FrameType | None) -> None:
    raise OutOfTime(signal.Signals(signum).name)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--keys", type=int, default=300)
    parser.add_argument("--gap-ms", type=float, default=20.0, help="pause before each key")
    parser.add_argument("--budget", type=float, default=600.0, help="seconds for the whole run")
    args = parser.parse_args()
    reason = skip_reason() or (
        None if FROZEN.is_file() else f"no frozen build at {FROZEN} (make package)"
    )
    if reason is not None:
        print(f"remote link bench left out: {reason}")
        return 0
    started_at = time.monotonic()
    os.environ.pop("SSH_AUTH_SOCK", None)  # only the test's key logs in
    os.environ["SHELL"] = SHELL  # the shell profile's command, here and on the host
    # Past the budget, or on SIGTERM, whatever it waits on, the run ends, cleaning up (the timer
    # is off again before sshd and what its sessions started are stopped).
    for signum in STOP_SIGNALS:
        signal.signal(signum, _out_of_time)
    try:
        with running_sshd() as sshd:
            signal.setitimer(signal.ITIMER_REAL, args.budget)
            try:
                program = str(install_build(FROZEN, sshd.work / "idea-app"))
                targets = round_trips(sshd, program, args.calls, args.budget)
                typists = asyncio.run(keystrokes(sshd, program, args.keys, args.gap_ms / 1000))
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
    except (OutOfTime, asyncio.CancelledError):
        print(
            f"remote link bench stopped after {time.monotonic() - started_at:.0f} s "
            f"(budget {args.budget:g} s, or SIGTERM)"
        )
        return 1
    elapsed = time.monotonic() - started_at
    report(targets, typists, args, elapsed)
    return 0


def report(
    targets: list[Target], typists: list[Typed], args: argparse.Namespace, elapsed: float
) -> None:
    print(
        f"tools/call {TOOL} round trip, raw JSON-lines client, {args.calls} calls each; the host "
        f"is this machine over SSH ({elapsed:.0f} s run)"
    )
    for target in targets:
        print(f"  {target.contender.name:<28} {target.what:<17} {summary(target.samples, 0.99)}")
    print(f"keystroke echo ({SHELL}), {args.keys} keys each, {args.gap_ms:g} ms before each key")
    for typist in typists:
        print(
            f"  {typist.label:<30} {summary(typist.samples, 0.95, ms=True)}   "
            f"(launch -> first echo {typist.launch_s * 1e3:.0f} ms)"
        )
    source, frozen, remote, floor, there = (quantile(t.samples, 0.5) for t in targets)
    near, far, loop = (quantile(t.samples, 0.5) for t in typists)
    for what, ratio in (
        ("host's bridge over SSH / cat over SSH (p50, over the channel's floor)", remote / floor),
        ("host's bridge timed on the host / local bridge, frozen (p50)", there / frozen),
        ("host's bridge over SSH / local bridge as declared here, source (p50)", remote / source),
        ("host's bridge over SSH / local bridge, frozen (p50)", remote / frozen),
        ("keystroke echo, subprocess host / local terminal (p50, relay and daemon)", loop / near),
        ("keystroke echo, host over SSH / subprocess host (p50, SSH's share)", far / loop),
        ("keystroke echo, host over SSH / local terminal (p50)", far / near),
    ):
        print(f"{what}: {ratio:.2f}x")


def summary(seconds: list[float], tail: float, ms: bool = False) -> str:
    """p50, the ``tail`` quantile and the max, in us (ms); how many took over SLOW_MS."""
    unit, scale, width = ("ms", 1e3, "6.2f") if ms else ("us", 1e6, "8.1f")
    p50, worst, top = (
        x * scale for x in (quantile(seconds, 0.5), quantile(seconds, tail), max(seconds))
    )
    slow = sum(s * 1e3 > SLOW_MS for s in seconds)
    return (
        f"p50 {p50:{width}} {unit}   p{tail * 100:.0f} {worst:{width}} {unit}   "
        f"max {top:{width}} {unit}   over {SLOW_MS:g} ms: {slow}"
    )


if __name__ == "__main__":
    raise SystemExit(main())
