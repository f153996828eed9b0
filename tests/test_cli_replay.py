"""`hermes-tui replay`: a stored turn re-sent to another provider/model, through the real CLI and the fake server."""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path

import pytest

from hermes_tui.store.db import SessionDB
from tests.fake_llm import Fail, FakeLLMServer, Reply
from tests.test_cli import run_cli

SID = "20260301_101500_a1b2c3"
SYSTEM = "You are a careful arithmetic tutor."
KEYS = {"ANTHROPIC_API_KEY": "sk-ant-test", "OPENAI_API_KEY": "sk-oai-test"}


async def _seed(db_path: Path) -> None:
    db = await SessionDB.open(db_path)
    try:
        await db.create_session(SID, source="cli", model="gpt-4o-mini", system_prompt=SYSTEM, title="sums")
        for role, text in (("user", "What is 2+2?"), ("assistant", "4."), ("user", "And 3+3?"), ("assistant", "6.")):
            await db.append_message(SID, role, text)
        await db.end_session(SID, "cli_close")
    finally:
        await db.close()


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    folder.mkdir(mode=0o700)
    asyncio.run(_seed(folder / "state.db"))
    return folder


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def replay(home: Path, server: FakeLLMServer, *args: str, protocol: str = "anthropic", columns: int = 120):
    base = server.base_url_anthropic if protocol == "anthropic" else server.base_url_openai
    return run_cli(
        "replay", *args, "--provider", protocol, "--base-url", base, "--home", str(home),
        cwd=home.parent, env={**KEYS, "COLUMNS": str(columns)},
    )  # fmt: skip


@pytest.mark.parametrize("protocol", ["anthropic", "openai"])
def test_json_holds_both_answers_and_the_request_is_the_stored_one(
    home: Path, server: FakeLLMServer, protocol: str
) -> None:
    server.enqueue(Reply(text="Four, of course."))
    before = _digest(home / "state.db")
    result = replay(home, server, "sums", "--turn", "1", "--model", "model-b", "--json", protocol=protocol)
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["session_id"] == SID and (payload["turn"], payload["turns"]) == (1, 2)
    assert payload["prompt"] == "What is 2+2?"
    assert payload["stored"] == {"model": "gpt-4o-mini", "answer": "4."}
    assert payload["replay"]["answer"] == "Four, of course." and payload["replay"]["model"] == "model-b"
    assert payload["stored_in_session"] is False
    (request,) = server.requests
    sent = json.dumps(request.body)
    assert request.body["model"] == "model-b" and SYSTEM in sent
    assert "What is 2+2?" in sent and "And 3+3?" not in sent and "4." not in sent, "history up to that turn only"
    assert _digest(home / "state.db") == before, "nothing is written to state.db"


def test_the_answers_stand_side_by_side_in_a_wide_terminal_and_stacked_in_a_narrow_one(
    home: Path, server: FakeLLMServer
) -> None:
    server.enqueue(Reply(text="Six."), Reply(text="Six."))
    wide = replay(home, server, SID, "--model", "claude-b", columns=120)
    assert wide.returncode == 0, wide.stderr
    lines = wide.stdout.splitlines()
    assert lines[0] == f"Replay of turn 2/2 of session {SID}" and lines[1] == "> And 3+3?"
    header = next(line for line in lines if line.startswith("stored"))
    assert "│" in header and "replay (anthropic:claude-b)" in header
    assert any(line.startswith("6.") and line.endswith("│ Six.") for line in lines)
    assert max(len(line) for line in lines) <= 120
    narrow = replay(home, server, SID, "--model", "claude-b", columns=60)
    assert narrow.returncode == 0 and "│" not in narrow.stdout
    assert narrow.stdout.index("6.") < narrow.stdout.index("Six.")


def test_tool_calls_of_the_new_model_are_shown_not_run(home: Path, server: FakeLLMServer) -> None:
    server.enqueue(Reply(tool_calls=[("call_1", "write_file", '{"path": "x.txt", "content": "hi"}')]))
    result = replay(home, server, SID, "--json")
    assert result.returncode == 0, result.stderr
    calls = json.loads(result.stdout)["replay"]["tool_calls"]
    assert calls == [{"name": "write_file", "arguments": '{"path": "x.txt", "content": "hi"}'}]
    assert not (home.parent / "x.txt").exists() and len(server.requests) == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nosuchsession"], "no session matches 'nosuchsession'"),
        ([SID, "--turn", "5"], "has 2 turn(s); --turn 5 does not exist"),
        ([SID, "--turn", "0"], "--turn must be 1 or more"),
    ],
)
def test_mistakes_are_one_line_errors(home: Path, server: FakeLLMServer, args: list[str], message: str) -> None:
    result = replay(home, server, *args)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and message in result.stderr and "Traceback" not in result.stderr
    assert not server.requests


def test_a_provider_is_required_and_must_be_known_and_global_flags_go_anywhere(
    home: Path, server: FakeLLMServer
) -> None:
    missing = run_cli("replay", SID, "--home", str(home), cwd=home.parent, env=KEYS)
    assert missing.returncode == 2 and "replay needs --provider" in missing.stderr
    unknown = run_cli("--provider", "gemini", "replay", SID, "--home", str(home), cwd=home.parent, env=KEYS)
    assert unknown.returncode == 2 and "unknown provider 'gemini'" in unknown.stderr
    assert unknown.stderr.count("\n") == 1
    server.enqueue(Reply(text="Six!"))
    before = run_cli(
        "--provider", "openai", "--base-url", server.base_url_openai, "--home", str(home), "replay", SID, "--json",
        cwd=home.parent, env=KEYS,
    )  # fmt: skip
    assert before.returncode == 0 and json.loads(before.stdout)["replay"]["answer"] == "Six!"


def test_a_failed_provider_call_exits_1_with_one_line(home: Path, server: FakeLLMServer) -> None:
    server.enqueue(Fail(401, "invalid x-api-key"))
    result = replay(home, server, SID)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "replay on anthropic:" in result.stderr and "auth" in result.stderr
