"""Small text-formatting helpers shared by the widgets: token counts, ages, durations, cutting.

Pure functions over plain values (no Textual); every widget formats numbers the same way.
"""

from __future__ import annotations


def format_tokens(count: int) -> str:
    """A compact token count: 950 -> "950", 41_200 -> "41.2K", 128_000 -> "128K", 1_000_000 -> "1M"."""
    count = max(0, int(count))
    if count < 1_000:
        return str(count)
    if count < 100_000:
        return f"{count / 1_000:.1f}K"
    if count < 1_000_000:
        return f"{count / 1_000:.0f}K"
    millions = count / 1_000_000
    return f"{millions:.0f}M" if millions == int(millions) else f"{millions:.1f}M"


def format_duration(seconds: float) -> str:
    """A tool duration: 0.012 -> "0.01s", 12.3 -> "12.3s", 65 -> "1m05s"."""
    seconds = max(0.0, float(seconds))
    if seconds < 10:
        return f"{seconds:.2f}s"
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes}m{rest:02d}s"


def format_age(seconds: float) -> str:
    """A relative age for a session: "now", "5m", "3h", "2d", "6w", "2y"."""
    seconds = max(0.0, float(seconds))
    if seconds < 60:
        return "now"
    minutes = seconds / 60
    if minutes < 60:
        return f"{int(minutes)}m"
    hours = minutes / 60
    if hours < 24:
        return f"{int(hours)}h"
    days = hours / 24
    if days < 14:
        return f"{int(days)}d"
    if days < 365:
        return f"{int(days // 7)}w"
    return f"{int(days // 365)}y"


def cut(text: str, width: int) -> str:
    """The first line of `text`, whitespace-collapsed and cut to `width` cells with an ellipsis."""
    single = " ".join(text.split())
    if width <= 0:
        return ""
    if len(single) <= width:
        return single
    return single[: max(0, width - 1)] + "…"


def short_session_id(session_id: str) -> str:
    """The distinctive tail of a Hermes session id (`YYYYMMDD_HHMMSS_<6 hex>` -> the 6 hex)."""
    tail = session_id.rsplit("_", 1)[-1]
    return tail if tail else session_id[-6:]
