"""Honest exits: `hermes-tui run` exits 0 only for a real answer, through the real CLI process.

Every other ending — an empty or reasoning-only answer, a content filter or refusal, an answer still
cut by the output limit, a truncated tool call, a stream that died mid-answer, an exhausted
iteration budget, an API failure — exits 1 with the reason as one line on stderr, and `--json`
says `"failed": true` with the reason. The prompt is stored either way.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.crash.helpers import run_cli, stored
from tests.fake_llm import Disconnect, Fail, FakeLLMServer, Reply, Step

READ = ("call_1", "read_file", '{"path": "README.md"}')
CUT = ("call_cut", "read_file", '{"path": "READ')


@dataclass
class Case:
    steps: list[Step]
    needle: str  # in the one stderr line (and the JSON error)
    stdout: str = ""  # text the user still sees, if any
    provider: str = "openai"
    config: str = ""
    extra: list[str] = field(default_factory=list)


FAILURES: dict[str, Case] = {
    "empty answer": Case([Reply(text="") for _ in range(6)], "no answer"),
    "reasoning only": Case([Reply(reasoning="Let me think...", text="") for _ in range(8)], "no answer"),
    "content filter after text": Case(
        [Reply(text="Here is the first part of", finish="content_filter")], "content filter", "first part of"
    ),
    "content filter before text": Case([Reply(text="", finish="content_filter")], "content filter"),
    "anthropic refusal": Case(
        [Reply(text="I won't write that.", finish="refusal")], "refusal", "I won't write that.", provider="anthropic"
    ),
    "length exhausted": Case([Reply(text=f"part {i} ", finish="length") for i in range(4)], "output limit", "part 0"),
    "thinking exhausted": Case([Reply(text="<think>still thinking", finish="length")], "reasoning"),
    "truncated tool call": Case([Reply(tool_calls=[CUT], finish="length") for _ in range(4)], "tool call was cut"),
    "stream died mid-answer": Case(  # and again on each of the 3 continuation attempts
        [Disconnect(after_chunks=4, reply=Reply(text="The first part of a long answer", chunk_size=3))] * 4,
        "connection dropped",
        "The first",
    ),
    "iteration budget": Case(
        [Reply(tool_calls=[READ]), Reply(text="Summary so far.")],
        "iteration budget",
        "Summary so far.",
        config="[agent]\nmax_turns = 1\n",
    ),
    "api error": Case([Fail(401, "invalid api key")], "invalid api key"),
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "README.md").write_text("# Honest\n\nThe code is 4242.\n", encoding="utf-8")
    return folder


def run_case(tmp_path: Path, project: Path, case: Case, *flags: str) -> tuple[Path, object]:
    home = tmp_path / "home"
    if case.config:
        home.mkdir(mode=0o700)
        (home / "config.toml").write_text(case.config, encoding="utf-8")
    with FakeLLMServer() as srv:
        srv.enqueue(*case.steps)
        base = srv.base_url_anthropic if case.provider == "anthropic" else srv.base_url_openai
        result = run_cli(home, base, "do the task", *flags, cwd=project, provider=case.provider)
    return home, result


def reason_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("hermes-tui: ")]


@pytest.mark.parametrize("name", list(FAILURES))
def test_a_turn_without_a_real_answer_exits_1_with_the_reason(tmp_path: Path, project: Path, name: str) -> None:
    case = FAILURES[name]
    home, result = run_case(tmp_path, project, case)
    assert result.returncode == 1, f"{name}: exit {result.returncode}\n{result.stderr}"
    assert "Traceback" not in result.stderr
    reasons = reason_lines(result.stderr)
    printed = "\n".join(reasons) + "\n" + result.stderr
    assert case.needle.lower() in printed.lower(), f"{name}: the reason is not said:\n{result.stderr}"
    assert case.stdout in result.stdout
    assert stored(home)[0]["content"] == "do the task", "the prompt is kept"


@pytest.mark.parametrize("name", ["empty answer", "content filter after text", "iteration budget", "api error"])
def test_json_says_failed_with_the_reason(tmp_path: Path, project: Path, name: str) -> None:
    case = FAILURES[name]
    _, result = run_case(tmp_path, project, case, "--json")
    assert result.returncode == 1, result.stderr
    payload = json.loads(result.stdout)
    assert payload["failed"] is True
    assert case.needle.lower() in (payload["error"] or "").lower()
    assert len(reason_lines(result.stderr)) <= 1


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_real_answer_exits_0_and_json_says_not_failed(tmp_path: Path, project: Path, provider: str) -> None:
    case = Case([Reply(tool_calls=[READ]), Reply(text="The code is 4242.")], "", provider=provider)
    home, result = run_case(tmp_path, project, case)
    assert result.returncode == 0, result.stderr
    assert "The code is 4242." in result.stdout and not reason_lines(result.stderr)
    assert [r["role"] for r in stored(home)] == ["user", "assistant", "tool", "assistant"]

    case = Case([Reply(text="Still 4242.")], "", provider=provider)
    _, again = run_case(tmp_path, project, case, "--json")
    payload = json.loads(again.stdout)
    assert again.returncode == 0 and payload["failed"] is False and payload["error"] is None
    assert payload["final_response"] == "Still 4242."
