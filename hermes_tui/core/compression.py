"""The compression orchestrator: compress, then rotate into a child session (reference §5).

`compress_context` takes the compression lock on the old session, runs the compressor, and —
unless the compressor aborted or changed nothing — re-injects the active todo list, rebuilds the
system prompt (re-reading memory from disk), ends the old session with "compression", creates
the child (parent_session_id, lineage title "#N", the new prompt), resets the flush cursor so the
child receives the whole compressed list, records what happened in
`state_meta["compression:<child id>"]`, and emits the events the gauge, the lineage tree and
the review log update from, mid-turn.
"""

from __future__ import annotations

import json
import os
import threading
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hermes_tui.core import events as ev
from hermes_tui.core.context.tokens import estimate_messages_tokens_rough
from hermes_tui.core.sessions import start_child_session
from hermes_tui.store.ids import new_session_id

if TYPE_CHECKING:
    from hermes_tui.core.agent import Agent

COMPACTING_STATUS = "🗜️ Compacting context — summarizing earlier conversation so I can continue..."
TODO_HEADER = "[Your active task list was preserved across context compression]"


@dataclass
class CompressionOutcome:
    messages: list[dict[str, Any]]
    rotated: bool
    aborted: bool = False
    skipped: str = ""  # why nothing happened (lock held, nothing to compress …)
    tokens_before: int = 0
    tokens_after: int = 0
    dropped: int = 0


def _lock_holder(agent: Agent) -> str:
    return f"{os.getpid()}:{threading.get_ident()}:{agent.agent_id}:{uuid.uuid4().hex[:8]}"


async def _acquire_lock(agent: Agent, session_id: str, holder: str) -> bool:
    if agent.db is None:
        return True
    try:
        return await agent.db.acquire_compression_lock(session_id, holder)
    except Exception:
        return True  # a broken lock subsystem fails open


async def _release_lock(agent: Agent, session_id: str, holder: str) -> None:
    if agent.db is None:
        return
    try:
        await agent.db.release_compression_lock(session_id, holder)
    except Exception:
        pass


async def compress_context(
    agent: Agent,
    messages: list[dict[str, Any]],
    *,
    reason: str,
    approx_tokens: int | None = None,
    focus_topic: str | None = None,
    force: bool = False,
) -> CompressionOutcome:
    """Compress `messages` and rotate the agent into a child session. Never raises for the caller."""
    compressor = agent.compressor
    old_id = agent.session_id
    tokens_before = approx_tokens or agent.request_estimate(messages)
    agent.emit(ev.Status(COMPACTING_STATUS))
    agent.emit(ev.CompressionStarted(old_id, reason, tokens_before, len(messages)))

    holder = _lock_holder(agent)
    if not await _acquire_lock(agent, old_id, holder):
        agent.warn(
            "⚠ Skipping concurrent compression — another path is already compressing this session.",
            once_key=f"lock:{old_id}",
        )
        _finish_event(agent, messages, messages, tokens_before, tokens_before, aborted=True)
        return CompressionOutcome(messages, rotated=False, skipped="locked")

    try:
        agent.memory_hooks.on_pre_compress(messages)
        try:
            compressed = await compressor.compress(
                messages, current_tokens=approx_tokens, focus_topic=focus_topic, force=force
            )
        except Exception as exc:
            agent.warn(f"⚠ Compression failed: {exc}. No messages were dropped.")
            _finish_event(agent, messages, messages, tokens_before, tokens_before, aborted=True, error=str(exc))
            return CompressionOutcome(messages, rotated=False, aborted=True, skipped=str(exc))

        if compressor.last_compress_aborted:
            err = compressor.last_summary_error or "summary unavailable"
            agent.warn(
                f"⚠ Compression aborted: {err}. No messages were dropped — conversation continues "
                "unchanged. Run /compress to retry, or /new to start a fresh session.",
                once_key=f"abort:{err}",
            )
            _finish_event(agent, messages, messages, tokens_before, tokens_before, aborted=True, error=err)
            return CompressionOutcome(messages, rotated=False, aborted=True, skipped="aborted")
        if compressed is messages or compressed == messages:
            agent.review("compression", "Nothing to compress — the conversation is too short")
            _finish_event(agent, messages, messages, tokens_before, tokens_before, aborted=True)
            return CompressionOutcome(messages, rotated=False, skipped="nothing to compress")

        if compressor.last_summary_error:
            agent.warn(
                f"⚠ Compression summary failed: {compressor.last_summary_error}. Inserted a fallback context marker.",
                once_key=f"summary:{compressor.last_summary_error}",
            )

        compressed = list(compressed)
        todo_text = agent.todo.format_for_reinjection()
        if todo_text:
            compressed.append({"role": "user", "content": todo_text})

        new_prompt = agent.rebuild_system_prompt()  # re-reads memory from disk (§5 step 9)
        agent.memory_hooks.on_session_end(messages)
        new_id = await _rotate(agent, old_id, new_prompt)
        tokens_after = agent.request_estimate(compressed)
        compressor.note_compression_bookkeeping(tokens_after)
        # Messages folded into the summary: the compressor reports it on the fallback path; otherwise
        # the head and tail survive verbatim and everything between became one summary message.
        dropped = int(compressor.last_summary_dropped_count or 0) or max(0, len(messages) - len(compressed) + 1)
        await _record_meta(
            agent, new_id, old_id, messages, compressed, tokens_before, tokens_after, dropped, focus_topic, reason
        )
        if compressor.compression_count >= 2:
            agent.warn(
                f"⚠️ Session compressed {compressor.compression_count} times — accuracy may degrade. "
                "Consider /new to start fresh.",
                once_key=f"count:{compressor.compression_count}",
            )
        if compressor.ineffective_compression_count >= 2:
            agent.warn(
                "Automatic compression paused: the last two compressions saved less than 10 %. "
                "Use /new to start fresh or /compress <topic> to focus the summary.",
                once_key=f"thrash:{new_id}",
            )
        _finish_event(
            agent, messages, compressed, tokens_before, tokens_after, dropped=dropped, focus=focus_topic or ""
        )
        agent.emit_budget(compressed)
        return CompressionOutcome(
            compressed, rotated=True, tokens_before=tokens_before, tokens_after=tokens_after, dropped=dropped
        )
    finally:
        await _release_lock(agent, old_id, holder)


def _finish_event(
    agent: Agent,
    before: list[dict[str, Any]],
    after: list[dict[str, Any]],
    tokens_before: int,
    tokens_after: int,
    *,
    dropped: int = 0,
    aborted: bool = False,
    error: str = "",
    focus: str = "",
) -> None:
    compressor = agent.compressor
    agent.emit(
        ev.CompressionFinished(
            before=len(before),
            after=len(after),
            dropped=dropped,
            fallback_used=bool(getattr(compressor, "last_summary_fallback_used", False)) and not aborted,
            tokens_before=tokens_before,
            tokens_after=tokens_after,
            aborted=aborted,
            summary_error=error or (compressor.last_summary_error or ""),
            focus_topic=focus,
        )
    )
    if not aborted:
        saved = tokens_before - tokens_after
        pct = int(saved * 100 / tokens_before) if tokens_before else 0
        fallback = (
            " (fallback summary — the summary model was unavailable)"
            if (getattr(compressor, "last_summary_fallback_used", False))
            else ""
        )
        focus_note = f", focus “{focus}”" if focus else ""
        agent.review(
            "compression",
            f"Compressed {len(before)} → {len(after)} messages, ~{tokens_before:,} → ~{tokens_after:,} "
            f"tokens ({pct}% saved, {dropped} summarised{focus_note}){fallback}",
        )


async def _rotate(agent: Agent, old_id: str, system_prompt: str) -> str:
    """End the old session with "compression" and start its child (reference §3 rotation table)."""
    db = agent.db
    title: str | None = None
    new_id = ""
    if db is not None:
        try:
            old = await db.get_session(old_id) or {}
            if old.get("title"):
                title = await db.get_next_title_in_lineage(old["title"])
            new_id = await start_child_session(
                agent, old_id, old, end_reason="compression", title=title, system_prompt=system_prompt
            )
        except Exception as exc:
            agent.warn(f"Session split failed ({exc}); the new session will be created with its first write")
    agent.mark_session_created(bool(new_id))  # else ensure_session_row creates it lazily, parent included
    agent.session_id = new_id or new_session_id()
    agent.parent_session_id = old_id
    agent.cursor.reset(0)
    new_id = agent.session_id
    agent.memory_hooks.on_session_switch(new_id, parent_session_id=old_id, reason="compression")
    agent.emit(ev.SessionRotated(old_id, new_id, "compression", title))
    agent.review("rotation", f"Session rotated {old_id} → {new_id}" + (f" “{title}”" if title else ""))
    return new_id


async def _record_meta(
    agent: Agent,
    new_id: str,
    old_id: str,
    before: list[dict[str, Any]],
    after: list[dict[str, Any]],
    tokens_before: int,
    tokens_after: int,
    dropped: int,
    focus_topic: str | None,
    reason: str,
) -> None:
    if agent.db is None:
        return
    compressor = agent.compressor
    record = {
        "parent_session_id": old_id,
        "reason": reason,
        "messages_before": len(before),
        "messages_after": len(after),
        "tokens_before": tokens_before,
        "tokens_after": tokens_after,
        "rough_tokens_before": estimate_messages_tokens_rough(before),
        "rough_tokens_after": estimate_messages_tokens_rough(after),
        "dropped_count": dropped,
        "focus_topic": focus_topic,
        "fallback_used": bool(getattr(compressor, "last_summary_fallback_used", False)),
        "summary_error": compressor.last_summary_error,
        "compression_count": compressor.compression_count,
        "at": agent.now(),
    }
    try:
        await agent.db.set_meta(f"compression:{new_id}", json.dumps(record))
    except Exception as exc:
        agent.warn(f"could not record compression details: {exc}")
