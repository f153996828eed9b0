"""Manual compression: `/compress [focus topic]`, `/compress here [N]` and `/compress preview …` (reference §5).

Bypasses the threshold and the anti-thrash guard (force=True). The partial form keeps the last
N exchanges verbatim (default 2, max 100): only the part before the Nth-last user message is
compressed, and the orchestrator re-joins the tail with a role-alternation guard before the child
session receives the whole list. `preview` (first word) only says what would happen
(`CompressionPreview`: what would be summarised, tokens before and an estimate after); the TUI
shows it and asks before it applies. A no-op — too short, nothing in the middle, or a result
that would not be smaller (the no-op rule) — says why and changes nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hermes_tui.core.context.offload import off_loop
from hermes_tui.core.messages import Message
from hermes_tui.core.session.compression import CompressionOrchestrator
from hermes_tui.core.session.compression_check import CompressionPreview
from hermes_tui.core.session.live import LiveSession
from hermes_tui.core.session.meter import ContextMeter

DEFAULT_KEEP = 2
MAX_KEEP = 100
MIN_MESSAGES = 4
_PARTIAL = re.compile(r"^(?:here|up to here|--keep)(?:\s+(\d+))?\s*$", re.IGNORECASE)
_PREVIEW = re.compile(r"^preview(?:\s+|$)", re.IGNORECASE)


@dataclass(frozen=True)
class CompressRequest:
    focus_topic: str | None
    keep_exchanges: int | None  # None = compress everything the compressor chooses
    preview: bool = False  # only say what would happen


def parse_compress_args(args: str) -> CompressRequest:
    text = args.strip()
    preview = bool(_PREVIEW.match(text))
    if preview:
        text = _PREVIEW.sub("", text, count=1).strip()
    match = _PARTIAL.match(text)
    if match:
        keep = int(match.group(1)) if match.group(1) else DEFAULT_KEEP
        return CompressRequest(None, max(1, min(keep, MAX_KEEP)), preview)
    return CompressRequest(text or None, None, preview)


def _split(
    messages: list[Message], request: CompressRequest, compression: CompressionOrchestrator
) -> tuple[list[Message], list[Message], str]:
    """(what is compressed, the tail kept verbatim, why nothing can be compressed — "" when something can)."""
    if not compression.enabled:
        return messages, [], "compression is disabled (compression.enabled = false in config.toml)"
    if len(messages) < MIN_MESSAGES:
        return messages, [], f"the conversation has {len(messages)} message(s); at least {MIN_MESSAGES} are needed"
    head, tail = messages, []
    if request.keep_exchanges is not None:
        users = [i for i, m in enumerate(messages) if m.get("role") == "user"]
        if len(users) <= request.keep_exchanges:
            return (
                messages,
                [],
                (
                    f"nothing comes before the last {request.keep_exchanges} exchange(s): "
                    f"the conversation only has {len(users)}"
                ),
            )
        cut = users[-request.keep_exchanges]
        head, tail = messages[:cut], messages[cut:]
        if len(head) < MIN_MESSAGES:
            return head, tail, f"only {len(head)} message(s) come before the kept exchanges"
    if not compression.has_content_to_compress(head):
        return (
            head,
            tail,
            (
                f"{len(head)} message(s) fit in the protected head and tail "
                f"(the first {compression.protect_first_n} and the last 3 are always kept verbatim)"
            ),
        )
    return head, tail, ""


async def compression_preview(
    session: LiveSession, compression: CompressionOrchestrator, meter: ContextMeter, args: str
) -> CompressionPreview:
    """What `/compress args` would do now (nothing is changed, no model is called)."""
    request = parse_compress_args(args)
    await session.prompt()
    head, tail, why = _split(session.messages, request, compression)
    if why:
        return CompressionPreview(
            len(session.messages),
            meter.estimate_uncached(session.messages),
            request.focus_topic,
            request.keep_exchanges,
            reason=why,
        )
    return await off_loop(
        compression.preview,
        head,
        tail,
        focus_topic=request.focus_topic,
        keep_exchanges=request.keep_exchanges,
        size=len(head) + len(tail),
    )


async def manual_compress(
    session: LiveSession, compression: CompressionOrchestrator, meter: ContextMeter, args: str
) -> str:
    """Run /compress on the live session (the caller checked no turn runs); returns the line to show."""
    request = parse_compress_args(args)
    if request.preview:
        return (await compression_preview(session, compression, meter, args)).text()
    messages = session.messages
    head, tail, why = _split(messages, request, compression)
    if why:
        if not compression.enabled:
            return "Compression is disabled (compression.enabled = false in config.toml)."
        return f"Nothing to compress yet: {why}."
    await session.ensure_row()
    await session.prompt()
    approx = meter.estimate(messages)
    result = await compression.compress(
        head, reason="manual", approx_tokens=approx, focus_topic=request.focus_topic, force=True, keep_tail=tail
    )
    if not result.applied:
        why = result.skipped or "the compressor found nothing to summarise"
        return f"Compression not applied: {why}. Nothing changed; the conversation stays in session {session.id}."
    after = meter.estimate()
    focus = f" (focus: {request.focus_topic})" if request.focus_topic else ""
    kept = f", last {request.keep_exchanges} exchange(s) kept verbatim" if request.keep_exchanges else ""
    return (
        f"🗜️ Compressed {len(messages)} → {len(session.messages)} messages, ~{approx:,} → ~{after:,} tokens"
        f"{focus}{kept}. "
        + (
            f"Compacted in place: still session {session.id}; the replaced messages are kept (and searchable)."
            if result.in_place
            else f"Now in session {session.id}."
        )
    )
