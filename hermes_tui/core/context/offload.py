"""Running CPU-heavy core work off the event loop.

Owns `off_loop(fn, *args, size=...)`: calls `fn` in a worker thread (`asyncio.to_thread`) when
`size` — the number of messages (or items) the work walks — is large enough for the call to hold
the event loop noticeably; smaller inputs run inline, where a thread hop would cost more than the
work. The functions handed over must be pure (they read their arguments, build new objects and
touch no shared state), so a worker can run them while the loop keeps drawing and reading keys.

Cancellation: awaiting a worker is cancellable at once — a Ctrl-C cancels the awaiting task
immediately and the worker's result is dropped when it finishes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

# Below this many messages the work takes well under a millisecond: run it inline.
OFF_LOOP_MIN_ITEMS = 200


async def off_loop(fn: Callable[..., T], /, *args: Any, size: int, **kwargs: Any) -> T:
    """`fn(*args, **kwargs)`, in a worker thread when `size` >= OFF_LOOP_MIN_ITEMS."""
    if size < OFF_LOOP_MIN_ITEMS:
        return fn(*args, **kwargs)
    return await asyncio.to_thread(fn, *args, **kwargs)
