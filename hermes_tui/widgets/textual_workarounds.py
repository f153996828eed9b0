"""Work-arounds for Textual behaviour that costs hermes-tui responsiveness (seen in Textual 8.2).

`release_removed_widget_lines()`: Textual's `StylesCache.get_inner_outer` is an `lru_cache(1024)`
on an instance method, so its keys keep up to 1,024 widgets' `StylesCache` objects alive — with
every line those widgets drew — long after the widgets were removed. While an answer streams,
Markdown blocks come and go, and that cache held ~130,000 objects (60 % of all there were), which
every full garbage collection then had to walk (see gc_pacer). Emptying it costs nothing (it
caches two colour additions) and lets those lines go. Safe to call any time; does nothing if
Textual changes.
"""

from __future__ import annotations


def release_removed_widget_lines() -> None:
    """Empty Textual's per-widget colour cache so removed widgets' drawn lines can be freed."""
    from textual import _styles_cache

    cached = getattr(getattr(_styles_cache, "StylesCache", None), "get_inner_outer", None)
    clear = getattr(cached, "cache_clear", None)
    if callable(clear):
        clear()
