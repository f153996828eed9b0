"""Work-arounds for Textual behaviour that costs hermes-tui responsiveness (seen in Textual 8.2).

`release_removed_widget_lines()`: Textual's `StylesCache.get_inner_outer` is an `lru_cache(1024)`
on an instance method, so its keys keep up to 1,024 widgets' `StylesCache` objects alive — with
every line those widgets drew — long after the widgets were removed. While an answer streams,
Markdown blocks come and go, and that cache held ~130,000 objects (60 % of all there were), which
every full garbage collection then had to walk (see gc_pacer). Emptying it costs nothing (it
caches two colour additions) and lets those lines go. Safe to call any time; does nothing if
Textual changes.

`quicker_frames()`: a screen draws from a timer that runs at most `MAX_FPS` (60) times a second,
and when a frame took longer than one period (a layout while an answer streams: 10-30 ms), the
timer skips ahead to the period after the next one — so the frame that shows the next keystroke
came 17-33 ms after the previous frame ended, and a key pressed during a long frame waited for it,
then for the skip, then for its own frame (p95 54-60 ms in bench/latency_bench.py's 200 KB stream).
With a 1/240 s period the skip costs 4-8 ms (p95 35 ms). Frames still happen only when something
changed, so an idle screen costs nothing more. A `TEXTUAL_FPS` set by the user wins.
"""

from __future__ import annotations

import os

FRAMES_PER_SECOND = 240


def release_removed_widget_lines() -> None:
    """Empty Textual's per-widget colour cache so removed widgets' drawn lines can be freed."""
    from textual import _styles_cache

    cached = getattr(getattr(_styles_cache, "StylesCache", None), "get_inner_outer", None)
    clear = getattr(cached, "cache_clear", None)
    if callable(clear):
        clear()


def quicker_frames(frames_per_second: int = FRAMES_PER_SECOND) -> None:
    """Let screens draw up to `frames_per_second` times a second (unless TEXTUAL_FPS says otherwise)."""
    if os.environ.get("TEXTUAL_FPS"):
        return
    from textual import screen

    if isinstance(getattr(screen, "UPDATE_PERIOD", None), float):
        screen.UPDATE_PERIOD = 1 / frames_per_second  # read when a screen makes its update timer
