"""The floor for the MCP benches: a stdlib-only stdio MCP server, one tool ``echo`` (echoes its
``text`` argument). One JSON object per line on stdout; exits on stdin EOF.

``--relayed``: the same server (the same loop below) in a child process behind a relay process
(a select loop passing bytes between stdin/stdout and a Unix socket pair as they come): the
process hops of IdeA's bridge with none of its work, the floor of that architecture here.
"""

import json
import sys

TOOL = {"name": "echo", "description": "Echo text.", "inputSchema": {"type": "object"}}
INFO = {"name": "stdlib-echo", "version": "1.0.0"}


def answer(method: str, params: dict) -> dict:
    if method == "initialize":
        version = params.get("protocolVersion", "2025-11-25")
        return {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": INFO}
    if method == "tools/list":
        return {"tools": [TOOL]}
    if method == "tools/call":
        text = str((params.get("arguments") or {}).get("text", ""))
        return {"content": [{"type": "text", "text": text}], "isError": False}
    return {}


def relay_to_a_child() -> None:
    """Fork: the child returns (and serves over the socket as its stdin and stdout); this
    process relays until the child is done, then exits."""
    import os  # noqa: PLC0415  (only this mode needs them: the plain server stays as it was)
    import select  # noqa: PLC0415
    import socket  # noqa: PLC0415

    relay_end, server_end = socket.socketpair()
    if os.fork() == 0:
        relay_end.close()
        os.dup2(server_end.fileno(), 0)
        os.dup2(server_end.fileno(), 1)
        server_end.close()
        return
    server_end.close()
    readers = [relay_end, 0]
    while True:
        for ready in select.select(readers, [], [])[0]:
            if ready == 0:
                data = os.read(0, 65536)
                if data:
                    relay_end.sendall(data)
                else:
                    readers.remove(0)
                    relay_end.shutdown(socket.SHUT_WR)
            else:
                data = relay_end.recv(65536)
                if not data:
                    os.wait()
                    sys.exit(0)
                os.write(1, data)


if sys.argv[1:] == ["--relayed"]:
    relay_to_a_child()

for line in sys.stdin:
    message = json.loads(line) if line.strip() else {}
    if "id" in message:
        result = answer(message.get("method", ""), message.get("params") or {})
        reply = {"jsonrpc": "2.0", "id": message["id"], "result": result}
        sys.stdout.write(json.dumps(reply, separators=(",", ":")) + "\n")
        sys.stdout.flush()
