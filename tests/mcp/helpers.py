"""Helpers for the MCP tests: real SDK servers (tests/mcp/servers) over stdio, HTTP and SSE, and a real Agent.

Nothing is mocked: the servers are written with the SDK's server API and run as subprocesses
(HTTP and SSE ones on a loopback port the kernel picks, announced on their stdout), the client
is ours over the SDK, and the model is the loopback fake LLM server.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hermes_tui.config import Settings
from hermes_tui.core import events as ev
from tests.core.helpers import EventLog, make_agent, openai_choice

SERVERS = Path(__file__).parent / "servers"


def stdio(script: str, **extra: Any) -> dict[str, Any]:
    """The config table of a stdio test server (`extra`: more keys, e.g. timeout, tools, env)."""
    return {"command": sys.executable, "args": [str(SERVERS / f"{script}.py")], **extra}


@contextmanager
def http_server(script: str, transport: str = "http") -> Iterator[str]:
    """A test server over Streamable HTTP (`http`) or SSE (`sse`) in a subprocess; yields its URL."""
    process = subprocess.Popen(
        [sys.executable, str(SERVERS / f"{script}.py"), f"--{transport}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    try:
        line = process.stdout.readline() if process.stdout else ""  # blocks until the port is bound
        assert line.startswith("PORT "), f"the {script} server did not start: {line!r}"
        port = int(line.split()[1])
        yield f"http://127.0.0.1:{port}/{'sse' if transport == 'sse' else 'mcp'}"
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


def with_servers(servers: dict[str, Any], settings: Settings | None = None, **tools: Any) -> Settings:
    settings = settings or Settings()
    if tools:
        settings = dataclasses.replace(settings, tools=dataclasses.replace(settings.tools, **tools))
    return dataclasses.replace(settings, mcp_servers=servers)


async def mcp_agent(
    tmp_path: Path, servers: dict[str, Any], *, base_url: str = "", approver: Any = None, **kwargs: Any
) -> tuple[Any, Any, EventLog]:
    """A real Agent (on the fake LLM server when `base_url`) whose MCP servers have connected or failed once."""
    choice = {"choice": openai_choice(base_url)} if base_url else {}
    settings = with_servers(servers, kwargs.pop("settings", None), **kwargs.pop("tools", {}))
    agent, db, log = await make_agent(tmp_path, settings=settings, approver=approver, **choice, **kwargs)
    agent.mcp.backoff_first = 0.05  # retries in the tests come quickly
    agent.start_mcp()
    await agent.wait_for_mcp()
    return agent, db, log


def review_lines(log: EventLog, kind: str | None = None) -> list[str]:
    return [e.text for e in log.of(ev.ReviewEntry) if kind is None or e.kind == kind]


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie still answers kill(0) until it is reaped
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            return handle.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False
    return True


def tool_messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [message for message in body["messages"] if message.get("role") == "tool"]


def tool_names(body: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in body.get("tools") or []]
