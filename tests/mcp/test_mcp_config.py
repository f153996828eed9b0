"""The `mcp_servers` setting: Hermes's keys checked once, every mistake one line naming the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_tui.config import ConfigError, Home, load_settings
from hermes_tui.core.mcp.config import parse_servers
from hermes_tui.core.mcp.naming import tool_name


def parse(raw: object, env: dict[str, str] | None = None):
    return parse_servers(raw, source="config.toml", env=env or {})


def test_a_config_toml_table_becomes_checked_servers(tmp_path: Path) -> None:
    home = Home(tmp_path).ensure()
    home.config_file.write_text(
        """
[mcp_servers.files]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]
env = { ROOT = "/tmp" }
timeout = 120
connect_timeout = 30
trusted = true

[mcp_servers.files.tools]
include = ["read_file", "list_directory"]

[mcp_servers.remote]
url = "https://mcp.example.com/mcp"
headers = { Authorization = "Bearer ${MCP_TOKEN}" }

[mcp_servers.search]
url = "http://localhost:8000/sse"
transport = "sse"
enabled = false
""",
        encoding="utf-8",
    )
    settings = load_settings(home, env={})
    files, remote, search = parse_servers(settings.mcp_servers, source="config.toml", env={"MCP_TOKEN": "tok-123"})
    assert (files.transport, files.command, files.args[-1], files.env) == ("stdio", "npx", "/tmp", {"ROOT": "/tmp"})
    assert (files.timeout, files.connect_timeout, files.trusted) == (120.0, 30.0, True)
    assert files.offers("read_file") and not files.offers("write_file")
    assert remote.transport == "http" and remote.headers == {"Authorization": "Bearer tok-123"}
    assert (remote.timeout, remote.connect_timeout, remote.trusted) == (300.0, 60.0, False)  # Hermes's defaults
    assert search.transport == "sse" and not search.enabled


def test_hermes_yaml_shapes_load_as_they_are() -> None:
    # what PyYAML gives for a Hermes config.yaml: strings for numbers and booleans are common
    raw = {
        "github": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-github"],
            "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${env:GH}"},
            "timeout": "180",
            "enabled": "yes",
            "supports_parallel_tool_calls": True,  # Hermes keys we do not act on are accepted
            "sampling": {"enabled": True, "max_rpm": 10},
            "keepalive_interval": 10,
            "tools": {"exclude": "delete_repo", "resources": False},
        }
    }
    (server,) = parse(raw, env={"GH": "ghp_x"})
    assert server.timeout == 180.0 and server.enabled
    assert server.env == {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_x"}
    assert not server.offers("delete_repo") and server.offers("create_issue")
    (unset,) = parse({"s": {"command": "x", "env": {"K": "${NOT_SET}"}}})
    assert unset.env == {"K": "${NOT_SET}"}, "an unset variable stays as written (Hermes)"


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("npx", "'mcp_servers' must be a table of servers"),
        ({"docs": "npx"}, "'mcp_servers.docs' must be a table"),
        ({"docs": {}}, "'mcp_servers.docs' needs a 'command' (a stdio server) or a 'url'"),
        ({"docs": {"command": "x", "tiemout": 3}}, "'mcp_servers.docs': unknown key 'tiemout'"),
        ({"docs": {"command": "x", "timeout": "soon"}}, "'mcp_servers.docs.timeout' must be a positive number"),
        ({"docs": {"command": "x", "connect_timeout": 0}}, "'mcp_servers.docs.connect_timeout' must be a positive"),
        ({"docs": {"command": "x", "enabled": "perhaps"}}, "'mcp_servers.docs.enabled' must be true or false"),
        ({"docs": {"command": "x", "args": "-y pkg"}}, "'mcp_servers.docs.args' must be a list of strings"),
        ({"docs": {"command": "x", "env": {"A": ["b"]}}}, "'mcp_servers.docs.env' must be a table of strings"),
        ({"docs": {"url": "ftp://host/x"}}, "'mcp_servers.docs.url' must be an http:// or https:// URL"),
        ({"docs": {"url": "http://h/x", "transport": "ws"}}, "'mcp_servers.docs.transport' must be"),
        ({"docs": {"command": "x", "transport": "sse"}}, "'mcp_servers.docs.transport' is \"sse\" but"),
        ({"docs": {"command": "x", "tools": {"only": ["a"]}}}, "'mcp_servers.docs.tools': unknown key 'only'"),
        ({"docs": {"command": "x", "tools": {"include": [1]}}}, "'mcp_servers.docs.tools.include' must be"),
        ({"a-b": {"command": "x"}, "a_b": {"command": "y"}}, "name their tools alike (mcp__a_b__…)"),
    ],
)
def test_every_mistake_is_one_line_naming_the_key(raw: object, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse(raw)
    text = str(caught.value)
    assert message in text and text.startswith("config.toml: ") and "\n" not in text


def test_a_table_that_is_not_a_table_is_caught_when_settings_load(tmp_path: Path) -> None:
    home = Home(tmp_path).ensure()
    home.config_file.write_text('mcp_servers = "npx"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="'mcp_servers' must be a table"):
        load_settings(home, env={})


def test_tool_names_are_hermes_names() -> None:
    assert tool_name("github", "create_issue") == "mcp__github__create_issue"
    assert tool_name("my-server", "read.file v2") == "mcp__my_server__read_file_v2"
