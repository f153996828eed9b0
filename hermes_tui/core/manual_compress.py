"""Manual compression: `/compress [focus topic]` and `/compress here [N]` (reference §5, last part).

Bypasses the threshold and the anti-thrash guard (force=True). The partial form keeps the last
N exchanges verbatim (default 2, max 100): only the part before the Nth-last user message is
compressed, then the tail is re-joined with a role-alternation guard. The compressed history is
flushed from offset 0 into the child session. A no-op says why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hermes_tui.core.compression import compress_context
from hermes_tui.core.messages import content_text

if TYPE_CHECKING:
    from hermes_tui.core.agent import Agent

DEFAULT_KEEP = 2
MAX_KEEP = 100
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


def _join_tail(head: list[dict[str, Any]], tail: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Append the verbatim tail so no two adjacent messages share the user role."""
    if head and tail and head[-1].get("role") == "user" and tail[0].get("role") == "user":
        merged = dict(head[-1])
        merged["content"] = content_text(head[-1].get("content")) + "\n\n" + content_text(tail[0].get("content"))
        return [*head[:-1], merged, *tail[1:]]
    return [*head, *tail]


async def manual_compress(agent: Agent, args: str) -> str:
    """Run /compress; returns the line to show the user."""
    if agent.turn_active:
        return "A turn is running — press Ctrl-C to interrupt it first."
    if not agent.settings.compression.enabled:
        return "Compression is disabled (compression.enabled = false in config.toml)."
    messages = agent.messages
    if len(messages) < 4:
        return f"Nothing to compress yet: the conversation has {len(messages)} message(s); at least 4 are needed."
    request = parse_compress_args(args)
    await agent.ensure_session_row()
    await agent.system_prompt(history_nonempty=True)
    approx = agent.request_estimate(messages)

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
        if len(head) < 4:
            return f"Nothing to compress: only {len(head)} message(s) come before the kept exchanges."

    if not agent.compressor.has_content_to_compress(head):
        return (
            f"Nothing to compress yet: {len(head)} message(s) fit in the protected head and tail "
            f"(the first {agent.settings.compression.protect_first_n} and the last 3 are always kept verbatim)."
        )
    outcome = await compress_context(
        agent, head, reason="manual", approx_tokens=approx, focus_topic=request.focus_topic, force=True
    )
    if not outcome.rotated:
        why = outcome.skipped or "the compressor found nothing to summarise"
        return f"Compression did not change anything: {why}."
    agent.messages = _join_tail(outcome.messages, tail)
    await agent.flush(agent.messages, None)
    after = agent.request_estimate(agent.messages)
    agent.emit_budget()
    focus = f" (focus: {request.focus_topic})" if request.focus_topic else ""
    kept = f", last {request.keep_exchanges} exchange(s) kept verbatim" if request.keep_exchanges else ""
    return (
        f"🗜️ Compressed {len(messages)} → {len(agent.messages)} messages, ~{approx:,} → ~{after:,} tokens"
        f"{focus}{kept}. Now in session {agent.session_id}."
    )
