"""Core work that must not hold the event loop: `off_loop` (a worker thread) and `map_in_slices`."""

from __future__ import annotations

import asyncio
import threading

from hermes_tui.core.context.offload import OFF_LOOP_MIN_ITEMS, map_in_slices, off_loop
from tests.loop_watch import LoopTurns


async def test_map_in_slices_maps_every_item_in_order_and_the_loop_runs_between_slices() -> None:
    seen: list[int] = []  # the ticker's count when each item was mapped
    async with LoopTurns() as ticker:
        result = await map_in_slices(lambda item: (seen.append(ticker.ticks), item * 2)[1], range(25), per_slice=10)
    assert result == [item * 2 for item in range(25)]
    slices = [seen[0:10], seen[10:20], seen[20:25]]
    assert all(len(set(part)) == 1 for part in slices), "no other task runs inside a slice"
    assert slices[0][0] < slices[1][0] < slices[2][0], "other tasks run between the slices"


async def test_map_in_slices_of_one_slice_never_leaves_the_loop_and_an_empty_input_gives_nothing() -> None:
    seen: list[int] = []
    async with LoopTurns() as ticker:
        assert await map_in_slices(lambda item: seen.append(ticker.ticks), range(5), per_slice=5) == [None] * 5
    assert len(set(seen)) == 1
    assert await map_in_slices(str, []) == []


async def test_a_cancelled_sliced_map_stops_at_the_next_slice() -> None:
    mapped: list[int] = []
    task = asyncio.create_task(map_in_slices(mapped.append, range(1_000), per_slice=100))
    await asyncio.sleep(0)  # the first slice runs
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert task.cancelled()
    assert len(mapped) == 100


async def test_off_loop_runs_large_work_in_a_worker_and_small_work_inline() -> None:
    def where() -> bool:
        return threading.current_thread() is threading.main_thread()

    assert await off_loop(where, size=OFF_LOOP_MIN_ITEMS - 1) is True
    assert await off_loop(where, size=OFF_LOOP_MIN_ITEMS) is False
