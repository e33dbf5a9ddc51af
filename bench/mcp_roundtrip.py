"""MCP ``tools/call`` round trip, p50 and p99 over N calls per server (DESIGN.md §12).

A raw JSON-lines client over the process pipes (not the SDK client) sends one ``tools/call`` and
waits for its answer, N times, against:
* ``idea mcp-server`` from source, as IdeA declares it, calling ``idea_list_agents`` on a
  headless project runtime (3 fake agents) in a background process: pipe -> bridge -> Unix
  socket -> the app's MCP server -> back;
* ``bench/stdio_mcp_server.py``, stdlib only, tool ``echo`` (a small result): the floor;
* ``bench/sdk_mcp_server.py``, a minimal ``MCPServer`` of the official SDK, tool ``echo``;
* for reference: ``ping`` through the bridge (the transport and the app's server loop, no tool
  work); the stdlib server behind one relay process (``--relayed``: the bridge's process hops
  with none of its work, the floor of the architecture); ``cat`` (echoes the request line back:
  the pipe floor).
The servers run side by side and take turns in blocks of calls, so drift hits them alike; every
one of them is driven by the same client code (``calls``).

Targets: bridge p50 <= 5x the stdlib echo; >= 7x faster than the SDK server.
Usage: python bench/mcp_roundtrip.py [--calls 5000]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from mcp_spawn import (
    INITIALIZE,
    INITIALIZED,
    SDK_SERVER,
    STDLIB_SERVER,
    Contender,
    HeadlessRuntime,
    started,
)

BLOCK = 250  # calls per turn
WARM_UP = 200  # calls per server before measuring, not counted
BUDGET = 600.0  # seconds for the whole run; then the servers are killed (a hung read ends)


@dataclass
class Target:
    contender: Contender
    what: str  # the tool called, or the method
    params: dict | None = None  # None: a ``ping`` request instead of a ``tools/call``
    is_mcp: bool = True
    samples: list[float] = field(default_factory=list)

    def request(self, request_id: int) -> bytes:
        message: dict = {"jsonrpc": "2.0", "id": request_id}
        if self.params is None:
            message["method"] = "ping"
        else:
            message.update(method="tools/call", params=self.params)
        return json.dumps(message, separators=(",", ":")).encode() + b"\n"


def tool_call(contender: Contender, tool: str, arguments: dict) -> Target:
    return Target(contender, tool, {"name": tool, "arguments": arguments})


def quantile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def quantiles(samples: list[float]) -> tuple[float, float]:
    """p50, p99."""
    return quantile(samples, 0.5), quantile(samples, 0.99)


def calls(target: Target, proc, first_id: int, count: int, record: bool) -> None:
    """``count`` sequential round trips; each answer is checked after its time was taken."""
    stdin, stdout = proc.stdin, proc.stdout
    requests = [target.request(first_id + i) for i in range(count)]
    for i, request in enumerate(requests):
        started_at = time.perf_counter()
        stdin.write(request)
        stdin.flush()
        line = stdout.readline()
        elapsed = time.perf_counter() - started_at
        if record:
            target.samples.append(elapsed)
        check(target, line, first_id + i)


def take_turns(blocks: Sequence[Callable[[int, int], None]], total: int, first_id: int) -> None:
    """``total`` calls of each contender, ``blocks[i](first_id, count)`` making ``count`` of
    them: in blocks of BLOCK, the contenders taking turns in an order that rotates each time."""
    done = 0
    turn = 0
    while done < total:
        count = min(BLOCK, total - done)
        shift = turn % len(blocks)
        for block in [*blocks[shift:], *blocks[:shift]]:
            block(first_id + done, count)
        done += count
        turn += 1


def check(target: Target, line: bytes, request_id: int) -> None:
    try:
        answer = json.loads(line)
    except ValueError:
        raise RuntimeError(f"{target.contender.name}: not an answer: {line[:300]!r}") from None
    if not target.is_mcp:
        return
    result = answer.get("result")
    if answer.get("id") != request_id or not isinstance(result, dict) or result.get("isError"):
        raise RuntimeError(f"{target.contender.name}: bad answer {line[:300]!r}")


def initialize(target: Target, proc) -> None:
    if not target.is_mcp:
        return
    proc.stdin.write(INITIALIZE)
    proc.stdin.flush()
    line = proc.stdout.readline()
    if b'"result"' not in line:
        raise RuntimeError(f"{target.contender.name}: initialize failed: {line[:300]!r}")
    proc.stdin.write(INITIALIZED)
    proc.stdin.flush()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=5000)
    args = parser.parse_args()
    python = sys.executable
    with HeadlessRuntime() as runtime, contextlib.ExitStack() as stack:
        stdlib = Contender("stdlib stdio server", [python, str(STDLIB_SERVER)])
        sdk = Contender("SDK MCPServer", [python, str(SDK_SERVER)])
        targets = [
            tool_call(runtime.bridge(), "idea_list_agents", {}),
            tool_call(stdlib, "echo", {"text": "ok"}),
            tool_call(sdk, "echo", {"text": "ok"}),
            Target(runtime.bridge(), "ping"),
            tool_call(
                Contender("stdlib server, relayed", [python, str(STDLIB_SERVER), "--relayed"]),
                "echo",
                {"text": "ok"},
            ),
        ]
        cat = shutil.which("cat")
        if cat:
            targets.append(Target(Contender("cat (pipe floor)", [cat]), "ping", is_mcp=False))
        procs = [stack.enter_context(started(t.contender, BUDGET)) for t in targets]
        blocks = []
        for target, proc in zip(targets, procs, strict=True):
            initialize(target, proc)
            calls(target, proc, 1, WARM_UP, record=False)
            blocks.append(functools.partial(calls, target, proc, record=True))
        take_turns(blocks, args.calls, WARM_UP + 1)
    print(f"tools/call round trip, raw JSON-lines client, {args.calls} calls each ({python})")
    p50s = []
    for target in targets:
        p50, p99 = quantiles(target.samples)
        p50s.append(p50)
        print(
            f"  {target.contender.name:<26} {target.what:<17} p50 {p50 * 1e6:8.1f} us   "
            f"p99 {p99 * 1e6:8.1f} us"
        )
    bridge, stdlib_p50, sdk_p50, ping_p50, relayed_p50 = p50s[:5]
    floor = bridge / stdlib_p50
    sdk_ratio = sdk_p50 / bridge
    print(
        f"stdlib echo relayed / stdlib echo (p50, the process hops alone): "
        f"{relayed_p50 / stdlib_p50:.2f}x"
    )
    print(f"bridge ping / stdlib echo (p50): {ping_p50 / stdlib_p50:.2f}x")
    print(f"bridge / stdlib echo (p50): {floor:.2f}x (target <= 5x: {_met(floor <= 5)})")
    print(f"SDK MCPServer / bridge (p50): {sdk_ratio:.2f}x (target >= 7x: {_met(sdk_ratio >= 7)})")
    return 0


def _met(ok: bool) -> str:
    return "met" if ok else "MISSED"


if __name__ == "__main__":
    raise SystemExit(main())
