"""The compression orchestrator: compress, then continue in a child session (reference §5) — or,
in Hermes's in-place mode (`compression.in_place`), in the same session.

`CompressionOrchestrator.compress` takes the compression lock on the live session (held by this
process, `store.locks`; released on every way out, a Ctrl-C included — the release is shielded, so
even a second Ctrl-C waits for it — and a cancelled compression says "compression cancelled"), runs the
compressor, and — unless the compressor aborted or changed nothing, or the result would not be
smaller than the context it replaces (the no-op rule, `compression_check`: checked before the
summary call with the shortest possible summary and after it with the real one; nothing rotates
and the caller is told why) — re-injects the active todo
list, rebuilds the system prompt (re-reading memory from disk), and asks the live session to start
its child (`LiveSession.start_child`: the old session ends "compression", the child gets the
parent id, the lineage title "#N", the new prompt and the compressed list). It records what
happened in `state_meta["compression:<child id>"]` and emits the events the gauge and the Review
log update from, mid-turn. It returns a `CompressionResult`; it never raises for the caller (a
cancellation propagates, once the lock is released).

In place (Hermes's default since 2026-06; ours stays rotation, which the lineage tree is built
on) there is no child: `LiveSession.compact_in_place` marks every stored live row `active = 0,
compacted = 1` and stores the compacted list as the new live rows, in one transaction, exactly
as Hermes's `archive_and_compact` does; no end reason, no parent link, no "#N". The record goes to
`state_meta["compaction:<session id>"]` (the latest in-place compaction of that session, with how
many there were), and `CompressionFinished(in_place=True)` tells the UI.

A summary-model failure cooldown is kept on the session row (schema v21's
`compression_failure_cooldown_until` / `_error`, as Hermes keeps it) by `CooldownKeeper`
(`core/context/cooldown_store.py`), so a resumed session does not hammer a failing summary model.

It is also the turn's window onto the compressor: the trigger predicates the turn runner asks
(`should_compress`, `should_defer_preflight`, `in_loop_tokens`) and the window-lowering an
overflow error asks for.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hermes_tui.core import events as ev
from hermes_tui.core.context.compressor import CompressOutcome, ContextCompressor
from hermes_tui.core.context.offload import off_loop
from hermes_tui.core.context.pins import is_pinned
from hermes_tui.core.context.redact_records import redact_json_text
from hermes_tui.core.context.tokens import estimate_messages_tokens_rough
from hermes_tui.core.emitter import Emitter
from hermes_tui.core.memory import MemoryHooks
from hermes_tui.core.messages import Message
from hermes_tui.core.session.compression_check import (
    CompressionPreview,
    join_tail,
    no_gain,
    no_gain_reason,
    preview_compression,
)
from hermes_tui.core.session.live import LiveSession, last_stored_id
from hermes_tui.core.session.meter import ContextMeter
from hermes_tui.core.session.pins import save_pins
from hermes_tui.store.codec import json_object
from hermes_tui.store.models import EDGE_COMPRESSION

if TYPE_CHECKING:
    from hermes_tui.store.db import SessionDB

COMPACTING_STATUS = "🗜️ Compacting context — summarizing earlier conversation so I can continue..."
IN_PLACE_RECORD_PREFIX = "compaction:"


@dataclass(frozen=True)
class CompressionResult:
    """What one compression did. `rotated` is True when the session moved to a child."""

    messages: list[Message]
    rotated: bool
    aborted: bool = False
    skipped: str = ""  # why nothing happened (lock held, nothing to compress …)
    tokens_before: int = 0
    tokens_after: int = 0
    messages_before: int = 0
    dropped: int = 0
    fallback_used: bool = False
    error: str = ""
    session_id: str = ""  # the session the conversation continues in
    in_place: bool = False  # compacted in place: same session, no rotation

    @property
    def applied(self) -> bool:
        """The conversation now continues with the compressed list (in a child, or in place)."""
        return self.rotated or self.in_place


class CompressionOrchestrator:
    """Runs compressions of the live session and moves it into the child session."""

    def __init__(
        self,
        *,
        compressor: ContextCompressor,
        session: LiveSession,
        meter: ContextMeter,
        emitter: Emitter,
        memory_hooks: MemoryHooks,
        enabled: bool,
        in_place: bool = False,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._compressor = compressor
        self._session = session
        self._meter = meter
        self._events = emitter
        self._hooks = memory_hooks
        self._clock = clock
        self._monotonic = monotonic  # the compressor's clock (its cooldown is on it)
        self.enabled = enabled
        self.in_place = in_place

    # ------------------------------------------------------------------ triggers (read by the turn)

    @property
    def protect_first_n(self) -> int:
        return self._compressor.protect_first_n

    def should_compress(self, tokens: int) -> bool:
        return self._compressor.should_compress(tokens)

    def should_defer_preflight(self, rough: int) -> bool:
        return self._compressor.should_defer_preflight_to_real_usage(rough)

    def in_loop_tokens(self, rough: int) -> int:
        return self._compressor.tokens_for_in_loop_check(rough)

    def has_content_to_compress(self, messages: list[Message]) -> bool:
        return self._compressor.has_content_to_compress(messages)

    # ------------------------------------------------------------------ compress

    @property
    def _db(self) -> SessionDB | None:
        return self._session.db

    async def _acquire_lock(self, session_id: str) -> bool:
        """The lock on `session_id`, held by this process (store.locks); True also without a DB."""
        if self._db is None:
            return True
        try:
            return await self._db.acquire_compression_lock(session_id)
        except Exception:
            return True  # a broken lock subsystem fails open

    async def _release_lock(self, session_id: str) -> None:
        """Release the lock whatever happens meanwhile: a Ctrl-C (even a second one) waits for the DELETE."""
        if self._db is None:
            return
        release = asyncio.ensure_future(self._release_quietly(self._db, session_id))
        cancelled = False
        while not release.done():
            try:
                await asyncio.shield(release)
            except asyncio.CancelledError:
                cancelled = True
        if cancelled:
            raise asyncio.CancelledError

    @staticmethod
    async def _release_quietly(db: SessionDB, session_id: str) -> None:
        try:
            await db.release_compression_lock(session_id)
        except Exception:
            pass  # a broken lock subsystem: the row expires with its TTL, or our next acquire takes it over

    async def compress(
        self,
        messages: list[Message],
        *,
        reason: str,
        approx_tokens: int | None = None,
        focus_topic: str | None = None,
        force: bool = False,
        keep_tail: list[Message] | None = None,
    ) -> CompressionResult:
        """Compress `messages` and continue in a child session; `keep_tail` is re-joined verbatim after."""
        old_id = self._session.id
        tail = keep_tail or []
        tokens_before = approx_tokens or self._meter.estimate(messages)
        # the no-op check plans the compression: in a worker for a long history (as the compression itself)
        check = await off_loop(self.preview, messages, tail, focus_topic=focus_topic, size=len(messages) + len(tail))
        if check.summarised_count and not check.would_compress:  # (no middle at all: the compressor says so)
            return self._not_applied(messages, tail, check.reason, reason, tokens_before, old_id)
        self._events.status(COMPACTING_STATUS)
        self._events.emit(ev.CompressionStarted(old_id, reason, tokens_before, len(messages)))

        def unchanged(skipped: str, *, aborted: bool, error: str = "") -> CompressionResult:
            self._finished(len(messages), len(messages), tokens_before, tokens_before, aborted=True, error=error)
            return _unchanged_result(messages, tail, tokens_before, old_id, skipped, aborted=aborted, error=error)

        locked_by_another = False
        rotating = False
        try:  # (from the acquisition on: a Ctrl-C just after the lock row was committed releases it too)
            if not await self._acquire_lock(old_id):
                locked_by_another = True
                self._events.warn(
                    "⚠ Skipping concurrent compression — another path is already compressing this session.",
                    once_key=f"lock:{old_id}",
                )
                return unchanged("locked", aborted=False)
            notes = self._hooks.on_pre_compress(messages)
            previous_summary = self._compressor.previous_summary
            try:
                outcome = await self._compressor.run(
                    messages, current_tokens=approx_tokens, focus_topic=focus_topic, force=force, memory_notes=notes
                )
            except Exception as exc:
                self._events.warn(f"⚠ Compression failed: {exc}. No messages were dropped.")
                return unchanged(str(exc), aborted=True, error=str(exc))

            if outcome.aborted:
                err = outcome.error or "summary unavailable"
                self._events.warn(
                    f"⚠ Compression aborted: {err}. No messages were dropped — conversation continues "
                    "unchanged. Run /compress to retry, or /new to start a fresh session.",
                    once_key=f"abort:{err}",
                )
                return unchanged("aborted", aborted=True, error=err)
            if not outcome.changed:
                self._events.review("compression", "Nothing to compress — the conversation is too short")
                return unchanged("nothing to compress", aborted=False)
            result_list = self._result_list(outcome, tail)
            before, after = await off_loop(
                lambda: (self._meter.estimate_uncached([*messages, *tail]), self._meter.estimate_uncached(result_list)),
                size=len(messages) + len(tail),
            )
            if no_gain(before, after):
                self._compressor.discard_last_compression(previous_summary)
                why = no_gain_reason(before, after, estimated=False)
                self._say_not_applied(why, reason)
                return unchanged(why, aborted=False)
            rotating = True
            if self.in_place:
                return await self._compact_in_place(messages, tail, outcome, reason, tokens_before, focus_topic)
            return await self._rotate(messages, tail, outcome, reason, tokens_before, focus_topic)
        except asyncio.CancelledError:
            self._cancelled(len(messages), tokens_before, after_rotation=rotating)
            raise
        finally:
            if not locked_by_another:
                await self._release_lock(old_id)

    async def _rotate(
        self,
        messages: list[Message],
        tail: list[Message],
        outcome: CompressOutcome,
        reason: str,
        tokens_before: int,
        focus_topic: str | None,
    ) -> CompressionResult:
        if outcome.error:
            self._events.warn(
                f"⚠ Compression summary failed: {outcome.error}. Inserted a fallback context marker.",
                once_key=f"summary:{outcome.error}",
            )
        compressed = self._result_list(outcome, tail)

        old_id = self._session.id
        title = await self._child_title(old_id)
        self._hooks.on_session_end(messages)
        new_id = await self._session.start_child(
            edge=EDGE_COMPRESSION,
            branch_point=last_stored_id(messages),
            end_reason="compression",
            reason="compression",
            title=title,
            system_prompt=self._session.rebuild_prompt(),  # re-reads memory from disk (§5 step 9)
            messages=compressed,
            announce_history=False,
        )
        self._hooks.on_session_switch(new_id, parent_session_id=old_id, reason="compression")
        await self._carry_pins(new_id)
        self._events.review("rotation", f"Session rotated {old_id} → {new_id}" + (f" “{title}”" if title else ""))

        tokens_after = self._meter.estimate(self._session.messages)
        self._compressor.note_compression_bookkeeping(tokens_after)
        result = CompressionResult(
            self._session.messages,
            rotated=True,
            tokens_before=tokens_before,
            tokens_after=tokens_after,
            messages_before=len(messages) + len(tail),
            dropped=outcome.summarised_count,
            fallback_used=outcome.fallback_used,
            error=outcome.error or "",
            session_id=new_id,
        )
        pinned = [messages[i].get("_db_id") for i in outcome.pinned_kept]
        await self._record(result, old_id, messages, reason, focus_topic, pinned)
        count = self._compressor.compression_count
        if count >= 2:
            self._events.warn(
                f"⚠️ Session compressed {count} times — accuracy may degrade. Consider /new to start fresh.",
                once_key=f"count:{count}",
            )
        self._warn_if_paused(new_id)
        self._finished(
            result.messages_before,
            len(result.messages),
            tokens_before,
            tokens_after,
            dropped=result.dropped,
            fallback_used=result.fallback_used,
            error=result.error,
            focus=focus_topic or "",
        )
        self._meter.publish()
        return result

    async def _carry_pins(self, session_id: str) -> None:
        """The pinned messages stay pinned in the child (core/session/pins.py)."""
        try:
            await save_pins(self._db, session_id, self._session.messages)
        except Exception as exc:
            self._events.warn(f"could not save the pinned messages: {exc}")
        indices = tuple(i for i, m in enumerate(self._session.messages) if is_pinned(m))
        if indices:
            self._events.emit(ev.PinsChanged(session_id, indices))

    async def _compact_in_place(
        self,
        messages: list[Message],
        tail: list[Message],
        outcome: CompressOutcome,
        reason: str,
        tokens_before: int,
        focus_topic: str | None,
    ) -> CompressionResult:
        """Hermes's in-place compaction: the same session id, the replaced rows kept as compacted."""
        if outcome.error:
            self._events.warn(
                f"⚠ Compression summary failed: {outcome.error}. Inserted a fallback context marker.",
                once_key=f"summary:{outcome.error}",
            )
        compressed = self._result_list(outcome, tail)
        session_id = self._session.id
        self._hooks.on_session_end(messages)  # the turns about to be summarised away (as Hermes, in both modes)
        await self._session.compact_in_place(compressed, system_prompt=self._session.rebuild_prompt())
        await self._carry_pins(session_id)  # the kept messages have new rows now
        self._hooks.on_session_switch(session_id, parent_session_id=session_id, reason="compression")
        tokens_after = self._meter.estimate(self._session.messages)
        self._compressor.note_compression_bookkeeping(tokens_after)
        result = CompressionResult(
            self._session.messages,
            rotated=False,
            in_place=True,
            tokens_before=tokens_before,
            tokens_after=tokens_after,
            messages_before=len(messages) + len(tail),
            dropped=outcome.summarised_count,
            fallback_used=outcome.fallback_used,
            error=outcome.error or "",
            session_id=session_id,
        )
        await self._record(result, session_id, messages, reason, focus_topic)
        count = self._compressor.compression_count
        if count >= 2:
            self._events.warn(
                f"⚠️ Session compressed {count} times — accuracy may degrade. Consider /new to start fresh.",
                once_key=f"count:{count}",
            )
        self._warn_if_paused(session_id)
        self._finished(
            result.messages_before,
            len(result.messages),
            tokens_before,
            tokens_after,
            dropped=result.dropped,
            fallback_used=result.fallback_used,
            error=result.error,
            focus=focus_topic or "",
            in_place=True,
            session_id=session_id,
        )
        self._meter.publish()
        return result

    def _cancelled(self, before: int, tokens_before: int, *, after_rotation: bool) -> None:
        """A Ctrl-C (or a stop signal) ended the compression: say so; the lock is released next."""
        self._events.emit(ev.CompressionFinished(before, before, 0, False, tokens_before, tokens_before, aborted=True))
        if after_rotation:
            self._events.warn("⚠ Compression cancelled while the conversation moved to its new session.")
        else:
            self._events.warn("⚠ Compression cancelled — no messages were dropped; the conversation stays here.")

    def _todo_messages(self) -> list[Message]:
        todo_text = self._session.todo.format_for_reinjection()
        return [{"role": "user", "content": todo_text}] if todo_text else []

    def _result_list(self, outcome: CompressOutcome, tail: list[Message]) -> list[Message]:
        """The list the child starts with: the compressed messages, the todo re-injection, the kept tail."""
        return join_tail([*outcome.messages, *self._todo_messages()], tail)

    def preview(
        self,
        messages: list[Message],
        keep_tail: list[Message] | None = None,
        *,
        focus_topic: str | None = None,
        keep_exchanges: int | None = None,
    ) -> CompressionPreview:
        """What compressing `messages` (+ `keep_tail` kept verbatim) would do, without doing it."""
        return preview_compression(
            self._compressor,
            messages,
            keep_tail or [],
            estimate=self._meter.estimate_uncached,
            extra=self._todo_messages(),
            focus_topic=focus_topic,
            keep_exchanges=keep_exchanges,
        )

    def _warn_if_paused(self, session_id: str) -> None:
        if self._compressor.ineffective_compression_count >= 2:
            self._events.warn(
                "Automatic compression paused: the last two compressions saved less than 10 %. "
                "Use /new to start fresh or /compress <topic> to focus the summary.",
                once_key=f"thrash:{session_id}",
            )

    def _say_not_applied(self, why: str, reason: str) -> None:
        self._events.review("compression", f"Compression not applied: {why}")
        if reason != "manual":
            self._events.warn(
                f"Compression not applied: {why}; the conversation continues in this session.",
                once_key=f"no-gain:{self._session.id}",
            )
        self._warn_if_paused(self._session.id)

    def _not_applied(
        self, messages: list[Message], tail: list[Message], why: str, reason: str, tokens_before: int, session_id: str
    ) -> CompressionResult:
        """Nothing was tried: even the shortest summary would not make the context smaller."""
        if reason != "manual":
            self._compressor.note_ineffective_attempt()  # the automatic trigger pauses after two
        self._say_not_applied(why, reason)
        return _unchanged_result(messages, tail, tokens_before, session_id, why)

    async def _child_title(self, old_id: str) -> str | None:
        """The lineage title for the continuation ("auth refactor #2"), when the parent has a title."""
        db = self._db
        if db is None or not self._session.title:
            return None
        try:
            return await db.get_next_title_in_lineage(self._session.title)
        except Exception:
            return None

    def _finished(
        self,
        before: int,
        after: int,
        tokens_before: int,
        tokens_after: int,
        *,
        dropped: int = 0,
        aborted: bool = False,
        fallback_used: bool = False,
        error: str = "",
        focus: str = "",
        in_place: bool = False,
        session_id: str = "",
    ) -> None:
        self._events.emit(
            ev.CompressionFinished(
                before=before,
                after=after,
                dropped=dropped,
                fallback_used=fallback_used,
                tokens_before=tokens_before,
                tokens_after=tokens_after,
                aborted=aborted,
                summary_error=error,
                focus_topic=focus,
                in_place=in_place,
                session_id=session_id or self._session.id,
            )
        )
        if aborted:
            return
        saved = tokens_before - tokens_after
        pct = int(saved * 100 / tokens_before) if tokens_before else 0
        fallback = " (fallback summary — the summary model was unavailable)" if fallback_used else ""
        focus_note = f", focus “{focus}”" if focus else ""
        how = "Compacted in place" if in_place else "Compressed"
        self._events.review(
            "compression",
            f"{how} {before} → {after} messages, ~{tokens_before:,} → ~{tokens_after:,} "
            f"tokens ({pct}% saved, {dropped} summarised{focus_note}){fallback}",
        )

    async def _record(
        self,
        result: CompressionResult,
        old_id: str,
        before: list[Message],
        reason: str,
        focus_topic: str | None,
        pinned: list[object] | None = None,
    ) -> None:
        """What the compression did, for the inspector: `state_meta["compression:<child id>"]` (with
        `pinned_ids`: the parent's rows of the pinned middle messages kept verbatim), or for an in-place
        compaction `state_meta["compaction:<session id>"]` (the latest, with their count)."""
        if self._db is None:
            return
        rough_before, rough_after = await off_loop(  # measuring the long "before" list takes a while
            lambda: (estimate_messages_tokens_rough(before), estimate_messages_tokens_rough(result.messages)),
            size=len(before),
        )
        record = {
            "parent_session_id": old_id,
            "reason": reason,
            "messages_before": result.messages_before,
            "messages_after": len(result.messages),
            "tokens_before": result.tokens_before,
            "tokens_after": result.tokens_after,
            "rough_tokens_before": rough_before,
            "rough_tokens_after": rough_after,
            "dropped_count": result.dropped,
            "focus_topic": focus_topic,
            "fallback_used": result.fallback_used,
            "summary_error": result.error or None,
            "compression_count": self._compressor.compression_count,
            "pinned_ids": [row for row in pinned or [] if isinstance(row, int)],
            "at": self._clock(),
        }
        key = f"compression:{result.session_id}"
        if result.in_place:
            key = f"{IN_PLACE_RECORD_PREFIX}{result.session_id}"
            previous = json_object(await self._db.get_meta(key)) or {}
            count = previous.get("in_place_count")
            record["in_place"] = True
            record["in_place_count"] = (count if isinstance(count, int) and not isinstance(count, bool) else 0) + 1
        try:
            await self._db.set_meta(key, redact_json_text(json.dumps(record)))
        except Exception as exc:
            self._events.warn(f"could not record compression details: {exc}")


def _unchanged_result(
    messages: list[Message],
    tail: list[Message],
    tokens: int,
    session_id: str,
    skipped: str,
    *,
    aborted: bool = False,
    error: str = "",
) -> CompressionResult:
    """The conversation as it was (`tail` re-joined), with why nothing changed."""
    return CompressionResult(
        [*messages, *tail] if tail else messages,
        rotated=False,
        aborted=aborted,
        skipped=skipped,
        tokens_before=tokens,
        tokens_after=tokens,
        messages_before=len(messages) + len(tail),
        error=error,
        session_id=session_id,
    )
