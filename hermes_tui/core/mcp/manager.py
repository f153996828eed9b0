"""Every MCP server of one agent: started in the background, their tools in the registry, one line each.

`McpManager.start()` returns at once: each enabled server connects in its own task
(`client.McpConnection`), so nothing waits for a slow server — the TUI's first frame, the
prompt, the other servers. When a server connects its tools (after the include/exclude lists)
are registered as `McpTool`s and `on_tools_changed` is called, so the agent sends them from its
next turn on; a name that clashes with a built-in tool keeps the built-in, and one longer than a
provider accepts is left out, each said once in the Review log.

The Review log gets one line per event worth knowing: a server connected (with its tool count),
failed to connect or lost its connection (once, however many retries follow), came back. A server
that fails never stops the others. `wait_ready` lets a one-shot run wait for the first attempts
(each bounded by its `connect_timeout`); `reload` (`/reload-mcp`) stops every server and starts
the configured ones again; `close` stops them all at once (their processes end with them).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from hermes_tui.core.emitter import Emitter
from hermes_tui.core.mcp.client import CALL_GRACE, McpConnection, State
from hermes_tui.core.mcp.config import ServerConfig
from hermes_tui.core.mcp.naming import MAX_NAME, too_long, tool_name
from hermes_tui.core.mcp.tools import McpTool
from hermes_tui.core.tools.registry import ToolRegistry
from hermes_tui.store.file_modes import PRIVATE_FILE_MODE, make_private_dir

SDK_LOGGERS = ("mcp", "client", "mcp_types")  # the SDK's ClientSession logs as "client"


@dataclass(frozen=True)
class ServerStatus:
    """What /tools shows of one server."""

    name: str
    state: str  # a client.State value, or "disabled"
    transport: str
    trusted: bool
    tools: tuple[str, ...]  # the registered names
    error: str = ""


def route_sdk_logs(log_dir: Path) -> None:
    """The SDK's own log records go to `<log_dir>/mcp.log` (0600), never to the terminal."""
    for name in SDK_LOGGERS:
        logger = logging.getLogger(name)
        if any(getattr(handler, "_hermes_tui", False) for handler in logger.handlers):
            continue
        try:
            make_private_dir(log_dir)
            path = log_dir / "mcp.log"
            if not path.exists():
                path.touch(PRIVATE_FILE_MODE)
            handler: logging.Handler = logging.FileHandler(path, encoding="utf-8", delay=True)
        except OSError:
            handler = logging.NullHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
        handler._hermes_tui = True  # type: ignore[attr-defined]
        logger.addHandler(handler)
        logger.setLevel(logging.WARNING)
        logger.propagate = False


class McpManager:
    """The agent's MCP servers and the registry entries of their tools."""

    def __init__(
        self,
        servers: Sequence[ServerConfig],
        *,
        registry: ToolRegistry,
        emitter: Emitter,
        log_dir: Path,
        on_tools_changed: Callable[[], None] = lambda: None,
        backoff_first: float | None = None,
    ) -> None:
        self.servers = list(servers)
        self._registry = registry
        self._events = emitter
        self._log_dir = log_dir
        self._on_tools_changed = on_tools_changed
        self.backoff_first = backoff_first  # seconds before the first retry (None: the client's default)
        self._connections: dict[str, McpConnection] = {}
        self._registered: dict[str, list[str]] = {}  # server -> the tool names registered for it

    @property
    def connections(self) -> list[McpConnection]:
        return list(self._connections.values())

    def connection(self, name: str) -> McpConnection | None:
        return self._connections.get(name)

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """Start connecting every enabled server in the background; returns at once."""
        enabled = [server for server in self.servers if server.enabled]
        if enabled:
            route_sdk_logs(self._log_dir)
        for server in enabled:
            if server.name in self._connections:
                continue
            extra = {} if self.backoff_first is None else {"backoff_first": self.backoff_first}
            connection = McpConnection(server, log_dir=self._log_dir, listener=self, **extra)
            self._connections[server.name] = connection
            connection.start()

    async def wait_ready(self) -> None:
        """Wait until every server's first attempt has connected or failed (each within its connect_timeout)."""
        waits = [c.wait_settled(c.config.connect_timeout + CALL_GRACE) for c in self._connections.values()]
        if waits:
            await asyncio.gather(*waits)

    async def close(self) -> None:
        """Stop every server at once and take their tools out of the registry."""
        connections = list(self._connections.values())
        self._connections.clear()
        if connections:
            await asyncio.gather(*(connection.stop() for connection in connections), return_exceptions=True)
        changed = False
        for server in list(self._registered):
            changed = self._unregister(server) or changed
        if changed:
            self._on_tools_changed()

    async def reload(self, servers: Sequence[ServerConfig] | None = None) -> str:
        """/reload-mcp: stop every server, start the configured ones again, wait for them; a summary."""
        await self.close()
        if servers is not None:
            self.servers = list(servers)
        self.start()
        await self.wait_ready()
        return self.summary()

    # ------------------------------------------------------------------ what the front-ends show

    def status(self) -> list[ServerStatus]:
        rows = []
        for server in self.servers:
            connection = self._connections.get(server.name)
            state = "disabled" if not server.enabled else (connection.state.value if connection else "stopped")
            rows.append(
                ServerStatus(
                    name=server.name,
                    state=state,
                    transport=server.transport,
                    trusted=server.trusted,
                    tools=tuple(self._registered.get(server.name, ())),
                    error=connection.error if connection else "",
                )
            )
        return rows

    def summary(self) -> str:
        """One line per server: its state and tool count, or why it is down."""
        if not self.servers:
            return "No MCP servers are configured (mcp_servers in config.toml or config.yaml)."
        lines = []
        for row in self.status():
            if row.state == State.CONNECTED.value:
                lines.append(f"MCP server '{row.name}': connected, {_count(len(row.tools))}")
            elif row.state == "disabled":
                lines.append(f"MCP server '{row.name}': disabled (enabled = false)")
            else:
                reason = f" — {row.error}" if row.error else ""
                lines.append(f"MCP server '{row.name}': {row.state}{reason}")
        return "\n".join(lines)

    # ------------------------------------------------------------------ the connections' reports

    def connected(self, connection: McpConnection, *, again: bool) -> None:
        names = self._register(connection)
        verb = "reconnected" if again else "connected"
        self._events.review("info", f"MCP server '{connection.name}' {verb}: {_count(len(names))}")
        self._on_tools_changed()

    def failed(self, connection: McpConnection, reason: str, *, was_connected: bool) -> None:
        if was_connected:
            text = f"MCP server '{connection.name}' disconnected: {reason}; reconnecting"
        else:
            text = f"MCP server '{connection.name}' failed to connect: {reason}"
        self._events.review("warning", text)
        self._events.status(text)  # a headless run prints it on stderr; the TUI's status bar shows it

    # ------------------------------------------------------------------ the registry

    def _register(self, connection: McpConnection) -> list[str]:
        """(Re-)register the tools a connected server offers; the names registered."""
        server = connection.config
        self._unregister(server.name)
        names: list[str] = []
        for listed in connection.tools:
            if not server.offers(str(listed.name)):
                continue
            name = tool_name(server.name, str(listed.name))
            if too_long(name):
                self._events.review(
                    "warning",
                    f"MCP tool '{listed.name}' of server '{server.name}' left out: '{name}' is longer than "
                    f"{MAX_NAME} characters",
                    once_key=f"mcp-long:{name}",
                )
                continue
            existing = self._registry.get(name)
            if existing is not None and not isinstance(existing, McpTool):
                self._events.review(
                    "warning",
                    f"MCP tool '{listed.name}' of server '{server.name}' left out: {name} is a built-in tool's name",
                    once_key=f"mcp-clash:{name}",
                )
                continue
            self._registry.register(McpTool(connection, listed, name))
            names.append(name)
        self._registered[server.name] = names
        return names

    def _unregister(self, server: str) -> bool:
        names = self._registered.pop(server, [])
        for name in names:
            self._registry.unregister(name)
        return bool(names)


def _count(number: int) -> str:
    return f"{number} tool{'s' if number != 1 else ''}"
