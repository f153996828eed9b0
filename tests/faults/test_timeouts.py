"""The three provider timeouts: which one fires for which silence, what it says, and what a turn does with it."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from hermes_tui.config import ConfigError, Home, TimeoutsSettings, load_settings
from hermes_tui.core import events as ev
from hermes_tui.core.bootstrap import open_agent
from hermes_tui.core.providers.base import ChatRequest, Provider, StreamText
from hermes_tui.core.providers.factory import make_provider
from hermes_tui.core.providers.failures import ProviderTimeout
from hermes_tui.core.turn.errors import FailoverReason, classify_api_error
from tests.core.helpers import EventLog
from tests.fake_llm import BlackHole, FakeLLMServer, Hang, KeepAlive, Reply, Stall, Step
from tests.faults.helpers import BOTH, Harness, choice_for, server_url

LIMITS = TimeoutsSettings(connect=0.5, first_byte=0.5, idle=0.4)
# Far above every limit and below the 30 s silences: reaching it means the watchdog did not fire (even at
# load 15 a 0.5 s limit fires within a few seconds).
GUARD_S = 20.0
# For a turn that retries after a silence: short enough for a test, long enough that the healthy attempt
# after it is never cut off on a loaded machine.
TURN_LIMITS = TimeoutsSettings(connect=15.0, first_byte=3.0, idle=3.0)


def provider_for(protocol: str, base_url: str, limits: TimeoutsSettings = LIMITS) -> Provider:
    return make_provider(choice_for(protocol, base_url), timeouts=limits)


async def timeout_of(provider: Provider) -> tuple[ProviderTimeout, list[str], float]:
    """Run one call to its timeout: the exception, the text received before it, and the seconds it took."""
    received: list[str] = []
    started = time.monotonic()

    async def consume() -> None:
        async for event in provider.stream(ChatRequest(messages=[{"role": "user", "content": "hi"}])):
            if isinstance(event, StreamText):
                received.append(event.text)

    try:
        with pytest.raises(ProviderTimeout) as caught:
            await asyncio.wait_for(consume(), GUARD_S)
    finally:
        await provider.aclose()
    return caught.value, received, time.monotonic() - started


CASES: list[tuple[str, Step, str, str]] = [
    ("stall before the headers", Stall(30, phase="headers"), "first_byte", ""),
    ("stall after the headers", Stall(30, phase="body"), "first_byte", ""),
    ("keep-alives only", KeepAlive(30, interval=0.05), "first_byte", ""),
    ("stall mid-answer", Hang(30, first_text="Half an answer"), "idle", "Half an answer"),
    ("keep-alives mid-answer", KeepAlive(30, interval=0.05, text="Some text"), "idle", "Some text"),
]


@pytest.mark.parametrize("protocol", BOTH)
@pytest.mark.parametrize(("label", "step", "kind", "before"), CASES, ids=[case[0] for case in CASES])
async def test_the_right_timeout_fires_and_says_so(
    server: FakeLLMServer, protocol: str, label: str, step: Step, kind: str, before: str
) -> None:
    server.enqueue(step)
    error, received, seconds = await timeout_of(provider_for(protocol, server_url(server, protocol)))
    assert error.kind == kind, label
    limit = LIMITS.first_byte if kind == "first_byte" else LIMITS.idle
    assert error.seconds == limit
    expected = {
        "first_byte": "no response for 0.5 s (first-byte timeout)",
        "idle": "no data for 0.4 s (stream idle timeout)",
    }
    assert str(error).startswith(expected[kind])
    assert "".join(received) == before
    assert seconds < GUARD_S


@pytest.mark.parametrize("protocol", BOTH)
async def test_a_connection_that_is_never_accepted_hits_the_connect_timeout(protocol: str) -> None:
    limits = TimeoutsSettings(connect=0.3, first_byte=3.0, idle=3.0)
    with BlackHole() as hole:
        url = hole.url("/v1" if protocol == "openai" else "")
        error, received, _seconds = await timeout_of(provider_for(protocol, url, limits))
    assert (error.kind, error.seconds, received) == ("connect", 0.3, [])
    assert str(error).startswith("could not connect within 0.3 s (connect timeout)")


@pytest.mark.parametrize("protocol", BOTH)
async def test_a_slow_but_steady_stream_is_not_cut(server: FakeLLMServer, protocol: str) -> None:
    """Each event comes after 0.08 s: the whole answer outlasts every limit, but no gap does."""
    server.enqueue(Reply(text="Slow and steady wins.", chunk_size=5, delay_per_chunk=0.08))
    provider = provider_for(protocol, server_url(server, protocol))
    try:
        events = await asyncio.wait_for(_collect(provider), GUARD_S + 5)
    finally:
        await provider.aclose()
    assert "".join(e.text for e in events if isinstance(e, StreamText)) == "Slow and steady wins."


async def _collect(provider: Provider) -> list[object]:
    return [event async for event in provider.stream(ChatRequest(messages=[{"role": "user", "content": "hi"}]))]


def test_every_timeout_is_a_retryable_timeout_for_the_classifier() -> None:
    for kind in ("connect", "first_byte", "idle"):
        result = classify_api_error(ProviderTimeout(kind, 30, "https://api.example.com"))
        assert (result.reason, result.retryable, result.should_compress) == (FailoverReason.TIMEOUT, True, False)
        assert "timeout" in result.message and "30 s" in result.message


def test_an_unknown_timeout_kind_is_a_programming_error() -> None:
    with pytest.raises(ValueError):
        ProviderTimeout("forever", 1)


# --------------------------------------------------------------------------- through a turn


@pytest.mark.parametrize("protocol", BOTH)
async def test_a_stalled_attempt_is_retried_and_the_turn_answers(harness: Harness, protocol: str) -> None:
    run = await harness.run(protocol, Stall(30, phase="body"), Reply(text="Awake now."), timeouts=TURN_LIMITS)
    run.assert_answered("Awake now.")
    assert len(run.requests) == 2
    assert run.retries and "timeout" in run.retries[0]


@pytest.mark.parametrize("protocol", BOTH)
async def test_keep_alives_on_every_attempt_fail_the_turn_naming_the_timeout(harness: Harness, protocol: str) -> None:
    pinging = KeepAlive(30, interval=0.05)
    limits = TimeoutsSettings(connect=2.0, first_byte=0.3, idle=0.3)
    run = await harness.run(protocol, pinging, pinging, pinging, timeouts=limits)
    run.assert_failed("after 3 retries", "first-byte timeout", "0.3 s")
    assert len(run.requests) == 3


@pytest.mark.parametrize("protocol", BOTH)
async def test_a_stall_mid_answer_is_continued_where_it_stopped(harness: Harness, protocol: str) -> None:
    hang = Hang(30, first_text="The notes say")
    run = await harness.run(protocol, hang, Reply(text=" the code is 4242."), timeouts=TURN_LIMITS)
    run.assert_continued("The notes say", " the code is 4242.")
    assert len(run.requests) == 2
    assert "network error" in json.dumps(run.requests[1].body["messages"][-1])
    told = [*run.statuses, *run.warnings, *(entry.text for entry in run.log.of(ev.ReviewEntry))]
    assert any("stream idle timeout" in text for text in told), f"the user is not told why the answer stopped: {told}"


async def test_config_timeouts_reach_the_provider_through_the_real_start_up(
    tmp_path: Path, server: FakeLLMServer
) -> None:
    home = Home(tmp_path / "home").ensure()
    config = "[agent]\napi_max_retries = 1\n\n[timeouts]\nconnect = 2\nfirst_byte = 0.5\nidle = 0.4\n"
    home.config_file.write_text(config, encoding="utf-8")
    settings = load_settings(home, env={})
    assert (settings.timeouts.connect, settings.timeouts.first_byte, settings.timeouts.idle) == (2.0, 0.5, 0.4)
    server.enqueue(Stall(30, phase="body"))
    agent, db = await open_agent(
        home=home,
        settings=settings,
        choice=choice_for("openai", server.base_url_openai),
        sink=EventLog(),
        approver=None,
        source="cli",
        cwd=tmp_path,
    )
    try:
        result = await asyncio.wait_for(agent.run_conversation("hello"), GUARD_S * 2)
    finally:
        await agent.provider.aclose()
        await db.close()
    assert result.failed and "no response for 0.5 s (first-byte timeout)" in result.error


def test_defaults_fail_a_dead_provider_in_well_under_a_minute() -> None:
    defaults = TimeoutsSettings()
    assert (defaults.connect, defaults.first_byte, defaults.idle) == (10.0, 45.0, 30.0)
    assert defaults.connect + defaults.first_byte < 60


@pytest.mark.parametrize("value", [-1, float("nan"), float("inf")])
def test_a_negative_or_non_finite_timeout_is_a_config_error(value: float) -> None:
    with pytest.raises(ConfigError, match=r"timeouts\.idle"):
        make_provider(choice_for("openai", "http://127.0.0.1:9/v1"), timeouts=TimeoutsSettings(idle=value))
