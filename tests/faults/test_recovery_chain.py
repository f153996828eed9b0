"""The recovery chain end to end, through both real SDKs against the fake server.

Fallback providers (each class Hermes falls back on moves the turn to the next entry, announced,
the gauge re-measured, the same session going on), credential pools (429/401/402 rotate to the
next key, which never shows), and the one-shot repairs (the second request is the repaired one).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from hermes_tui.config import Settings
from hermes_tui.config_chain import ChainSettings, FallbackEntry
from hermes_tui.core import events as ev
from hermes_tui.core.agent import Agent
from hermes_tui.core.bootstrap import build_registry
from hermes_tui.core.tools.base import FunctionTool
from hermes_tui.core.tools.registry import ToolRegistry
from hermes_tui.store.db import SessionDB
from tests.core.helpers import EventLog, make_agent
from tests.fake_llm import Fail, FakeLLMServer, Reply, Step
from tests.faults.helpers import BOTH, HEALTHY_TIMEOUTS, PROMPT, Harness, Run, choice_for, server_url

OTHER = {"openai": "anthropic", "anthropic": "openai"}
FALLBACK_MODEL = {"openai": "gpt-4.1", "anthropic": "claude-opus-4"}  # known windows: 1,047,576 / 200,000
KEYS = ("sk-primary-key-AAAA1111", "sk-second-key-BBBB2222", "sk-third-key-CCCC3333")


@pytest.fixture
async def opened() -> AsyncIterator[list[tuple[Agent, SessionDB]]]:
    """Every agent a test opens, closed (with its state.db) when the test ends, pass or fail."""
    agents: list[tuple[Agent, SessionDB]] = []
    yield agents
    for agent, db in agents:
        await agent.close()
        await db.close()


def chain_settings(protocol: str, server: FakeLLMServer, *, pool: tuple[str, ...] = ()) -> Settings:
    """Settings whose one fallback is the other protocol on the same fake server."""
    other = OTHER[protocol]
    settings = Settings()
    settings.timeouts = HEALTHY_TIMEOUTS
    settings.chain = ChainSettings(
        fallback_providers=[
            FallbackEntry(
                provider=other,
                model=FALLBACK_MODEL[other],
                base_url=server_url(server, other),
                api_keys=("sk-fallback-key-DDDD4444",),
            )
        ],
        credential_pool={protocol: pool} if pool else {},
    )
    return settings


async def chain_agent(
    tmp_path: Path,
    server: FakeLLMServer,
    protocol: str,
    *,
    pool: tuple[str, ...] = (),
    fallback: bool = True,
    registry: ToolRegistry | None = None,
    opened: list[tuple[Agent, SessionDB]],
) -> tuple[Agent, SessionDB, EventLog]:
    settings = chain_settings(protocol, server, pool=pool)
    if not fallback:
        settings.chain.fallback_providers = []
    choice = choice_for(protocol, server_url(server, protocol))
    if pool:
        choice = type(choice)(choice.provider, choice.model, pool[0], choice.base_url, False)
    agent, db, log = await make_agent(tmp_path / "agent", choice, settings=settings, cwd=tmp_path, registry=registry)
    opened.append((agent, db))
    return agent, db, log


async def turn(
    agent: Agent, db: SessionDB, log: EventLog, server: FakeLLMServer, *steps: Step, prompt: str = PROMPT
) -> Run:
    server.enqueue(*steps)
    seen = len(server.requests)
    log.clear()
    result = await agent.run_conversation(prompt)
    stored = await db.get_messages(result.session_id)
    return Run(prompt, result, log, stored, list(server.requests[seen:]))


def reviews(run: Run, kind: str) -> list[str]:
    return [entry.text for entry in run.log.of(ev.ReviewEntry) if entry.kind == kind]


FALLBACK_CLASSES = [
    ("billing", [Fail(402, "Your credit balance is too low")]),
    ("model_not_found", [Fail(404, "The model `nope` does not exist", code="model_not_found")]),
    ("content_policy_blocked", [Fail(400, "Your request was flagged by our safety system")]),
    ("format_error", [Fail(422, "Unprocessable Entity")]),
    ("all_retries_exhausted", [Fail(500, "boom"), Fail(500, "boom"), Fail(500, "boom")]),
    ("empty_response", [Reply(text="")] * 4),
]


@pytest.mark.parametrize("protocol", BOTH)
@pytest.mark.parametrize(("reason", "failures"), FALLBACK_CLASSES, ids=[c[0] for c in FALLBACK_CLASSES])
async def test_each_fallback_class_moves_the_turn_to_the_next_provider(
    tmp_path: Path, server: FakeLLMServer, opened: list, protocol: str, reason: str, failures: list[Step]
) -> None:
    agent, db, log = await chain_agent(tmp_path, server, protocol, opened=opened)
    session_before = agent.session_id
    run = await turn(agent, db, log, server, *failures, Reply(text="Answered by the fallback."))
    run.assert_answered("Answered by the fallback.")
    other = OTHER[protocol]
    last = run.requests[-1]
    assert last.body["model"] == FALLBACK_MODEL[other] and last.api_key == "sk-fallback-key-DDDD4444"
    assert all(request.body["model"] != FALLBACK_MODEL[other] for request in run.requests[:-1])
    # announced in the Review log and the status bar, and the status bar's provider label follows
    announced = reviews(run, "fallback")
    assert len(announced) == 1 and f"{other}:{FALLBACK_MODEL[other]}" in announced[0]
    assert reason.replace("_", " ") in announced[0]
    assert any(status.startswith("↪ Falling back to") for status in run.statuses)
    switched = run.log.of(ev.ProviderSwitched)
    assert [(e.provider, e.model) for e in switched] == [(other, FALLBACK_MODEL[other])]
    # the gauge is measured against the fallback's window from then on
    window = {"gpt-4.1": 1_047_576, "claude-opus-4": 200_000}[FALLBACK_MODEL[other]]
    after = run.log[run.log.index(switched[0]) :]
    assert [e.budget.context_length for e in after if isinstance(e, ev.UsageUpdated)][-1] == window
    # the same session goes on: the prompt and the answer are in it, nothing started afresh
    assert run.result.session_id == session_before
    assert not run.log.of(ev.SessionRotated)


@pytest.mark.parametrize("protocol", BOTH)
async def test_the_next_turn_starts_on_the_primary_again(
    tmp_path: Path, server: FakeLLMServer, opened: list, protocol: str
) -> None:
    agent, db, log = await chain_agent(tmp_path, server, protocol, opened=opened)
    first = await turn(agent, db, log, server, Fail(402, "insufficient credits"), Reply(text="From the fallback."))
    first.assert_answered("From the fallback.")
    second = await turn(agent, db, log, server, Reply(text="Primary again."), prompt="And now?")
    second.assert_no_crash()
    assert second.result.final_response == "Primary again."
    assert second.requests[0].body["model"] != FALLBACK_MODEL[OTHER[protocol]]
    assert any("Back on the primary" in text for text in reviews(second, "fallback"))
    assert second.log.of(ev.ProviderSwitched)[0].reason == "restored"
    # both turns are one conversation in one session
    assert second.result.session_id == first.result.session_id
    assert [row["role"] for row in second.stored] == ["user", "assistant", "user", "assistant"]


@pytest.mark.parametrize("protocol", BOTH)
async def test_without_a_fallback_a_fatal_error_still_fails_with_guidance(harness: Harness, protocol: str) -> None:
    run = await harness.run(protocol, Fail(402, "Your credit balance is too low"))
    run.assert_failed("billing", "credit")
    assert len(run.requests) == 1


@pytest.mark.parametrize("protocol", BOTH)
async def test_a_chain_that_runs_out_fails_naming_the_last_error(
    tmp_path: Path, server: FakeLLMServer, opened: list, protocol: str
) -> None:
    agent, db, log = await chain_agent(tmp_path, server, protocol, opened=opened)
    run = await turn(agent, db, log, server, Fail(402, "no credits here"), Fail(402, "none there either"))
    run.assert_failed("billing", "none there either")
    assert len(run.requests) == 2


# --------------------------------------------------------------------------- credential pools


@pytest.mark.parametrize("protocol", BOTH)
@pytest.mark.parametrize(
    "failure",
    [Fail(429, "Rate limit reached"), Fail(401, "Incorrect API key provided"), Fail(402, "insufficient credits")],
    ids=["429", "401", "402"],
)
async def test_a_refused_key_rotates_to_the_next_one_in_the_pool(
    tmp_path: Path, server: FakeLLMServer, opened: list, protocol: str, failure: Fail
) -> None:
    agent, db, log = await chain_agent(tmp_path, server, protocol, pool=KEYS, fallback=False, opened=opened)
    run = await turn(agent, db, log, server, failure, Reply(text="Second key worked."))
    run.assert_answered("Second key worked.")
    assert [request.api_key for request in run.requests] == [KEYS[0], KEYS[1]]
    assert not run.retries, "a rotation is not a backoff retry"
    told = " ".join([*run.statuses, *(entry.text for entry in run.log.of(ev.ReviewEntry))])
    assert "…2222" in told and "key 2/3" in told
    # the benched key rests: the next turn starts on the second key, not the first
    again = await turn(agent, db, log, server, Reply(text="Still fine."), prompt="Again?")
    assert again.requests[0].api_key == KEYS[1]


@pytest.mark.parametrize("protocol", BOTH)
async def test_when_every_key_is_benched_the_turn_falls_back(
    tmp_path: Path, server: FakeLLMServer, opened: list, protocol: str
) -> None:
    agent, db, log = await chain_agent(tmp_path, server, protocol, pool=KEYS[:2], opened=opened)
    limited = Fail(429, "Rate limit reached")
    run = await turn(agent, db, log, server, limited, limited, Reply(text="Fallback took over."))
    run.assert_answered("Fallback took over.")
    assert [request.api_key for request in run.requests] == [KEYS[0], KEYS[1], "sk-fallback-key-DDDD4444"]


async def test_keys_never_reach_any_file_under_the_home(tmp_path: Path, server: FakeLLMServer, opened: list) -> None:
    agent, db, log = await chain_agent(tmp_path, server, "openai", pool=KEYS, opened=opened)
    await turn(agent, db, log, server, Fail(401, "bad key"), Fail(429, "slow down"), Reply(text="ok then"))
    await turn(agent, db, log, server, Fail(402, "no credits"), Reply(text="fallback"), prompt="more")
    opened.remove((agent, db))
    await agent.close()
    await db.close()
    shown = json.dumps([str(event) for event in log])
    for key in (*KEYS, "sk-fallback-key-DDDD4444"):
        assert key not in shown, "a key reached an event the UI shows"
        assert key[:-4] not in shown
    files = [path for path in (tmp_path / "agent").rglob("*") if path.is_file()]
    assert any(path.name == "state.db" for path in files)
    for path in files:
        data = path.read_bytes()
        for key in (*KEYS, "sk-fallback-key-DDDD4444"):
            assert key.encode() not in data, f"{key[-4:]} found in {path.name}"


# --------------------------------------------------------------------------- one-shot repairs


@pytest.mark.parametrize("protocol", BOTH)
async def test_a_grammar_error_strips_schema_patterns_once(
    tmp_path: Path, server: FakeLLMServer, opened: list, protocol: str
) -> None:
    registry = build_registry()

    async def book(args: dict, ctx: object) -> str:
        return "booked"

    day = {"type": "string", "pattern": "^\\d{4}-\\d{2}-\\d{2}$", "format": "date"}
    schema = {"name": "book_day", "parameters": {"type": "object", "properties": {"day": day}}}
    registry.register(FunctionTool.from_schema(schema, book))
    agent, db, log = await chain_agent(tmp_path, server, protocol, fallback=False, registry=registry, opened=opened)
    grammar = Fail(400, "Error parsing grammar: unexpected escape \\d")
    run = await turn(agent, db, log, server, grammar, Reply(text="Fine without patterns."), Reply(text="Again."))
    run.assert_answered("Fine without patterns.")
    assert len(run.requests) == 2
    assert any("pattern/format" in text for text in reviews(run, "warning"))
    assert '"pattern": "^' in json.dumps(run.requests[0].body["tools"])
    repaired = json.dumps(run.requests[1].body["tools"])
    assert '"pattern": "^' not in repaired and '"format": "date"' not in repaired and "book_day" in repaired
    # the provider keeps the repair: the next turn's request goes out without them at once
    later = await turn(agent, db, log, server, prompt="Book it.")
    assert '"pattern": "^' not in json.dumps(later.requests[0].body["tools"])


@pytest.mark.parametrize("protocol", BOTH)
async def test_a_repair_is_tried_once_then_the_error_is_retried_as_usual(
    tmp_path: Path, server: FakeLLMServer, opened: list, protocol: str
) -> None:
    agent, db, log = await chain_agent(tmp_path, server, protocol, fallback=False, opened=opened)
    signature = Fail(400, "messages.1.content.0: Invalid `signature` in `thinking` block")
    run = await turn(agent, db, log, server, signature, signature, signature, signature)
    run.assert_failed("after 3 retries")
    assert len(run.requests) == 4, "one repaired call, then the normal retry budget"


@pytest.mark.parametrize("protocol", BOTH)
async def test_long_context_tier_lowers_the_window_and_compresses(
    tmp_path: Path, server: FakeLLMServer, opened: list, protocol: str
) -> None:
    settings = chain_settings(protocol, server)
    settings.chain.fallback_providers = []
    settings.model.context_length = 1_000_000
    agent, db, log = await make_agent(
        tmp_path / "agent", choice_for(protocol, server_url(server, protocol)), settings=settings, cwd=tmp_path
    )
    opened.append((agent, db))
    tier = Fail(429, "Extra usage is required for long context requests.")
    run = await turn(agent, db, log, server, tier, Reply(text="Within the standard window."))
    run.assert_answered("Within the standard window.")
    assert agent.budget().context_length == 200_000
    assert any("200,000-token window" in text for text in reviews(run, "compression"))


@pytest.mark.parametrize("protocol", BOTH)
async def test_thinking_blocks_are_kept_and_replayed_with_their_signature(
    tmp_path: Path, server: FakeLLMServer, opened: list, protocol: str
) -> None:
    agent, db, log = await chain_agent(tmp_path, server, protocol, fallback=False, opened=opened)
    think = Reply(reasoning="Let me read the notes.", tool_calls=[("call_1", "read_file", '{"path": "notes.txt"}')])
    (tmp_path / "notes.txt").write_text("4242\n", encoding="utf-8")
    run = await turn(agent, db, log, server, think, Reply(text="The code is 4242."))
    run.assert_answered("The code is 4242.")
    replayed = run.requests[1].body["messages"]
    assistant = next(m for m in replayed if m["role"] == "assistant")
    if protocol == "anthropic":
        first = assistant["content"][0]
        assert first == {"type": "thinking", "thinking": "Let me read the notes.", "signature": "c2lnbmF0dXJl"}
        stored = next(row for row in run.stored if row["role"] == "assistant")
        assert stored["reasoning_details"][0]["signature"] == "c2lnbmF0dXJl"
    else:
        assert assistant["reasoning_content"] == "Let me read the notes."


async def test_a_rejected_signature_strips_the_replayed_thinking_once(
    tmp_path: Path, server: FakeLLMServer, opened: list
) -> None:
    agent, db, log = await chain_agent(tmp_path, server, "anthropic", fallback=False, opened=opened)
    (tmp_path / "notes.txt").write_text("4242\n", encoding="utf-8")
    think = Reply(reasoning="Reading.", tool_calls=[("call_1", "read_file", '{"path": "notes.txt"}')])
    signature = Fail(400, "messages.1.content.0: Invalid `signature` in `thinking` block")
    run = await turn(agent, db, log, server, think, signature, Reply(text="Done."))
    run.assert_answered("Done.")
    assert '"thinking"' in json.dumps(run.requests[1].body["messages"])
    assert '"signature"' not in json.dumps(run.requests[2].body["messages"])
