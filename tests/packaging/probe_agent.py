"""A stand-in agent CLI for tests/packaging/test_appimage.py, started by ``idea serve``.

It does what a real CLI does with IdeA's declaration: reads it (its path is in ``$PROBE_MCP``),
starts the declared ``idea`` server with the official SDK client, initializes, lists the tools
and calls ``idea_list_agents``. Then it reports the declaration, the call's result and the
environment it was given as one JSON line on the Unix socket ``argv[1]`` (the test listens).
Usage: python probe_agent.py SOCKET
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
import traceback
from pathlib import Path

REPORTED_ENV = ("APPIMAGE", "APPDIR", "LD_LIBRARY_PATH", "IDEA_AGENT")


async def use_the_declaration(server: dict) -> dict:
    # Imported here: an import error is reported to the test like any other.
    from mcp import ClientSession, StdioServerParameters  # noqa: PLC0415
    from mcp.client.stdio import stdio_client  # noqa: PLC0415

    params = StdioServerParameters(
        command=server["command"],
        args=server["args"],
        env={**os.environ, **server.get("env", {})},
    )
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write) as session,
    ):
        init = await session.initialize()
        tools = sorted(tool.name for tool in (await session.list_tools()).tools)
        result = await session.call_tool("idea_list_agents", {})
        text = "".join(block.text for block in result.content if block.type == "text")
        return {
            "server_name": init.server_info.name,
            "tools": tools,
            "is_error": result.is_error,
            "text": text,
        }


def main() -> int:
    report: dict = {"env": {name: os.environ.get(name) for name in REPORTED_ENV}}
    try:
        declaration = json.loads(Path(os.environ["PROBE_MCP"]).read_text(encoding="utf-8"))
        server = declaration["mcpServers"]["idea"]
        report["server"] = server
        report["call"] = asyncio.run(asyncio.wait_for(use_the_declaration(server), 120))
    except Exception:
        report["error"] = traceback.format_exc()
    with socket.socket(socket.AF_UNIX) as conn:
        conn.connect(sys.argv[1])
        conn.sendall(json.dumps(report).encode() + b"\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
