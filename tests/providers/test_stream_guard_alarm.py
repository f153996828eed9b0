"""The stream guard's one alarm per stream: the windows it enforces between events, and what it leaves alone.

The SDK stream is stood in for by a plain async iterator fed from a queue, so each case controls
exactly when an event arrives; the guard is the real one. Every wait is bounded by GUARD_S, far
above the windows used, so a silent alarm shows up as a failure, not as a hang.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest

from hermes_tui.core.providers.failures import ProviderTimeout
from hermes_tui.core.providers.stream_guard import GuardedStream, StreamTimeouts

GUARD_S = 20.0
END = object()


class ScriptedStream:
    """An SDK stream's stand-in: yields what the test puts in `events`, ends at END."""

    def __init__(self) -> None:
        self.events: asyncio.Queue[object] = asyncio.Queue()

    def __aiter__(self) -> AsyncIterator[object]:
        return self

    async def __anext__(self) -> object:
        event = await self.events.get()
        if event is END:
            raise StopAsyncIteration
        return event


async def read_all(guard: GuardedStream, stream: ScriptedStream, *, progress: bool = True) -> list[object]:
    received = []
    async for event in guard.items(stream):
        received.append(event)
        if progress:
            guard.progress()
    return received


async def test_an_idle_window_shorter_than_what_is_left_of_the_first_byte_one_fires_on_time() -> None:
    guard = GuardedStream(StreamTimeouts(first_byte=GUARD_S * 2, idle=0.2), "http://model.test")
    stream = ScriptedStream()
    stream.events.put_nowait("first words")
    started = time.monotonic()
    with pytest.raises(ProviderTimeout) as caught:
        await asyncio.wait_for(read_all(guard, stream), GUARD_S)
    assert caught.value.kind == "idle"
    assert time.monotonic() - started < GUARD_S, "the idle window, not the first-byte one, ended the stream"


async def test_events_that_keep_coming_within_the_window_are_all_read_and_the_stream_ends_cleanly() -> None:
    guard = GuardedStream(StreamTimeouts(first_byte=5.0, idle=5.0), "http://model.test")
    stream = ScriptedStream()
    for index in range(2_000):
        stream.events.put_nowait(index)
    stream.events.put_nowait(END)
    assert await asyncio.wait_for(read_all(guard, stream), GUARD_S) == list(range(2_000))


async def test_the_callers_own_work_between_events_is_never_cancelled_the_next_read_times_out() -> None:
    guard = GuardedStream(StreamTimeouts(first_byte=0.2, idle=0.2), "http://model.test")
    stream = ScriptedStream()
    stream.events.put_nowait("an event")
    stream.events.put_nowait("another, already there")
    handled: list[object] = []

    async def slow_reader() -> None:
        async for event in guard.items(stream):
            await asyncio.sleep(0.5)  # handling the event takes longer than the window: the handling itself
            handled.append(event)  # is not the provider's silence and must finish

    with pytest.raises(ProviderTimeout) as caught:
        await asyncio.wait_for(slow_reader(), GUARD_S)
    assert handled == ["an event"] and caught.value.kind == "first_byte"


async def test_a_cancel_from_outside_while_waiting_stays_a_cancel() -> None:
    guard = GuardedStream(StreamTimeouts(first_byte=GUARD_S, idle=GUARD_S), "http://model.test")
    stream = ScriptedStream()
    reading = asyncio.create_task(read_all(guard, stream))
    stream.events.put_nowait("one")
    while stream.events.qsize():
        await asyncio.sleep(0)
    reading.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reading
    assert reading.cancelled()


async def test_no_limits_read_everything_without_an_alarm() -> None:
    guard = GuardedStream(StreamTimeouts(first_byte=0, idle=0), "http://model.test")
    stream = ScriptedStream()
    for event in ("a", "b", END):
        stream.events.put_nowait(event)
    assert await asyncio.wait_for(read_all(guard, stream), GUARD_S) == ["a", "b"]


async def test_with_the_idle_window_off_the_first_byte_alarm_ends_with_the_first_content() -> None:
    guard = GuardedStream(StreamTimeouts(first_byte=0.2, idle=0), "http://model.test")
    stream = ScriptedStream()
    stream.events.put_nowait("first words")

    async def a_pause_then_the_rest() -> None:  # silent past the first-byte window: no limit applies now
        await asyncio.sleep(0.6)
        stream.events.put_nowait("the rest")
        stream.events.put_nowait(END)

    sender = asyncio.create_task(a_pause_then_the_rest())
    assert await asyncio.wait_for(read_all(guard, stream), GUARD_S) == ["first words", "the rest"]
    await sender
