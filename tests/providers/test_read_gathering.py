"""gather_reads: the body's chunks pass through unchanged and in order, whether reads pause or not."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from hermes_tui.core.providers.read_gathering import gather_reads


class Body:
    """A response body arriving in pieces, some after a wait (as from a network)."""

    def __init__(self, pieces: list[bytes]) -> None:
        self.pieces = pieces

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        for index, piece in enumerate(self.pieces):
            if index % 3 == 0:
                await asyncio.sleep(0.002)  # this read waits for the network
            yield piece


class SdkStream:
    def __init__(self, response: object) -> None:
        self.response = response


async def read_all(stream: SdkStream) -> list[bytes]:
    return [chunk async for chunk in stream.response.aiter_bytes()]  # type: ignore[attr-defined]


async def test_every_chunk_comes_through_in_order() -> None:
    pieces = [f'data: {{"n": {n}}}\n\n'.encode() for n in range(40)]
    for waited_s in (0.0, 1.0):  # every read counted as a wait (pauses after each), or none
        stream = SdkStream(Body(pieces))
        gather_reads(stream, pause_s=0.001, waited_s=waited_s)
        assert await read_all(stream) == pieces


async def test_a_stream_without_a_body_reader_is_left_alone() -> None:
    stream = SdkStream(object())
    gather_reads(stream)
    assert type(stream.response) is object
