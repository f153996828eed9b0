"""`gather_reads`: a fast stream's body is read a few times a second, not once per event.

A provider streaming ~1,000 events a second writes each one separately, and the SDK read each
one as it came: every event woke the reading task through the event loop's selector, httpcore,
h11, the UTF-8 repair and the SDK's line splitter — much of the CPU of a long stream, on the loop
that also draws the screen and takes the keys. Now, once the reads have caught up with the network,
the next one waits `GATHER_S` first, so what arrives meanwhile is taken in one go (h11 then hands
the buffered HTTP chunks over without waking the loop). The SDK still yields every event, in order;
nothing is lost. A slow stream's next event is at most `GATHER_S` later; the answer's text reaches
the screen in flushes at most ~30 a second anyway (widgets.conversation).

"Caught up" is asked of the connection's socket when the response names it (httpx's
`network_stream` extension): nothing is waiting to be received (`poll` with no timeout, a few µs).
A read that finds data there goes on at once, so a loaded machine that reads slowly never pauses
and never falls behind. Some servers send the next event only once the previous one is read (small
writes held back until acknowledged): a pause there gathers nothing and only slows the stream, so
after a pause that brought fewer than `USEFUL_PAUSE_CHUNKS` chunks the reads go on without pausing
for `GATHER_S`, doubling up to `MAX_BACKOFF_S` each time it happens again. A response without a
socket to ask (another transport) falls back to timing the reads: one that took longer than
`WAITED_S` waited for the network, and pauses are at most one per `GATHER_S` of reading, so that
reads slowed by a busy machine do not pause after every chunk.
"""

from __future__ import annotations

import asyncio
import select
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

GATHER_S = 0.01
WAITED_S = 0.0003  # a read that took longer than this waited for the network (a buffered one: ~0.03 ms)
USEFUL_PAUSE_CHUNKS = 2  # a pause that brought fewer chunks than this gathered nothing
MAX_BACKOFF_S = 1.0  # the longest run of reads without a pause after pauses that gathered nothing


def gather_reads(
    sdk_stream: Any,
    pause_s: float = GATHER_S,
    waited_s: float = WAITED_S,
    pause: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> None:
    """Make the SDK stream's body reads (`response.aiter_bytes`) pause `pause_s` once they have caught up
    (`pause`: how to wait, for tests to see each pause).

    Call it before the stream is iterated; a stream without an httpx response is left alone.
    """
    response = getattr(sdk_stream, "response", None)
    read = getattr(response, "aiter_bytes", None)
    if read is None or pause_s <= 0:
        return
    waiting = _receive_check(response)
    if waiting is None:
        response.aiter_bytes = _timed_gathering(read, pause_s, waited_s)
    else:
        response.aiter_bytes = _caught_up_gathering(read, waiting, pause_s, pause)


def _receive_check(response: Any) -> Callable[[], bool] | None:
    """A check that says whether data waits to be received on the response's socket, if it has one."""
    extensions = getattr(response, "extensions", None)
    stream = extensions.get("network_stream") if isinstance(extensions, dict) else None
    get_extra_info = getattr(stream, "get_extra_info", None)
    sock = get_extra_info("socket") if callable(get_extra_info) else None
    if not hasattr(select, "poll"):
        return None
    try:
        poller = select.poll()
        poller.register(sock.fileno(), select.POLLIN)
    except (AttributeError, OSError, TypeError, ValueError):  # no socket, or closed already
        return None
    return lambda: bool(poller.poll(0))


def _caught_up_gathering(
    read: Any, waiting: Callable[[], bool], pause_s: float, pause: Callable[[float], Awaitable[None]]
) -> Any:
    async def gathered(*args: Any, **kwargs: Any) -> AsyncIterator[bytes]:
        gathered_since_pause: int | None = None  # chunks read since the last pause (None: not paused yet)
        no_pause_until = 0.0
        backoff = pause_s
        async for chunk in read(*args, **kwargs):
            yield chunk
            if gathered_since_pause is not None:
                gathered_since_pause += 1
            if waiting():
                continue  # more has arrived: read on
            now = time.perf_counter()
            if now < no_pause_until:
                continue
            if gathered_since_pause is not None and gathered_since_pause < USEFUL_PAUSE_CHUNKS:
                # The last pause gathered nothing more than a read would have: the server sends only as
                # fast as it is read (small writes held back until the previous is acknowledged). Read
                # without pausing for a while, twice as long each time this happens.
                no_pause_until = now + backoff
                backoff = min(backoff * 2, MAX_BACKOFF_S)
                gathered_since_pause = None
                continue
            if gathered_since_pause is not None:
                backoff = pause_s  # the pause paid off
            await pause(pause_s)  # caught up with the network: let the next events gather first
            gathered_since_pause = 0

    return gathered


def _timed_gathering(read: Any, pause_s: float, waited_s: float) -> Any:
    async def gathered(*args: Any, **kwargs: Any) -> AsyncIterator[bytes]:
        chunks = read(*args, **kwargs).__aiter__()
        paused_until = 0.0
        while True:
            began = time.perf_counter()
            try:
                chunk = await chunks.__anext__()
            except StopAsyncIteration:
                return
            now = time.perf_counter()
            yield chunk
            # At most one pause per `pause_s` of reading: a read slowed by a busy machine (not by
            # the network) must not pause after every chunk, or the stream would fall behind.
            if now - began > waited_s and now - paused_until >= pause_s:
                await asyncio.sleep(pause_s)  # what arrives meanwhile comes in the next reads, back to back
                paused_until = time.perf_counter()

    return gathered
