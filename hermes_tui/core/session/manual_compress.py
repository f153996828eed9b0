"""Manual compression: `/compress [focus topic]` and `/compress here [N]` (reference §5, last part).

Bypasses the threshold and the anti-thrash guard (force=True). The partial form keeps the last
N exchanges verbatim (default 2, max 100): only the part before the Nth-last user message is
compressed, and the orchestrator re-joins the tail with a role-alternation guard before the child
session receives the whole list. A no-op says why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hermes_tui.core.session.compression import CompressionOrchestrator
from hermes_tui.core.session.live import LiveSession
from hermes_tui.core.session.meter import ContextMeter

DEFAULT_KEEP = 2
MAX_KEEP = 100
MIN_MESSAGES = 4
_PARTIAL = re.compile(r"^(?:here|up to here|--keep)(?:\s+(\d+))?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class CompressRequest:
    focus_topic: str | None
    keep_exchanges: int | None  # None = compress everything the compressor chooses


def parse_compress_args(args: str) -> CompressRequest:
    text = args.strip()
    match = _PARTIAL.match(text)
    if match:
        keep = int(match.group(1)) if match.group(1) else DEFAULT_KEEP
        return CompressRequest(None, max(1, min(keep, MAX_KEEP)))
    return CompressRequest(text or None, None)


async def manual_compress(
    session: LiveSession, compression: CompressionOrchestrator, meter: ContextMeter, args: str
) -> str:
    """Run /compress on the live session (the caller checked no turn runs); returns the line to show."""
    if not compression.enabled:
        return "Compression is disabled (compression.enabled = false in config.toml)."
    messages = session.messages
    if len(messages) < MIN_MESSAGES:
        return (
            f"Nothing to compress yet: the conversation has {len(messages)} message(s); "
            f"at least {MIN_MESSAGES} are needed."
        )
    request = parse_compress_args(args)
    await session.ensure_row()
    await session.prompt()
    approx = meter.estimate(messages)

    head, tail = messages, []
    if request.keep_exchanges is not None:
        users = [i for i, m in enumerate(messages) if m.get("role") == "user"]
        if len(users) <= request.keep_exchanges:
            return (
                f"Nothing to compress before the last {request.keep_exchanges} exchange(s): "
                f"the conversation only has {len(users)}."
            )
        cut = users[-request.keep_exchanges]
        head, tail = messages[:cut], messages[cut:]
        if len(head) < MIN_MESSAGES:
            return f"Nothing to compress: only {len(head)} message(s) come before the kept exchanges."

    if not compression.has_content_to_compress(head):
        return (
            f"Nothing to compress yet: {len(head)} message(s) fit in the protected head and tail "
            f"(the first {compression.protect_first_n} and the last 3 are always kept verbatim)."
        )
    result = await compression.compress(
        head, reason="manual", approx_tokens=approx, focus_topic=request.focus_topic, force=True, keep_tail=tail
    )
    if not result.rotated:
        why = result.skipped or "the compressor found nothing to summarise"
        return f"Compression did not change anything: {why}."
    after = meter.estimate()
    focus = f" (focus: {request.focus_topic})" if request.focus_topic else ""
    kept = f", last {request.keep_exchanges} exchange(s) kept verbatim" if request.keep_exchanges else ""
    return (
        f"🗜️ Compressed {len(messages)} → {len(session.messages)} messages, ~{approx:,} → ~{after:,} tokens"
        f"{focus}{kept}. Now in session {session.id}."
    )
