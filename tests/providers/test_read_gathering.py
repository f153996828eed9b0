"""gather_reads: the body's chunks pass through unchanged and in order, whether reads pause or not."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Callable

from hermes_tui.core.providers.read_gathering import gather_reads
from tests.waits import HANG_GUARD_S


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


class SocketBody:
    """A response body read from a real socket, as httpx2 reads one: the response names its socket
    (`network_stream`), and `aiter_bytes` yields what each receive returned."""

    def __init__(self, sock: socket.socket, size: int = 16, before_receive: Callable[[], None] | None = None) -> None:
        self.sock = sock
        self.size = size
        self.before_receive = before_receive  # a server that sends as it is read
        self.receives = 0
        self.extensions = {"network_stream": self}

    def get_extra_info(self, info: str) -> object:
        return self.sock if info == "socket" else None

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        loop = asyncio.get_running_loop()
        while True:
            if self.before_receive is not None:
                self.before_receive()
            data = await loop.sock_recv(self.sock, self.size)
            self.receives += 1
            if not data:
                return
            yield data


def socket_pair() -> tuple[socket.socket, socket.socket]:
    reader, writer = socket.socketpair()
    reader.setblocking(False)
    return reader, writer


async def test_reads_that_find_data_waiting_go_on_without_a_pause() -> None:
    reader, writer = socket_pair()
    writer.sendall(b"x" * 16 * 50)
    writer.close()  # everything is there before the first read, then the end
    body = SocketBody(reader)
    stream = SdkStream(body)
    gather_reads(stream, pause_s=HANG_GUARD_S)  # a pause would outlast the wait below
    chunks = await asyncio.wait_for(read_all(stream), HANG_GUARD_S / 2)
    assert b"".join(chunks) == b"x" * 16 * 50
    reader.close()


async def test_once_caught_up_the_next_read_waits_and_takes_what_arrived_meanwhile_in_one_go() -> None:
    reader, writer = socket_pair()
    body = SocketBody(reader, size=4096)
    stream = SdkStream(body)
    paused, resume = asyncio.Event(), asyncio.Event()
    pauses: list[float] = []

    async def pause(seconds: float) -> None:  # the gathering's pause, held until the test lets it go
        pauses.append(seconds)
        paused.set()
        await resume.wait()

    gather_reads(stream, pause_s=0.01, pause=pause)
    writer.sendall(b"a" * 16)
    reading = asyncio.create_task(read_all(stream))
    await asyncio.wait_for(paused.wait(), HANG_GUARD_S)  # the first piece read, nothing more there: a pause
    assert pauses == [0.01] and body.receives == 1
    for _ in range(4):  # four events arrive while it pauses, then the end
        writer.sendall(b"y" * 16)
    writer.close()
    resume.set()
    assert await asyncio.wait_for(reading, HANG_GUARD_S) == [b"a" * 16, b"y" * 64], "taken in one receive"
    assert pauses == [0.01], "reads that find data (and the end) waiting go on without a pause"
    reader.close()


async def test_a_server_that_sends_only_as_fast_as_it_is_read_is_not_slowed_by_pauses() -> None:
    """Small writes held back until the previous one is acknowledged: the next event comes only once
    the reader reads again, so every pause gathers nothing. The reads stop pausing for a while, and
    for longer each time; a reader that paused each time it caught up would pause once per event."""
    reader, writer = socket_pair()
    pieces = [f"{index:015d}\n".encode() for index in range(200)]
    left = list(pieces)

    def send_next() -> None:
        if left:
            writer.sendall(left.pop(0))
        elif writer.fileno() >= 0:
            writer.close()

    pauses: list[float] = []

    async def pause(seconds: float) -> None:
        pauses.append(seconds)

    stream = SdkStream(SocketBody(reader, before_receive=send_next))
    gather_reads(stream, pause_s=0.01, pause=pause)
    assert await asyncio.wait_for(read_all(stream), HANG_GUARD_S) == pieces
    # free runs doubling from 10 ms up to 1 s: even at 10 ms a piece (2 s in all) that is 9 pauses
    assert 1 <= len(pauses) < 10, f"{len(pauses)} pauses for {len(pieces)} pieces"
    reader.close()


async def test_a_response_whose_socket_is_gone_falls_back_to_timed_reads() -> None:
    reader, writer = socket_pair()
    reader.close()
    writer.close()
    body = Body([b"one", b"two"])
    body.extensions = {"network_stream": SocketBody(reader)}  # type: ignore[attr-defined]
    stream = SdkStream(body)
    gather_reads(stream, pause_s=0.001)
    assert await read_all(stream) == [b"one", b"two"]
