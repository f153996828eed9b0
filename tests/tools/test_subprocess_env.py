"""Shell commands do not see the agent's credentials (issue 17 item 2): real bash, a real CLI run.

The terminal tool runs `printenv` in a real shell: provider keys, tokens and base URLs are gone,
PATH, HOME and the user's own variables are there, and `[tools] env_passthrough` / `env_strip`
change that. End to end, a headless run whose model asks for `printenv` stores a tool result in
state.db that holds no key, and the model is never sent one either.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from hermes_tui.config import ConfigError, Home, load_settings
from hermes_tui.config_chain import POOL_ENV
from hermes_tui.core.tools.registry import ToolRegistry
from hermes_tui.core.tools.subprocess_env import tool_subprocess_env
from hermes_tui.core.tools.terminal import TerminalTool
from tests.fake_llm import FakeLLMServer, Reply
from tests.tools.helpers import make_context

SECRETS = {
    "OPENAI_API_KEY": "sk-test-openai-0001",
    "ANTHROPIC_API_KEY": "sk-ant-test-0002",
    "ANTHROPIC_AUTH_TOKEN": "ant-auth-0003",
    "OPENAI_API_KEYS": "sk-pool-0004,sk-pool-0005",
    "ANTHROPIC_API_KEYS": "sk-ant-pool-0006",
    "OPENROUTER_API_KEY": "or-test-0007",
    "HF_TOKEN": "hf_test_0008",
    "GROQ_API_KEY": "gsk_test_0009",
    "GITHUB_COPILOT_TOKEN": "ghu_test_0010",
    "GH_TOKEN": "gho_test_0011",
    "OPENAI_BASE_URL": "https://user:secret-0012@gateway.example/v1",
    "ANTHROPIC_BASE_URL": "https://gateway.example/?key=secret-0013",
    "HERMES_TUI_BASE_URL": "https://gateway.example/?token=secret-0014",
    "SOMEONE_ELSES_API_KEY": "secret-0015",
}
HARMLESS = {"HARMLESS_SETTING": "visible-value", "HERMES_TUI_HOME": "/tmp/some-home"}


async def printenv(tmp_path: Path, **settings: object) -> dict[str, str]:
    """What `printenv` in a real shell run by the terminal tool shows, as a dict."""
    registry = ToolRegistry()
    registry.register(TerminalTool())
    ctx = make_context(tmp_path, auto_approve=True, **settings)
    result = await registry.dispatch("terminal", json.dumps({"command": "printenv"}), ctx)
    assert not result.is_error, result.content
    lines = json.loads(result.content)["output"].splitlines()
    return dict(line.split("=", 1) for line in lines if "=" in line)


@pytest.fixture
def secret_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {**SECRETS, **HARMLESS}.items():
        monkeypatch.setenv(name, value)


@pytest.mark.usefixtures("secret_env")
async def test_a_shell_command_sees_no_credential_but_everything_else(tmp_path: Path) -> None:
    seen = await printenv(tmp_path)
    leaked = sorted(name for name in SECRETS if name in seen)
    assert leaked == []
    shown = "\n".join(f"{k}={v}" for k, v in seen.items())
    assert not [value for value in SECRETS.values() if value in shown]
    assert seen["PATH"] == os.environ["PATH"] and seen["HOME"] == os.environ["HOME"]
    assert seen["HARMLESS_SETTING"] == "visible-value" and seen["HERMES_TUI_HOME"] == "/tmp/some-home"
    assert seen["PAGER"] == "cat"  # the terminal's own additions are still there


@pytest.mark.usefixtures("secret_env")
async def test_the_settings_pass_and_strip_names(tmp_path: Path) -> None:
    seen = await printenv(tmp_path, env_passthrough=["HF_TOKEN"], env_strip=["HARMLESS_SETTING"])
    assert seen["HF_TOKEN"] == SECRETS["HF_TOKEN"]  # kept although it is a provider token
    assert "HARMLESS_SETTING" not in seen  # removed although nothing marks it as a secret
    assert "OPENAI_API_KEY" not in seen and seen["PATH"] == os.environ["PATH"]


def test_every_variable_our_provider_set_up_reads_is_stripped() -> None:
    """The names config.py, config_chain.py and the provider factory read keys and URLs from."""
    read_by_us = {
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_BASE_URL",
        "HERMES_TUI_BASE_URL",
        *POOL_ENV.values(),
    }
    env = tool_subprocess_env({name: "x" for name in read_by_us} | {"LANG": "C.UTF-8"})
    assert env == {"LANG": "C.UTF-8"}


def _settings_with(tmp_path: Path, tools_toml: str):
    home = Home(tmp_path / "home").ensure()
    home.config_file.write_text(f"[tools]\n{tools_toml}\n", encoding="utf-8")
    return load_settings(home, env={})


def test_the_two_settings_load_and_are_checked(tmp_path: Path) -> None:
    settings = _settings_with(tmp_path, 'env_passthrough = ["GH_TOKEN"]\nenv_strip = ["AWS_SECRET_ACCESS_KEY"]')
    assert settings.tools.env_passthrough == ["GH_TOKEN"]
    assert settings.tools.env_strip == ["AWS_SECRET_ACCESS_KEY"]
    with pytest.raises(ConfigError, match=r"'tools.env_strip' entries must be environment variable names.*'A B'"):
        _settings_with(tmp_path, 'env_strip = ["A B"]')
    with pytest.raises(ConfigError, match=r"GH_TOKEN is also in 'tools.env_passthrough'"):
        _settings_with(tmp_path, 'env_passthrough = ["GH_TOKEN"]\nenv_strip = ["GH_TOKEN"]')
    with pytest.raises(ConfigError, match=r"'tools.env_passthrough' must be a list of strings"):
        _settings_with(tmp_path, 'env_passthrough = "GH_TOKEN"')


def test_a_headless_run_stores_and_sends_no_key(tmp_path: Path) -> None:
    """`hermes-tui run` against the fake server: the model asks for printenv, the answer goes back."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "HERMES_TUI_"))}
    keys = {name: value for name, value in SECRETS.items() if not name.endswith("_BASE_URL")}
    env.update(keys)
    env["HARMLESS_SETTING"] = "visible-value"
    with FakeLLMServer() as server:
        server.enqueue(
            Reply(tool_calls=[("call_1", "terminal", '{"command": "printenv"}')]),
            Reply(text="Here is the environment."),
        )
        env["OPENAI_BASE_URL"] = server.base_url_openai  # a base URL does not reach the shell either
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "hermes_tui",
                "run",
                "show env",
                "--yes",
                "--provider",
                "openai",
                "--home",
                str(home),
            ],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
        sent = json.dumps([request.body for request in server.requests])
        base_url = server.base_url_openai
    assert result.returncode == 0, result.stderr
    con = sqlite3.connect(home / "state.db")
    try:
        stored = con.execute("SELECT role, content FROM messages ORDER BY id").fetchall()
    finally:
        con.close()
    tool_rows = [content for role, content in stored if role == "tool"]
    assert len(tool_rows) == 1 and "HARMLESS_SETTING=visible-value" in tool_rows[0]
    everything = json.dumps(stored) + sent + result.stdout + result.stderr
    assert [value for value in keys.values() if value in everything] == []
    assert "OPENAI_API_KEY" not in tool_rows[0] and base_url not in tool_rows[0]
