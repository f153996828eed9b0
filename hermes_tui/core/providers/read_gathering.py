"""`gather_reads`: a fast stream's body is read a few times a second, not once per event.

A provider streaming ~1,000 events a second writes each one separately, and the SDK read each
one as it came: every event woke the reading task through the event loop's selector, httpcore,
h11, the UTF-8 repair and the SDK's line splitter — much of the CPU of a long stream, on the loop
that also draws the screen and takes the keys. Now, when a read had to wait for the network (all
that had arrived was taken), the next read waits `GATHER_S` first, so what arrives meanwhile is
taken in one go (h11 then hands the buffered HTTP chunks over without waking the loop). Reads
that find data already buffered go on at once, and after a pause the reads go on for at least
`GATHER_S` before the next one, so a loaded machine (slow reads) never makes the stream fall
behind. The SDK still yields every event, in order; nothing is lost. A slow stream's next event
is at most `GATHER_S` later; the answer's text reaches the screen in flushes at most ~30 a
second anyway (widgets.conversation).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

GATHER_S = 0.01
WAITED_S = 0.0003  # a read that took longer than this waited for the network (a buffered one: ~0.03 ms)


def gather_reads(sdk_stream: Any, pause_s: float = GATHER_S, waited_s: float = WAITED_S) -> None:
    """Make the SDK stream's body reads (`response.aiter_bytes`) pause `pause_s` after a read that waited.

    Call it before the stream is iterated; a stream without an httpx response is left alone.
    """
    response = getattr(sdk_stream, "response", None)
    read = getattr(response, "aiter_bytes", None)
    if read is None or pause_s <= 0:
        return

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

    response.aiter_bytes = gathered
