"""Backoff arithmetic and interruptible waiting for the retry loop (reference §1.2, §6.1 item 22).

`jittered_backoff` is Hermes's `min(base*2^(n-1), max) + U(0, 0.5*delay)`; `retry_after_seconds`
reads a server's `Retry-After` / `retry-after-ms` advice (capped at 120 s); `interruptible_sleep`
waits in slices of at most 0.2 s so a Ctrl-C (task cancellation) or a stop flag is seen promptly.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

RETRY_AFTER_CAP_SECONDS = 120.0
SLEEP_SLICE_SECONDS = 0.2


def jittered_backoff(n: int, base: float = 2.0, max_delay: float = 60.0, *, rng: random.Random | None = None) -> float:
    """Seconds to wait before retry `n` (1-based): exponential, capped, plus up to 50 % jitter."""
    attempt = max(1, int(n))
    delay = min(base * 2 ** (attempt - 1), max_delay)
    jitter = (rng or random).uniform(0.0, 0.5 * delay)
    return delay + jitter


def _headers(error: BaseException) -> Mapping[str, Any] | None:
    response = getattr(error, "response", None)
    headers = getattr(response, "headers", None) if response is not None else None
    if headers is None:
        headers = getattr(error, "headers", None)
    return headers if hasattr(headers, "get") else None


def _parse_retry_after(value: str) -> float | None:
    value = value.strip()
    try:
        return float(value)
    except ValueError:
        pass
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if moment is None:
        return None
    now = datetime.now(moment.tzinfo or UTC)
    return (moment - now).total_seconds()


def retry_after_seconds(error: BaseException) -> float | None:
    """The server's advised wait from `retry-after-ms` or `Retry-After`, capped at 120 s.

    None when the error carries no usable advice (no response, no header, garbage, negative).
    """
    headers = _headers(error)
    if headers is None:
        return None
    seconds: float | None = None
    raw_ms = headers.get("retry-after-ms")
    if raw_ms is not None:
        try:
            seconds = float(str(raw_ms).strip()) / 1000.0
        except ValueError:
            seconds = None
    if seconds is None:
        raw = headers.get("retry-after")
        if raw is not None:
            seconds = _parse_retry_after(str(raw))
    if seconds is None or seconds != seconds or seconds < 0:  # NaN or in the past
        return None
    return min(seconds, RETRY_AFTER_CAP_SECONDS)


async def interruptible_sleep(
    seconds: float,
    *,
    should_stop: Callable[[], bool] | None = None,
    slice_seconds: float = SLEEP_SLICE_SECONDS,
) -> bool:
    """Sleep `seconds` in slices of at most `slice_seconds`.

    Returns True when the full time elapsed, False when `should_stop()` turned true first.
    Cancellation of the calling task propagates as usual (and is seen within one slice).
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + max(0.0, seconds)
    while True:
        if should_stop is not None and should_stop():
            return False
        remaining = deadline - loop.time()
        if remaining <= 0:
            return True
        await asyncio.sleep(min(remaining, slice_seconds))
