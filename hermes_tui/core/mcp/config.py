"""The `mcp_servers` setting: one checked `ServerConfig` per configured MCP server.

The keys are Hermes's (`mcp_servers:` in config.yaml; `[mcp_servers.NAME]` in config.toml):

    command, args, env     a stdio server: the program to start and its environment additions
    url, headers           a remote server over Streamable HTTP; with `transport = "sse"` over SSE
    timeout                seconds one tool call may take (Hermes's default: 300)
    connect_timeout        seconds to connect and list the tools (Hermes's default: 60)
    enabled                false: the server is not started
    tools.include          only these tool names are offered (it wins over exclude)
    tools.exclude          every tool but these

and one of ours: `trusted = true` lets the server's tools run without asking. Keys Hermes has
for features we do not carry (sampling, OAuth, keep-alive, recycling…) are accepted and left
alone, so a Hermes config.yaml loads as it is. `${VAR}` and `${env:VAR}` in any string are
read from the environment (an unset one stays as written), as Hermes does.

Everything is checked once, here; a mistake is one `ConfigError` line that names the key
(`config.toml: 'mcp_servers.docs.timeout' must be a positive number, got 'soon'`).
Pure: imports nothing of the SDK, so settings load without it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

from hermes_tui.config import ConfigError
from hermes_tui.core.mcp.naming import name_part

KEY = "mcp_servers"
DEFAULT_TIMEOUT = 300.0
DEFAULT_CONNECT_TIMEOUT = 60.0
TRANSPORTS = {"stdio": "stdio", "http": "http", "streamable-http": "http", "streamable_http": "http", "sse": "sse"}
OUR_KEYS = frozenset({"trusted"})
HERMES_KEYS = frozenset(
    {"command", "args", "env", "url", "headers", "transport", "timeout", "connect_timeout", "enabled", "tools"}
)
# Hermes keys for what hermes-tui does not do; accepted so a Hermes config loads unchanged.
UNUSED_HERMES_KEYS = frozenset(
    {
        "auth",
        "oauth",
        "sampling",
        "elicitation",
        "keepalive_interval",
        "idle_timeout_seconds",
        "max_lifetime_seconds",
        "lifecycle",
        "supports_parallel_tool_calls",
        "skip_preflight",
        "ssl_verify",
        "client_cert",
        "client_key",
    }
)
TOOLS_KEYS = frozenset({"include", "exclude", "resources", "prompts"})
_ENV_REF = re.compile(r"\$\{([^}]+)\}")
_TRUE = frozenset({"true", "1", "yes", "on"})
_FALSE = frozenset({"false", "0", "no", "off"})


@dataclass(frozen=True)
class ServerConfig:
    """One MCP server as configured (already checked)."""

    name: str
    transport: str  # "stdio" | "http" | "sse"
    command: str = ""
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    url: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    timeout: float = DEFAULT_TIMEOUT
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    enabled: bool = True
    include: frozenset[str] = frozenset()
    exclude: frozenset[str] = frozenset()
    trusted: bool = False

    def offers(self, tool: str) -> bool:
        """Whether the include/exclude lists let this server tool through (include wins, as in Hermes)."""
        if self.include:
            return tool in self.include
        return tool not in self.exclude

    @property
    def where(self) -> str:
        """What the server is, for a person: the command line or the URL."""
        if self.transport == "stdio":
            return " ".join((self.command, *self.args))
        return self.url


def interpolate(value: Any, env: Mapping[str, str]) -> Any:
    """`${VAR}` / `${env:VAR}` in every string of `value` replaced from `env` (unset: left as written)."""
    if isinstance(value, str):

        def replace(match: re.Match[str]) -> str:
            name = match.group(1).strip().removeprefix("env:").strip()
            return env.get(name) or match.group(0)

        return _ENV_REF.sub(replace, value)
    if isinstance(value, Mapping):
        return {key: interpolate(item, env) for key, item in value.items()}
    if isinstance(value, list):
        return [interpolate(item, env) for item in value]
    return value


def parse_servers(raw: Any, *, source: str, env: Mapping[str, str]) -> list[ServerConfig]:
    """Every server of the `mcp_servers` table, in the order written; ConfigError (one line) on a mistake."""
    if raw is None or raw == {}:
        return []
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{source}: '{KEY}' must be a table of servers, got {type(raw).__name__}")
    servers = [_server(str(name), table, source, env) for name, table in raw.items()]
    prefixes: dict[str, str] = {}
    for server in servers:
        prefix = name_part(server.name)
        if prefix in prefixes:
            raise ConfigError(
                f"{source}: '{KEY}.{prefixes[prefix]}' and '{KEY}.{server.name}' name their tools alike "
                f"(mcp__{prefix}__…); rename one"
            )
        prefixes[prefix] = server.name
    return servers


def _server(name: str, table: Any, source: str, env: Mapping[str, str]) -> ServerConfig:
    where = f"{source}: '{KEY}.{name}"
    if not name.strip():
        raise ConfigError(f"{source}: a server under '{KEY}' has an empty name")
    if not isinstance(table, Mapping):
        raise ConfigError(f"{where}' must be a table, got {type(table).__name__}")
    known = HERMES_KEYS | OUR_KEYS | UNUSED_HERMES_KEYS
    for key in table:
        if key not in known:
            raise ConfigError(f"{where}': unknown key '{key}'")
    values = interpolate({key: table[key] for key in table if key not in UNUSED_HERMES_KEYS}, env)
    url = values.get("url")
    command = values.get("command")
    transport = _transport(values.get("transport"), where)
    if url is not None:
        url = _url(url, where)
        if transport == "stdio":
            raise ConfigError(f"{where}.transport' is \"stdio\" but the server has a 'url'")
        transport = transport or "http"
    elif command is not None:
        if not isinstance(command, str) or not command.strip():
            raise ConfigError(f"{where}.command' must be a program name or path, got {command!r}")
        if transport in ("http", "sse"):
            raise ConfigError(f"{where}.transport' is \"{transport}\" but the server has no 'url'")
        transport = "stdio"
    else:
        raise ConfigError(f"{where}' needs a 'command' (a stdio server) or a 'url' (a remote one)")
    include, exclude = _tool_filters(values.get("tools"), where)
    return ServerConfig(
        name=name,
        transport=transport,
        command=command.strip() if transport == "stdio" and isinstance(command, str) else "",
        args=_strings(values.get("args", []), f"{where}.args'"),
        env=_string_table(values.get("env", {}), f"{where}.env'"),
        url=url or "",
        headers=_string_table(values.get("headers", {}), f"{where}.headers'"),
        timeout=_seconds(values.get("timeout", DEFAULT_TIMEOUT), f"{where}.timeout'"),
        connect_timeout=_seconds(values.get("connect_timeout", DEFAULT_CONNECT_TIMEOUT), f"{where}.connect_timeout'"),
        enabled=_boolean(values.get("enabled", True), f"{where}.enabled'"),
        include=include,
        exclude=exclude,
        trusted=_boolean(values.get("trusted", False), f"{where}.trusted'"),
    )


def _transport(value: Any, where: str) -> str:
    if value is None:
        return ""
    chosen = TRANSPORTS.get(str(value).strip().lower()) if isinstance(value, str) else None
    if chosen is None:
        raise ConfigError(f'{where}.transport\' must be "stdio", "http" or "sse", got {value!r}')
    return chosen


def _url(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise ConfigError(f"{where}.url' must be an http:// or https:// URL, got {type(value).__name__}")
    url = value.strip()
    parsed = urlparse(url)
    if parsed.scheme.lower() not in ("http", "https") or not parsed.hostname:
        raise ConfigError(f"{where}.url' must be an http:// or https:// URL with a host, got {value!r}")
    return url


def _strings(value: Any, label: str) -> tuple[str, ...]:
    if isinstance(value, list) and all(isinstance(item, (str, int, float)) for item in value):
        return tuple(str(item) for item in value)
    raise ConfigError(f"{label} must be a list of strings, got {value!r}")


def _string_table(value: Any, label: str) -> dict[str, str]:
    if isinstance(value, Mapping) and all(isinstance(item, (str, int, float, bool)) for item in value.values()):
        return {str(key): _as_text(item) for key, item in value.items()}
    raise ConfigError(f"{label} must be a table of strings, got {value!r}")


def _as_text(item: str | int | float | bool) -> str:
    if isinstance(item, bool):
        return "true" if item else "false"
    return str(item)


def _seconds(value: Any, label: str) -> float:
    number: float | None = None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str):  # YAML users write "30" as often as 30
        try:
            number = float(value.strip())
        except ValueError:
            number = None
    if number is None or not math.isfinite(number) or number <= 0:
        raise ConfigError(f"{label} must be a positive number of seconds, got {value!r}")
    return number


def _boolean(value: Any, label: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise ConfigError(f"{label} must be true or false, got {value!r}")


def _names(value: Any, label: str) -> frozenset[str]:
    if value is None:
        return frozenset()
    if isinstance(value, str):
        return frozenset({value})
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return frozenset(value)
    raise ConfigError(f"{label} must be a tool name or a list of tool names, got {value!r}")


def _tool_filters(value: Any, where: str) -> tuple[frozenset[str], frozenset[str]]:
    if value is None:
        return frozenset(), frozenset()
    if not isinstance(value, Mapping):
        raise ConfigError(f"{where}.tools' must be a table (include, exclude), got {value!r}")
    for key in value:
        if key not in TOOLS_KEYS:
            raise ConfigError(f"{where}.tools': unknown key '{key}' (include, exclude)")
    return _names(value.get("include"), f"{where}.tools.include'"), _names(
        value.get("exclude"), f"{where}.tools.exclude'"
    )
