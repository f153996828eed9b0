"""Running CPU-heavy core work without holding the event loop.

Two ways, for two kinds of work:

- `off_loop(fn, *args, size=...)` calls `fn` in a worker thread (`asyncio.to_thread`) when `size` —
  the number of messages (or items) the work walks — is large enough for the call to hold the event
  loop noticeably; smaller inputs run inline, where a thread hop would cost more than the work. For
  work that cannot be cut up (compression phases, measuring a history). The functions handed over
  must be pure (they read their arguments, build new objects and touch no shared state).
- `map_in_slices(fn, items)` applies `fn` to each item on the event loop itself, returning to the
  loop between slices of `SLICE_ITEMS` items (well under a millisecond each). For per-item work
  that runs while the user types — building a request's copy of a long history at the start of
  every turn. A worker thread would share the interpreter lock with the loop's thread in
  1 ms turns, so every frame drawn meanwhile took twice as long; between slices a frame or a key
  runs whole, and the work waits for it.

Cancellation: awaiting a worker is cancellable at once — a Ctrl-C cancels the awaiting task
immediately and the worker's result is dropped when it finishes; a sliced map stops at the next
slice boundary.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

# Below this many messages the work takes well under a millisecond: run it inline.
OFF_LOOP_MIN_ITEMS = 200
# Items handled between two returns to the event loop: ~0.2-0.5 ms of per-message work.
SLICE_ITEMS = 250


async def off_loop(fn: Callable[..., T], /, *args: Any, size: int, **kwargs: Any) -> T:
    """`fn(*args, **kwargs)`, in a worker thread when `size` >= OFF_LOOP_MIN_ITEMS."""
    if size < OFF_LOOP_MIN_ITEMS:
        return fn(*args, **kwargs)
    return await asyncio.to_thread(fn, *args, **kwargs)


async def in_slices(items: Sequence[T], *, per_slice: int = SLICE_ITEMS) -> AsyncIterator[Sequence[T]]:
    """The items in runs of `per_slice`, returning to the event loop before each run but the first."""
    for start in range(0, len(items), per_slice):
        if start:
            await asyncio.sleep(0)  # whatever is ready (a key, a frame) runs before the next slice
        yield items[start : start + per_slice]


async def map_in_slices(fn: Callable[[T], R], items: Sequence[T], *, per_slice: int = SLICE_ITEMS) -> list[R]:
    """`[fn(item) for item in items]`, on the event loop, returning to it between slices of `per_slice` items."""
    results: list[R] = []
    async for chunk in in_slices(items, per_slice=per_slice):
        results.extend(map(fn, chunk))
    return results
