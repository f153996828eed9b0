"""Shared start-up of the test MCP servers: stdio (the default), `--http` or `--sse` on a loopback port.

Every server is written with the SDK's own server API (`mcp.server.mcpserver.MCPServer`, mcp 2's
FastMCP). Over HTTP it binds 127.0.0.1 on a free port chosen by the kernel and prints
`PORT <n>` on stdout, so a test knows where to connect without guessing a port. With
MCP_TEST_PID_FILE set, the process writes its pid there first (tests check it is gone after close);
MCP_TEST_START_DELAY seconds of sleep before serving makes a server that is slow to come up.
Each server says "test server NAME starting" on stderr (which the client sends to a log file).
"""

from __future__ import annotations

import os
import socket
import sys
import time

from mcp.server.mcpserver import MCPServer


def _announce() -> None:
    print(f"test server {os.path.basename(sys.argv[0])} starting", file=sys.stderr, flush=True)
    pid_file = os.environ.get("MCP_TEST_PID_FILE")
    if pid_file:
        with open(pid_file, "w", encoding="utf-8") as handle:
            handle.write(str(os.getpid()))
    delay = float(os.environ.get("MCP_TEST_START_DELAY", "0") or 0)
    if delay:
        time.sleep(delay)


def _serve_http(server: MCPServer, sse: bool) -> None:
    import anyio
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    app = server.sse_app() if sse else server.streamable_http_app()
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    anyio.run(uvicorn.Server(config).serve, [sock])


def run(server: MCPServer) -> None:
    _announce()
    if "--http" in sys.argv:
        _serve_http(server, sse=False)
    elif "--sse" in sys.argv:
        _serve_http(server, sse=True)
    else:
        server.run("stdio")
