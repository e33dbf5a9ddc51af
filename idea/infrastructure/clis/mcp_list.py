"""A CLI's own ``mcp list`` command as ``probe_mcp`` evidence when its protocol has no tool call.

Gemini CLI and Qwen Code print one line per server, ``✓ idea: <command> (stdio) - Connected``
(``✗ … - Disconnected``), after connecting to each; the probe passes on the ``Connected`` line of
IdeA's server and raises ``Unavailable`` quoting what was printed instead.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping, Sequence

from idea.domain.errors import Unavailable
from idea.infrastructure.clis.console_text import strip_ansi
from idea.infrastructure.clis.declaration import MCP_SERVER_NAME
from idea.infrastructure.processes.executables import start_errors

_OURS = re.compile(rf"^\S+\s+{re.escape(MCP_SERVER_NAME)}:\s")


async def run_mcp_list(
    cli: str, argv: Sequence[str], cwd: str, env: Mapping[str, str], timeout: float
) -> str:
    """Run ``argv`` (the CLI's ``mcp list``) and return its output. Raises ``Unavailable``."""
    with start_errors(f"{cli} mcp list"):
        proc = await asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            env=dict(env),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
    try:
        async with asyncio.timeout(timeout):
            out, _ = await proc.communicate()
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise Unavailable(f"{cli} mcp list did not finish within {timeout:g} s") from None
    return out.decode("utf-8", errors="replace")


def connected_line(cli: str, output: str) -> str:
    """The line of ``output`` saying IdeA's server is connected. Raises ``Unavailable``."""
    lines = [strip_ansi(line).strip() for line in output.splitlines()]
    ours = [line for line in lines if _OURS.match(line)]
    if ours and ours[0].endswith("- Connected"):
        return ours[0]
    found = ours[0] if ours else f"the server {MCP_SERVER_NAME!r} is not listed"
    raise Unavailable(f"{cli} does not reach IdeA's MCP server: {found}")
