"""/model, /save, /insights and the gauge's look ahead, through the real Agent (fake server or demo) and state.db."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from hermes_tui.config import Settings
from hermes_tui.core import events as ev
from hermes_tui.core.commands import run_command
from hermes_tui.core.pricing import price_for
from tests.core.helpers import make_agent, openai_choice
from tests.fake_llm import FakeLLMServer, Reply


async def test_model_switch_recomputes_budgets_and_the_next_call_uses_it(tmp_path: Path, server: FakeLLMServer) -> None:
    agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai, "gpt-4o-mini"))
    server.enqueue(Reply(text="hi"))
    await agent.run_conversation("hello")
    assert agent.budget().context_length == 128_000

    outcome = await run_command(agent, "/model gpt-4.1")
    assert outcome.output.startswith("Model: openai:gpt-4.1 — window 1,047,576 tokens"), outcome.output
    budget = agent.budget()
    assert (
        budget.context_length == 1_047_576 and budget.threshold_tokens == 521_740
    )  # 50 % of the window less 4,096 output tokens
    assert log.of(ev.UsageUpdated)[-1].budget.context_length == 1_047_576  # the gauge redraws at once
    assert (await db.get_session(agent.session_id))["model"] == "gpt-4.1"
    server.enqueue(Reply(text="from the new model"))
    await agent.run_conversation("again")
    assert server.last_body["model"] == "gpt-4.1"

    unknown = await run_command(agent, "/model mystery-model")
    assert "window 128,000 tokens (unknown model: window assumed)" in unknown.output
    assert agent.budget().window_is_default
    for bad, why in (("/model gpt-4", "below the 64,000-token minimum"), ("/model a b;c", "is not a model name")):
        refused = await run_command(agent, bad)
        assert refused.error and why in refused.output, refused.output
    assert agent.provider.model == "mystery-model"  # a refused switch changes nothing
    shown = await run_command(agent, "/model")
    assert shown.output.startswith("Model openai:mystery-model, window 128,000 tokens (window assumed)")
    await db.close()


async def test_the_demo_provider_cannot_switch(tmp_path: Path) -> None:
    agent, db, _log = await make_agent(tmp_path)
    refused = await run_command(agent, "/model gpt-4o")
    assert refused.error and "the offline demo provider has one model" in refused.output
    await db.close()


async def test_save_exports_the_session_privately_and_never_overwrites(tmp_path: Path) -> None:
    agent, db, _log = await make_agent(tmp_path)
    assert "nothing to save yet" in (await run_command(agent, "/save")).output
    await agent.run_conversation("hello")
    saved = await run_command(agent, "/save")
    path = tmp_path / f"hermes-{agent.session_id}.json"
    assert not saved.error and str(path) in saved.output
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    document = json.loads(path.read_text(encoding="utf-8"))
    assert [m["role"] for m in document["sessions"][0]["messages"]] == ["user", "assistant"]
    again = await run_command(agent, "/save")
    assert again.error and "exists already" in again.output
    markdown = await run_command(agent, "/save notes.md")
    assert not markdown.error and (tmp_path / "notes.md").read_text(encoding="utf-8").startswith("# ")
    for bad, why in (("/save notes.txt", ".json, .jsonl or .md"), ("/save nowhere/x.json", "does not exist")):
        refused = await run_command(agent, bad)
        assert refused.error and why in refused.output
    await db.close()


async def test_insights_sum_usage_cost_models_and_tools_from_state_db(tmp_path: Path, server: FakeLLMServer) -> None:
    agent, db, _log = await make_agent(tmp_path, openai_choice(server.base_url_openai, "gpt-4o-mini"))
    server.enqueue(
        Reply(tool_calls=[("c1", "todo", "{}")], usage=(10_000, 100, 4_000, 0)),
        Reply(text="done", usage=(12_000, 200, 8_000, 0)),
    )
    await agent.run_conversation("plan")
    report = (await run_command(agent, "/insights 7")).output
    assert report.startswith("Usage in the last 7 day(s): 1 session(s), 4 messages, 2 API calls")
    price = price_for("gpt-4o-mini")
    assert price is not None
    expected = (10_000 * price.input + 12_000 * price.cache_read + 300 * price.output) / 1_000_000
    assert f"${expected:,.4f}" in report
    assert "cache hit rate 55%" in report and "gpt-4o-mini: 1 session(s)" in report and "todo ×1" in report
    row = await db.get_session(agent.session_id)
    assert row["estimated_cost_usd"] == pytest.approx(expected) and row["cost_status"] == "estimated"
    assert (await run_command(agent, "/insights soon")).error
    assert (await run_command(agent, "/insights 0")).error
    await db.close()


async def test_the_gauge_looks_ahead_from_real_usage(tmp_path: Path, server: FakeLLMServer) -> None:
    agent, db, log = await make_agent(tmp_path, openai_choice(server.base_url_openai, "gpt-4o-mini"))
    for prompt in (10_000, 20_000, 30_000):
        server.enqueue(Reply(text="ok", usage=(prompt, 50, prompt // 2, 0)))
        await agent.run_conversation("next")
    outlook = agent.budget().outlook
    assert outlook is not None and outlook.sizes == (10_000, 20_000, 30_000)
    assert (
        outlook.growth_per_turn == 10_000
        and outlook.turns_left == (agent.compressor.threshold_tokens - 30_000) // 10_000
    )
    assert outlook.cache_hit_rate == 0.5
    price = price_for("gpt-4o-mini")
    expected = sum(
        (p // 2 * price.input + p // 2 * price.cache_read + 50 * price.output) for p in (10_000, 20_000, 30_000)
    )
    assert outlook.session_cost_usd == pytest.approx(expected / 1_000_000)
    assert log.of(ev.UsageUpdated)[-1].budget.outlook.sizes == (10_000, 20_000, 30_000)
    await run_command(agent, "/new")
    assert agent.budget().outlook.sizes == () and agent.budget().outlook.session_cost_usd == 0.0
    await db.close()


async def test_a_model_without_a_price_has_an_unknown_cost(tmp_path: Path, server: FakeLLMServer) -> None:
    settings = Settings()
    settings.model.context_length = 200_000
    agent, db, _log = await make_agent(
        tmp_path, openai_choice(server.base_url_openai, "local-llama"), settings=settings
    )
    server.enqueue(Reply(text="ok", usage=(5_000, 10, 0, 0)))
    await agent.run_conversation("hi")
    assert agent.budget().outlook.session_cost_usd is None
    assert (await db.get_session(agent.session_id))["estimated_cost_usd"] is None
    await db.close()


async def test_the_sparkline_marks_the_turn_after_a_compression(tmp_path: Path, server: FakeLLMServer) -> None:
    agent, db, _log = await make_agent(tmp_path, openai_choice(server.base_url_openai))
    for index in range(6):
        server.enqueue(
            Reply(text=f"Answer {index}." + " with plenty of detail" * 80, usage=(2_000 * (index + 1), 9, 0, 0))
        )
        await agent.run_conversation(f"question {index}")
    server.enqueue(Reply(text="## Active Task\nsummary"))
    await run_command(agent, "/compress")
    server.enqueue(Reply(text="after", usage=(3_000, 9, 0, 0)))
    await agent.run_conversation("and now")
    outlook = agent.budget().outlook
    assert outlook.sizes[-1] == 3_000 and outlook.compressed_before == (6,)
    assert outlook.growth_per_turn == 2_000  # the drop from the compression is not negative growth
    await db.close()
