"""ContextCompressor.compress: short inputs, summary failures, cooldowns, model fallback, continuity,
focus topics and the effectiveness counter (§4.2, §11 cases 3–7, 15, 16)."""

from __future__ import annotations

import asyncio
import copy
import json
import sqlite3
from pathlib import Path

import httpx2
import openai
import pytest

from hermes_tui.core.context import SUMMARY_END_MARKER, SUMMARY_PREFIX, ContextCompressor
from hermes_tui.core.context.markers import LEGACY_SUMMARY_PREFIX, MERGED_SUMMARY_DELIMITER, SYSTEM_COMPACTION_NOTE

from .helpers import (
    FailingSummarizer,
    FakeClock,
    RecordingSummarizer,
    StatusError,
    assistant,
    call,
    conversation,
    result,
    roles,
    system,
    text_of,
    user,
)


def refactor_conversation() -> list[dict]:
    """0 system | 1 user ask, 2 read_file call, 3 result, 4 answer | 5 last user, 6-8 tail."""
    return [
        system(),
        user("Please refactor the compressor for readability"),
        assistant(None, call("c1", "read_file", path="agent/context_compressor.py")),
        result("c1", "class ContextCompressor:\n" + "    pass\n" * 100),
        assistant("I read agent/context_compressor.py; it needs splitting."),
        user("Now add tests for it"),
        assistant(None, call("c2", "write_file", path="tests/test_cc.py", content="def test(): pass\n")),
        result("c2", "wrote 1 line"),
        assistant("Tests added."),
    ]


async def test_too_few_messages_are_returned_unchanged() -> None:
    summarizer = RecordingSummarizer()
    compressor = ContextCompressor(200_000, protect_first_n=2, summarize=summarizer)
    messages = [system(), user("a"), assistant("b"), user("c")]
    assert await compressor.compress(messages) == messages
    assert summarizer.prompts == [] and compressor.compression_count == 0


async def test_input_is_never_mutated() -> None:
    messages = conversation(30, output_chars=3_000)
    snapshot = copy.deepcopy(messages)
    compressor = ContextCompressor(200_000, summarize=RecordingSummarizer())
    out = await compressor.compress(messages)
    assert messages == snapshot
    assert len(out) < len(messages)


async def test_summary_failure_builds_a_fallback_handoff() -> None:
    failing = FailingSummarizer(RuntimeError("no provider"))
    compressor = ContextCompressor(200_000, protect_first_n=0, summarize=failing)
    messages = refactor_conversation()
    out = await compressor.compress(messages)
    assert len(out) < len(messages) and out[0]["role"] == "system"
    assert compressor.compression_count == 1
    assert compressor.last_summary_fallback_used is True
    assert compressor.last_compress_aborted is False
    assert compressor.last_summary_dropped_count == 4  # indices 1..4 became the handoff
    handoff = next(text_of(m) for m in out if SUMMARY_PREFIX in text_of(m))
    for expected in (
        "## Active Task",
        "Please refactor the compressor for readability",
        "read_file",
        "agent/context_compressor.py",
        "Summary generation was unavailable",
    ):
        assert expected in handoff
    assert text_of(out[-4]).endswith("Now add tests for it") or "Now add tests for it" in text_of(out[1])


async def test_fallback_handoff_is_capped_at_8000_chars_and_keeps_the_reason() -> None:
    messages = [system()]
    for i in range(60):
        messages += [user(f"ask {i} " + "word " * 200), assistant(f"answer {i} " + "text " * 200)]
    compressor = ContextCompressor(200_000)  # no summariser at all
    out = await compressor.compress(messages)
    handoff = next(text_of(m) for m in out if SUMMARY_PREFIX in text_of(m))
    handoff = handoff.split(MERGED_SUMMARY_DELIMITER)[-1].split(SUMMARY_END_MARKER)[0].strip()
    assert handoff.startswith(SUMMARY_PREFIX) and len(handoff) <= 8000
    assert "Summary failure reason: no auxiliary LLM provider configured" in handoff


async def test_abort_on_summary_failure_keeps_everything() -> None:
    failing = FailingSummarizer(StatusError(500, "upstream exploded"))
    compressor = ContextCompressor(200_000, summarize=failing, abort_on_summary_failure=True, clock=FakeClock())
    messages = conversation(12)
    out = await compressor.compress(messages)
    assert out == messages
    assert compressor.last_compress_aborted is True
    assert compressor.last_summary_dropped_count == 0
    assert compressor.compression_count == 0
    assert "upstream exploded" in (compressor.last_summary_error or "")

    compressor.summarize = RecordingSummarizer()
    out = await compressor.compress(messages, force=True)
    assert compressor.last_compress_aborted is False
    assert len(out) < len(messages)


class TestCooldown:
    async def test_second_compress_within_cooldown_does_not_call_the_model(self) -> None:
        clock = FakeClock()
        failing = FailingSummarizer(StatusError(500, "boom"))
        compressor = ContextCompressor(200_000, summarize=failing, clock=clock)
        await compressor.compress(conversation(12))
        assert failing.calls == 1
        clock.advance(59)
        await compressor.compress(conversation(12))
        assert failing.calls == 1
        assert compressor.last_summary_fallback_used is True
        assert "paused" in (compressor.last_summary_error or "")
        clock.advance(2)
        await compressor.compress(conversation(12))
        assert failing.calls == 2

    async def test_force_bypasses_the_cooldown(self) -> None:
        failing = FailingSummarizer(StatusError(500, "boom"))
        compressor = ContextCompressor(200_000, summarize=failing, clock=FakeClock())
        await compressor.compress(conversation(12))
        await compressor.compress(conversation(12), force=True)
        assert failing.calls == 2

    @pytest.mark.parametrize(
        ("error", "seconds"),
        [
            (json.JSONDecodeError("Expecting value", "", 0), 30),
            (ConnectionError("peer closed connection without sending complete message body"), 30),
            (StatusError(500, "internal error"), 60),
            (ValueError("odd"), 60),
            (RuntimeError("no auxiliary LLM provider configured"), 600),
        ],
    )
    async def test_cooldown_length_depends_on_the_error(self, error: BaseException, seconds: int) -> None:
        clock = FakeClock()
        failing = FailingSummarizer(error)
        compressor = ContextCompressor(200_000, summarize=failing, clock=clock)
        await compressor.compress(conversation(12))
        clock.advance(seconds - 1)
        await compressor.compress(conversation(12))
        assert failing.calls == 1
        clock.advance(2)
        await compressor.compress(conversation(12))
        assert failing.calls == 2

    async def test_no_summariser_means_a_600s_cooldown(self) -> None:
        compressor = ContextCompressor(200_000, clock=FakeClock())
        await compressor.compress(conversation(12))
        assert compressor.last_summary_error == "no auxiliary LLM provider configured"
        assert compressor.summary_failure_cooldown_until == pytest.approx(1000 + 600)


def sdk_not_found() -> openai.NotFoundError:
    request = httpx2.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    response = httpx2.Response(404, request=request, json={"error": {"message": "model_not_found"}})
    return openai.NotFoundError("The model `aux-mini` does not exist", response=response, body=None)


class TestSummaryModelFallback:
    @pytest.mark.parametrize("error", [sdk_not_found(), StatusError(418, "something unexpected")])
    async def test_aux_failure_retries_once_on_the_main_model(self, error: BaseException) -> None:
        aux = FailingSummarizer(error)
        main = RecordingSummarizer(reply="## Active Task\nNone")
        compressor = ContextCompressor(200_000, summarize=aux, fallback_summarize=main, clock=FakeClock())
        out = await compressor.compress(conversation(12))
        assert (aux.calls, len(main.prompts)) == (1, 1)
        assert compressor.last_summary_fallback_used is False
        assert compressor.last_summary_error is None
        assert compressor.last_aux_model_failure_error
        assert any(text_of(m).startswith(SUMMARY_PREFIX) or SUMMARY_PREFIX in text_of(m) for m in out)

        await compressor.compress(conversation(12))  # the switch is permanent, fields are per call
        assert (aux.calls, len(main.prompts)) == (1, 2)
        assert compressor.last_aux_model_failure_error is None

    async def test_no_fallback_when_summary_model_is_the_main_model(self) -> None:
        clock = FakeClock()
        same = FailingSummarizer(StatusError(404, "model_not_found"))
        compressor = ContextCompressor(200_000, summarize=same, fallback_summarize=same, clock=clock)
        await compressor.compress(conversation(12))
        assert same.calls == 1
        assert compressor.last_summary_fallback_used is True
        assert compressor.summary_failure_cooldown_until == pytest.approx(clock.now + 60)

    async def test_main_model_failing_after_fallback_sets_the_cooldown(self) -> None:
        clock = FakeClock()
        aux = FailingSummarizer(StatusError(504, "gateway timeout"))
        main = FailingSummarizer(json.JSONDecodeError("Expecting value", "", 0))
        compressor = ContextCompressor(200_000, summarize=aux, fallback_summarize=main, clock=clock)
        await compressor.compress(conversation(12))
        assert (aux.calls, main.calls) == (1, 1)
        assert compressor.summary_failure_cooldown_until == pytest.approx(clock.now + 30)

    async def test_only_a_main_model_is_used_as_the_summariser(self) -> None:
        main = RecordingSummarizer()
        compressor = ContextCompressor(200_000, fallback_summarize=main)
        await compressor.compress(conversation(12))
        assert len(main.prompts) == 1 and compressor.last_summary_fallback_used is False


async def test_summary_call_budget_and_output_redaction() -> None:
    leaky = RecordingSummarizer(reply="## Active Task\nUse key sk-live0123456789abcdefghijklmnop please")
    compressor = ContextCompressor(200_000, summarize=leaky)
    out = await compressor.compress(conversation(12))
    assert leaky.max_tokens == [int(2000 * 1.3)]  # small input -> the 2000-token floor
    handoff = next(text_of(m) for m in out if SUMMARY_PREFIX in text_of(m))
    assert "sk-live0123456789abcdefghijklmnop" not in handoff
    assert "Use key ***mnop please" in handoff
    assert compressor.previous_summary and "sk-live0123456789" not in compressor.previous_summary


async def test_summary_of_a_success_and_the_system_note() -> None:
    summarizer = RecordingSummarizer(reply="## Active Task\nNone\n\n## Goal\nShip it.")
    compressor = ContextCompressor(200_000, summarize=summarizer)
    out = await compressor.compress(conversation(12))
    assert out[0]["content"].endswith("\n\n" + SYSTEM_COMPACTION_NOTE)
    handoff = next(m for m in out if SUMMARY_PREFIX in text_of(m))
    assert text_of(handoff).startswith(SUMMARY_PREFIX + "\n## Active Task\nNone\n\n## Goal\nShip it.")
    again = await compressor.compress(out + conversation(12)[1:])
    assert again[0]["content"].count(SYSTEM_COMPACTION_NOTE) == 1


class TestSummaryContinuity:
    async def test_previous_handoff_in_the_window_is_updated_not_re_serialised(self) -> None:
        old_body = "## Active Task\nNone\n\n## Goal\nOld goal: migrate the parser."
        messages = conversation(3)
        messages.insert(4, assistant(f"{SUMMARY_PREFIX}\n{old_body}"))
        messages.insert(5, user("carry on"))
        messages += conversation(8)[1:]
        summarizer = RecordingSummarizer()
        await ContextCompressor(200_000, summarize=summarizer).compress(messages)
        prompt = summarizer.prompts[0]
        assert "PREVIOUS SUMMARY:" in prompt and "NEW TURNS TO INCORPORATE:" in prompt
        assert prompt.count("Old goal: migrate the parser.") == 1
        assert f"[USER]: {SUMMARY_PREFIX}" not in prompt and f"[ASSISTANT]: {SUMMARY_PREFIX}" not in prompt

    async def test_handoff_in_the_protected_head_after_resume(self) -> None:
        messages = [system(), user(f"{LEGACY_SUMMARY_PREFIX} ## Goal\nLegacy goal text"), *conversation(10)[1:]]
        summarizer = RecordingSummarizer()
        await ContextCompressor(200_000, protect_first_n=1, summarize=summarizer).compress(messages)
        prompt = summarizer.prompts[0]
        assert "PREVIOUS SUMMARY:\n## Goal\nLegacy goal text" in prompt
        assert prompt.count("Legacy goal text") == 1

    async def test_hermes_written_handoff_from_the_fixture_db(self, hermes_fixture_db: Path) -> None:
        with sqlite3.connect(hermes_fixture_db) as db:
            (stored,) = db.execute("select content from messages where id = 17").fetchone()
        messages = [system(), user(stored), *conversation(10)[1:]]
        summarizer = RecordingSummarizer()
        await ContextCompressor(200_000, protect_first_n=1, summarize=summarizer).compress(messages)
        prompt = summarizer.prompts[0]
        previous = prompt.split("PREVIOUS SUMMARY:\n", 1)[1].split("\n\nNEW TURNS TO INCORPORATE:")[0]
        assert previous.startswith("## Active Task\nUser asked: 'Also make sure refresh tokens rotate.'")
        assert "Earlier turns were compacted" not in previous
        assert SUMMARY_END_MARKER not in previous

    async def test_first_compaction_uses_turns_to_summarize(self) -> None:
        summarizer = RecordingSummarizer()
        await ContextCompressor(200_000, summarize=summarizer).compress(conversation(12))
        assert "TURNS TO SUMMARIZE:" in summarizer.prompts[0]
        assert "PREVIOUS SUMMARY:" not in summarizer.prompts[0]


async def test_focus_topic_block_only_when_given() -> None:
    summarizer = RecordingSummarizer()
    compressor = ContextCompressor(200_000, summarize=summarizer)
    await compressor.compress(conversation(12), focus_topic="database migrations")
    assert 'FOCUS TOPIC: "database migrations"' in summarizer.prompts[0]
    assert compressor.last_prompt == summarizer.prompts[0]
    await compressor.compress(conversation(12))
    assert "FOCUS TOPIC" not in summarizer.prompts[1]


async def test_a_compression_that_leaves_the_prompt_over_the_threshold_is_ineffective() -> None:
    """The verdict is the provider's next real prompt size, not the message-list estimate."""
    compressor = ContextCompressor(200_000, summarize=RecordingSummarizer())  # threshold 150K
    messages = conversation(12)
    await compressor.compress(messages, current_tokens=1)  # saved "nothing" by the estimate: no verdict yet
    assert compressor.ineffective_compression_count == 0
    compressor.update_from_response({"prompt_tokens": 160_000})  # still over: the tools alone fill it
    assert compressor.ineffective_compression_count == 1
    await compressor.compress(messages, current_tokens=170_000)
    compressor.update_from_response({"prompt_tokens": 155_000})
    assert compressor.ineffective_compression_count == 2
    assert compressor.should_compress(500_000) is False
    assert compressor.compression_blocked
    compressor.update_from_response({"prompt_tokens": 90_000})  # the prompt fits again: the pause lifts
    assert compressor.ineffective_compression_count == 0
    assert compressor.should_compress(500_000) is True
    await compressor.compress(messages, current_tokens=170_000)
    compressor.update_from_response({"prompt_tokens": 80_000})  # cleared: effective
    assert compressor.ineffective_compression_count == 0


async def test_nothing_to_compress_over_the_threshold_counts_as_ineffective() -> None:
    compressor = ContextCompressor(200_000, summarize=RecordingSummarizer())
    short = [system(), user("a"), assistant("b")]
    for _ in range(2):
        assert await compressor.compress(short, current_tokens=180_000) == short
    assert compressor.ineffective_compression_count == 2 and compressor.should_compress(180_000) is False


async def test_two_fallback_summaries_in_a_row_pause_the_trigger() -> None:
    clock = FakeClock()
    compressor = ContextCompressor(200_000, summarize=FailingSummarizer(StatusError(500, "down")), clock=clock)
    for _ in range(2):
        await compressor.compress(conversation(12))
        assert compressor.last_summary_fallback_used
        clock.advance(3_600)  # past the cooldown
    assert compressor.fallback_compression_streak == 2
    assert compressor.should_compress(190_000) is False
    compressor.summarize = RecordingSummarizer()
    await compressor.compress(conversation(12), force=True)
    assert compressor.fallback_compression_streak == 0 and compressor.should_compress(190_000) is True


async def test_no_automatic_compression_while_the_summary_model_cools_down() -> None:
    clock = FakeClock()
    compressor = ContextCompressor(200_000, summarize=FailingSummarizer(StatusError(500, "down")), clock=clock)
    await compressor.compress(conversation(12))
    assert compressor.summary_cooldown_remaining > 0
    assert compressor.should_compress(190_000) is False
    clock.advance(61)
    assert compressor.should_compress(190_000) is True


async def test_has_content_to_compress() -> None:
    compressor = ContextCompressor(200_000)
    assert compressor.has_content_to_compress([system(), user("a"), assistant("b")]) is False
    assert compressor.has_content_to_compress(conversation(12)) is True


async def test_last_user_message_and_roles_survive() -> None:
    messages = conversation(20, output_chars=4_000)
    out = await ContextCompressor(200_000, summarize=RecordingSummarizer()).compress(messages)
    last_user = next(m for m in reversed(messages) if m["role"] == "user")
    assert last_user in out
    pairs = zip(roles(out), roles(out)[1:], strict=False)
    assert all(not (a == b and a in ("user", "assistant")) for a, b in pairs)


async def test_a_hanging_summary_model_times_out_into_the_fallback() -> None:
    never = asyncio.Event()

    async def hanging(prompt: str, max_tokens: int) -> str:
        await never.wait()
        return "unreachable"

    clock = FakeClock()
    compressor = ContextCompressor(200_000, summarize=hanging, summary_timeout=0.05, clock=clock)
    out = await compressor.compress(conversation(12))
    assert compressor.last_summary_fallback_used is True
    assert any("Summary generation was unavailable" in text_of(m) for m in out)
    assert compressor.summary_failure_cooldown_until == pytest.approx(clock.now + 60)


async def test_cancelling_during_the_summary_propagates_and_changes_nothing() -> None:
    entered = asyncio.Event()

    async def slow(prompt: str, max_tokens: int) -> str:
        entered.set()
        await asyncio.Event().wait()
        return "unreachable"

    compressor = ContextCompressor(200_000, summarize=slow, clock=FakeClock())
    task = asyncio.create_task(compressor.compress(conversation(12)))
    await asyncio.wait_for(entered.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert compressor.compression_count == 0
    assert compressor.summary_failure_cooldown_until == 0.0
