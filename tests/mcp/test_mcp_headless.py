"""`hermes-tui run` with MCP servers: it waits for them, uses their tools and names the one that failed."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.fake_llm import FakeLLMServer, Reply
from tests.mcp.helpers import SERVERS, tool_messages
from tests.test_cli import run_cli


def test_a_one_shot_run_uses_an_mcp_tool_and_says_which_server_failed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    (home / "config.toml").write_text(
        "[mcp_servers.local]\n"
        f"command = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(str(SERVERS / 'basic.py'))}]\n"
        "trusted = true\n"
        "[mcp_servers.missing]\n"
        f"command = {json.dumps(str(tmp_path / 'no-such-server'))}\n"
        "[mcp_servers.typo]\n"
        "url = 'http://127.0.0.1:9/mcp'\n"
        "connect_timeout = 5\n",
        encoding="utf-8",
    )
    with FakeLLMServer() as srv:
        srv.enqueue(Reply(tool_calls=[("c1", "mcp__local__add", json.dumps({"a": 20, "b": 22}))]), Reply(text="42."))
        result = run_cli(
            "run", "add them", "--provider", "openai", "--base-url", srv.base_url_openai, "--home", str(home),
            cwd=tmp_path, env={"OPENAI_API_KEY": "k"},
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == "42."
        assert "mcp__local__add" in [t["function"]["name"] for t in srv.requests[0].body["tools"]]
        assert "20 + 22 = 42" in tool_messages(srv.requests[1].body)[0]["content"]
    failures = [line for line in result.stderr.splitlines() if "failed to connect" in line]
    assert len(failures) == 2 and any(line.startswith("MCP server 'missing' failed") for line in failures)
    assert "Traceback" not in result.stderr


def test_a_broken_server_entry_stops_the_run_with_one_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    (home / "config.toml").write_text("[mcp_servers.docs]\ncommand = 'x'\ntimeout = 'soon'\n", encoding="utf-8")
    result = run_cli("run", "hi", "--home", str(home), cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"hermes-tui: error: {home / 'config.toml'}: 'mcp_servers.docs.timeout' must be a positive number of seconds,"
        " got 'soon'"
    ]
