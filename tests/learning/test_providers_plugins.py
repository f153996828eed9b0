"""Memory providers and plugin hooks on a real Agent against the fake server."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from hermes_tui.config import Settings
from hermes_tui.core import events as ev
from hermes_tui.core.memory.manager import ProviderLoadError, find_provider_factory
from hermes_tui.core.memory.recall import query_terms
from tests.core.helpers import make_agent, openai_choice, rows, wait_until
from tests.fake_llm import FakeLLMServer, Hang, Reply
from tests.learning import extensions

SPY = "tests.learning.extensions:SpyProvider"
FAILING = "tests.learning.extensions:FailingProvider"
SUMMARY = "## Active Task\nUser asked: 'go on'\n## Goal\nKeep going."


@pytest.fixture(autouse=True)
def clear_calls():
    extensions.CALLS.clear()
    yield
    extensions.CALLS.clear()


def with_provider(name: str) -> Settings:
    settings = Settings()
    settings.memory.provider = name
    return settings


def names(kind: str) -> list:
    return [value for call, value in extensions.CALLS if call == kind]


def last_user_text(body: dict) -> str:
    return [m for m in body["messages"] if m["role"] == "user"][-1]["content"]


async def test_a_provider_recalls_into_the_api_copy_only_and_syncs_after_the_turn(
    tmp_path: Path, server: FakeLLMServer
) -> None:
    server.enqueue(Reply(text="Noted."))
    agent, db, _log = await make_agent(tmp_path, openai_choice(server.base_url_openai), settings=with_provider(SPY))
    result = await agent.run_conversation("When do we deploy?")
    await agent.memory_hooks.drain()

    body = server.requests[0].body
    sent = last_user_text(body)
    assert sent.startswith("When do we deploy?\n\n<memory-context>\nRemember: deploys happen on Thursdays.")
    assert "Thursdays" not in body["messages"][0]["content"]  # never in the system prompt ...
    assert "Spy provider: the user's cat is called Miso." in body["messages"][0]["content"]  # its static block is
    stored = await rows(db, result.session_id)
    assert stored[0]["content"] == "When do we deploy?"  # ... and never persisted
    assert names("sync_turn") == [("When do we deploy?", "Noted.")]
    assert names("queue_prefetch") == ["When do we deploy?"]
    assert names("initialize") == [result.session_id]
    assert "spy_lookup" in [t["function"]["name"] for t in body["tools"]]
    await agent.close()
    await db.close()


async def test_a_provider_hears_memory_writes_and_its_tool_runs(tmp_path: Path, server: FakeLLMServer) -> None:
    server.enqueue(
        Reply(
            tool_calls=[
                ("m1", "memory", json.dumps({"action": "add", "target": "memory", "content": "CI runs on ci-7"})),
                ("s1", "spy_lookup", '{"word": "ci"}'),
            ]
        ),
        Reply(text="done"),
    )
    agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai), settings=with_provider(SPY))
    await agent.run_conversation("remember the CI host")
    assert names("on_memory_write") == [("add", "memory", "CI runs on ci-7")]
    results = {e.name: e.result for e in log.of(ev.ToolCallFinished)}
    assert json.loads(results["spy_lookup"]) == {"word": "ci", "meaning": "found"}
    await agent.close()
    await db.close()


async def test_pre_compress_notes_reach_the_summary_prompt(tmp_path: Path, server: FakeLLMServer) -> None:
    agent, db, _log = await make_agent(tmp_path, openai_choice(server.base_url_openai), settings=with_provider(SPY))
    for index in range(6):  # answers long enough that summarising them saves tokens (the no-op rule)
        server.enqueue(Reply(text=f"answer {index}: " + "deploys go out after the tests pass. " * 40))
        await agent.run_conversation(f"question {index}")
    server.enqueue(Reply(text=SUMMARY))
    await agent.compress("")
    summary_prompt = server.requests[-1].body["messages"][-1]["content"]
    assert "NOTES FROM THE MEMORY PROVIDERS" in summary_prompt
    assert "Keep: the staging cluster is eu-west." in summary_prompt
    assert "compression" in names("on_session_switch")
    await agent.close()
    await db.close()


async def test_a_failing_provider_costs_one_warning_per_hook_and_the_turn_goes_on(
    tmp_path: Path, server: FakeLLMServer
) -> None:
    server.enqueue(Reply(text="first"), Reply(text="second"))
    agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai), settings=with_provider(FAILING))
    first = await agent.run_conversation("one")
    await agent.memory_hooks.drain()
    second = await agent.run_conversation("two")
    await agent.memory_hooks.drain()
    assert first.final_response == "first" and second.final_response == "second"
    warnings = [e.text for e in log.of(ev.Warning)]
    assert sorted(w.split(" failed in ")[1].split(":")[0] for w in warnings) == [
        "on_turn_start",
        "prefetch",
        "sync_turn",
    ]
    assert all(w.startswith("Memory provider 'failing'") and "the turn goes on" in w for w in warnings)
    await agent.close()
    await db.close()


async def test_an_interrupted_turn_neither_syncs_nor_reviews(tmp_path: Path, server: FakeLLMServer) -> None:
    settings = with_provider(SPY)
    settings.memory.nudge_interval = 1
    server.enqueue(Hang(seconds=600, first_text="Half"))
    agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai), settings=settings, review=True)
    task = asyncio.ensure_future(agent.run_conversation("go"))
    await wait_until(lambda: bool(log.of(ev.TextDelta)), what="the partial answer")
    task.cancel()
    result = await task
    await agent.memory_hooks.drain()
    assert result.interrupted
    assert names("sync_turn") == [] and names("queue_prefetch") == []
    assert agent.reviewer.runs == 0 and len(server.requests) == 1
    await agent.close()
    await db.close()


def test_unknown_and_broken_provider_names_are_one_line_errors() -> None:
    with pytest.raises(ProviderLoadError, match=r"unknown memory provider 'nope'.*session_recall"):
        find_provider_factory("nope")
    with pytest.raises(ProviderLoadError, match="failed to load"):
        find_provider_factory("tests.learning.extensions:Missing")


async def test_an_unknown_configured_provider_is_a_warning_not_a_crash(tmp_path: Path) -> None:
    agent, db, log = await make_agent(tmp_path, settings=with_provider("nope"))
    assert agent.memory_hooks.external is None
    assert any("unknown memory provider 'nope'" in w.text for w in log.of(ev.Warning))
    result = await agent.run_conversation("hello")
    assert result.completed
    await agent.close()
    await db.close()


# ---------------------------------------------------------------------------- session recall


def test_query_terms_keep_the_distinctive_words() -> None:
    assert query_terms("How do I configure the nginx ingress for staging?") == [
        "configure",
        "nginx",
        "ingress",
        "staging",
    ]


async def test_session_recall_offers_snippets_from_other_lineages(tmp_path: Path, server: FakeLLMServer) -> None:
    settings = with_provider("session_recall")
    agent, db, _log = await make_agent(tmp_path, openai_choice(server.base_url_openai), settings=settings)
    server.enqueue(Reply(text="Use the nginx ingress controller with the staging annotations."))
    await agent.run_conversation("How should the ingress for staging be set up?")
    await agent.set_title("ingress setup")
    earlier = agent.session_id
    await agent.new_session()
    server.enqueue(Reply(text="Following the earlier setup."), Reply(text="ok"))
    await agent.run_conversation("Remind me about the ingress annotations")
    sent = last_user_text(server.requests[1].body)
    assert "<memory-context>" in sent and "earlier sessions" in sent
    assert "session “ingress setup”" in sent and "nginx" in sent
    # Its own lineage is already in the context: recall never quotes it back.
    await agent.run_conversation("and the ingress again?")
    third = last_user_text(server.requests[2].body)
    assert third.count("session “ingress setup”") == 1
    assert agent.session_id != earlier
    await agent.close()
    await db.close()


async def test_session_recall_is_off_by_default(tmp_path: Path, server: FakeLLMServer) -> None:
    server.enqueue(Reply(text="x"), Reply(text="y"))
    agent, db, _ = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    await agent.run_conversation("ingress staging nginx")
    await agent.new_session()
    await agent.run_conversation("ingress staging nginx again")
    assert "<memory-context>" not in last_user_text(server.requests[1].body)
    await agent.close()
    await db.close()


# ---------------------------------------------------------------------------- plugins


def with_plugins(*plugin_names: str) -> Settings:
    settings = Settings()
    settings.plugins.enabled = list(plugin_names)
    return settings


async def test_plugin_hooks_shape_the_turn(tmp_path: Path, server: FakeLLMServer) -> None:
    server.enqueue(
        Reply(tool_calls=[("t1", "terminal", '{"command": "ls"}'), ("r1", "read_file", '{"path": "a.txt"}')]),
        Reply(text="Listed."),
    )
    (tmp_path / "a.txt").write_text("A", encoding="utf-8")
    settings = with_plugins("tests.learning.extensions:ContextPlugin")
    agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai), settings=settings)
    result = await agent.run_conversation("list the files")

    assert "Plugin context: the build server is ci-7." in last_user_text(server.requests[0].body)
    tool_results = {m["tool_call_id"]: m["content"] for m in server.requests[1].body["messages"] if m["role"] == "tool"}
    assert tool_results["t1"] == "terminal is blocked by policy plugin"  # the model sees the reason
    assert names("post_tool_call") == [("read_file", False)]  # a blocked call never ran
    assert result.final_response == "Listed. [checked]"
    (finished,) = log.of(ev.TurnFinished)  # the front-end is told the very outcome the caller gets
    assert finished.result is result and finished.final_response == "Listed. [checked]"
    assert names("post_llm_call") == ["Listed. [checked]"]
    assert names("on_session_start") == [result.session_id] and len(names("on_session_end")) == 1
    stored = await rows(db, result.session_id)
    assert "Plugin context" not in json.dumps(stored)
    await agent.close()
    await db.close()


async def test_a_raising_plugin_is_disabled_with_one_warning(tmp_path: Path, server: FakeLLMServer) -> None:
    server.enqueue(Reply(text="one"), Reply(text="two"))
    settings = with_plugins("tests.learning.extensions:ExplodingPlugin", "tests.learning.extensions:ContextPlugin")
    agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai), settings=settings)
    first = await agent.run_conversation("one")
    second = await agent.run_conversation("two")
    assert first.final_response == "one [checked]" and second.final_response == "two [checked]"
    warnings = [e.text for e in log.of(ev.Warning)]
    assert (
        len(warnings) == 1
        and "Plugin 'tests.learning.extensions:ExplodingPlugin' failed in pre_llm_call" in warnings[0]
    )
    assert names("exploding transform ran") == []
    await agent.close()
    await db.close()


async def test_a_plugin_that_cannot_load_is_one_warning(tmp_path: Path) -> None:
    agent, db, log = await make_agent(tmp_path, settings=with_plugins("not-installed"))
    assert [e.text for e in log.of(ev.Warning)] == [
        "plugin 'not-installed' is enabled in the config but no installed package provides it"
    ]
    assert (await agent.run_conversation("hi")).completed
    await agent.close()
    await db.close()
