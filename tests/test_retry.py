"""Backoff, Retry-After advice from real SDK errors, and interruptible sleeping."""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime, parsedate_to_datetime

import pytest

from hermes_tui.core.providers.base import ChatRequest
from hermes_tui.core.providers.openai import OpenAIProvider
from hermes_tui.core.turn import retry
from hermes_tui.core.turn.retry import interruptible_sleep, jittered_backoff, retry_after_seconds
from tests.fake_llm import Fail, FakeLLMServer


@pytest.mark.parametrize(
    ("n", "base", "max_delay", "low"),
    [
        (1, 2.0, 60.0, 2.0),
        (2, 2.0, 60.0, 4.0),
        (4, 2.0, 60.0, 16.0),
        (9, 2.0, 60.0, 60.0),
        (3, 5.0, 120.0, 20.0),
    ],
)
def test_backoff_is_exponential_capped_with_up_to_half_jitter(
    n: int, base: float, max_delay: float, low: float
) -> None:
    rng = random.Random(7)
    samples = [jittered_backoff(n, base, max_delay, rng=rng) for _ in range(200)]
    assert all(low <= s <= low * 1.5 for s in samples)
    assert max(samples) - min(samples) > low * 0.25, "the jitter actually spreads retries"


def test_backoff_treats_attempt_zero_as_the_first() -> None:
    assert 2.0 <= jittered_backoff(0, 2.0, 60.0) <= 3.0


async def error_with_headers(headers: dict[str, str]) -> BaseException:
    with FakeLLMServer() as srv:
        srv.enqueue(Fail(429, "slow down", headers=headers))
        provider = OpenAIProvider("m", api_key="k", base_url=srv.base_url_openai)
        try:
            async for _event in provider.stream(ChatRequest(messages=[{"role": "user", "content": "hi"}])):
                pass
        except Exception as exc:
            return exc
        finally:
            await provider.aclose()
    raise AssertionError("expected a 429")


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"retry-after": "3"}, 3.0),
        ({"retry-after": "2.5"}, 2.5),
        ({"retry-after-ms": "1500"}, 1.5),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"retry-after": "3600"}, 120.0),
        ({"retry-after": "soon"}, None),
        ({"retry-after": "-5"}, None),
        ({}, None),
    ],
)
async def test_retry_after_from_a_real_rate_limit_error(headers: dict[str, str], seconds: float | None) -> None:
    assert retry_after_seconds(await error_with_headers(headers)) == seconds


async def test_retry_after_as_an_http_date() -> None:
    when = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)  # whole seconds
    error = await error_with_headers({"retry-after": when})
    before = datetime.now(UTC)
    seconds = retry_after_seconds(error)
    after = datetime.now(UTC)
    date = parsedate_to_datetime(when)
    # the date less the moment it was read, which lies between `before` and `after`: on any machine
    assert seconds is not None
    assert (date - after).total_seconds() <= seconds <= (date - before).total_seconds()


def test_no_response_means_no_advice() -> None:
    assert retry_after_seconds(RuntimeError("boom")) is None


async def test_sleep_is_cut_into_short_slices(monkeypatch: pytest.MonkeyPatch) -> None:
    requested: list[float] = []
    real_sleep = asyncio.sleep

    async def recording_sleep(delay: float) -> None:
        requested.append(delay)
        await real_sleep(delay)

    monkeypatch.setattr(retry.asyncio, "sleep", recording_sleep)
    assert await interruptible_sleep(0.5) is True
    assert len(requested) >= 3
    assert max(requested) <= 0.2


async def test_stop_flag_ends_the_sleep_early() -> None:
    checks = 0

    def should_stop() -> bool:
        nonlocal checks
        checks += 1
        return checks > 2

    assert await asyncio.wait_for(interruptible_sleep(60, should_stop=should_stop), timeout=10) is False


async def test_cancellation_reaches_the_sleeper() -> None:
    started = asyncio.Event()

    async def sleeper() -> None:
        started.set()
        await interruptible_sleep(60)

    task = asyncio.create_task(sleeper())
    await asyncio.wait_for(started.wait(), timeout=5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, timeout=5)


async def test_zero_or_negative_sleep_returns_at_once() -> None:
    assert await interruptible_sleep(0) is True
    assert await interruptible_sleep(-1) is True
