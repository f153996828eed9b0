"""What one compression did, read back from state.db for the compression inspector.

A compression ends the parent session and starts a child with the compressed history (reference
§5); the parent keeps every message it had. `inspect_compression(db, child_id)` puts together:
the record the orchestrator wrote (`state_meta["compression:<child id>"]`: reason, focus topic,
tokens before and after, how many messages were summarised, whether the fallback summary was
used), the summary itself (the child's handoff message), and the parent messages it replaced —
those after the verbatim head both histories start with, `dropped_count` of them (or, for a
compression without a record, e.g. one Hermes made, everything up to the verbatim tail).
`compression_at_or_above(db, session_id)` finds the compression a session's summary comes from
(itself or its nearest ancestor that is a compression continuation). `reinjection_note` is the
quoted user note that brings a summarised message back into the current context.

An in-place compaction (Hermes's mode: one session id, the replaced rows kept with `compacted = 1`)
is inspected on the session itself: `summarised` are its compacted rows (what every in-place
compaction of it replaced, in order), the summary is the live rows' handoff message, and the
figures come from `state_meta["compaction:<session id>"]` when we made it (estimated otherwise).
A session compacted in place is its own answer to `compression_at_or_above`.

Messages pinned in the middle (`pinned_ids` in the record: the parent's rows,
core/session/pins.py) were kept verbatim: they are `CompressionDetails.pinned`, not among the
summarised ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hermes_tui.core.branch_compare import common_prefix, message_signature
from hermes_tui.core.context.markers import split_summary_message
from hermes_tui.core.context.tokens import estimate_messages_tokens_rough
from hermes_tui.core.messages import Message, content_text
from hermes_tui.store.codec import json_object
from hermes_tui.store.models import is_summary_text

IN_PLACE_RECORD_PREFIX = "compaction:"  # the orchestrator's record of a session's latest in-place compaction

if TYPE_CHECKING:
    from hermes_tui.store.db import SessionDB

RECORD_PREFIX = "compression:"
QUOTE_LIMIT = 12_000


class InspectError(Exception):
    """Nothing to inspect (no such session, no compression); one clear line."""


@dataclass(frozen=True)
class SummarisedMessage:
    index: int  # position in the parent's history
    role: str
    text: str
    message_id: int | None
    tool_calls: int


@dataclass(frozen=True)
class CompressionDetails:
    child_id: str
    parent_id: str
    child_title: str | None
    parent_title: str | None
    recorded: bool  # False: no record (a compression Hermes made); figures are estimated
    reason: str | None
    focus_topic: str | None
    tokens_before: int
    tokens_after: int
    messages_before: int
    messages_after: int
    fallback_used: bool | None  # None: unknown (no record)
    summary_error: str | None
    at: float | None
    summary: str  # the handoff summary's body ("" when the child has none)
    summarised: tuple[SummarisedMessage, ...]
    pinned: tuple[SummarisedMessage, ...] = ()  # middle messages kept verbatim because they were pinned
    in_place: bool = False  # compacted in place: child_id == parent_id, `summarised` are its compacted rows
    compactions: int = 0  # how many in-place compactions the session had

    @property
    def saved_percent(self) -> int:
        if not self.tokens_before:
            return 0
        return int((self.tokens_before - self.tokens_after) * 100 / self.tokens_before)


def read_record(raw: str | None) -> dict[str, Any] | None:
    """The stored record as a dict, or None when missing or damaged."""
    return json_object(raw)


def summarised_span(
    parent: list[Message], child: list[Message], dropped: int | None, pinned: frozenset[int] = frozenset()
) -> tuple[int, int]:
    """[start, end) of the parent messages the child's summary replaced (pinned ones in it kept).

    The head both histories start with is verbatim; the summary takes the next `dropped`
    messages that are not pinned (`pinned`: their row ids). Without a count, everything up to the
    tail both histories end with (the first tail message may carry the summary in front of its own text).
    """
    start = common_prefix(parent, child)
    if dropped is not None and dropped >= 0:
        end, taken = start, 0
        while end < len(parent) and taken < dropped:
            taken += parent[end].get("_db_id") not in pinned
            end += 1
        return start, end
    tail = 0
    while tail < len(parent) - start and tail < len(child) - start:
        kept, copy = parent[-1 - tail], child[-1 - tail]
        if message_signature(kept) != message_signature(copy) and not _merged_into(copy, kept):
            break
        tail += 1
    return start, len(parent) - tail


def _merged_into(copy: Message, kept: Message) -> bool:
    """Is `copy` the kept message with the summary prepended (the role rule can merge the two)?"""
    text = content_text(copy.get("content"))
    if copy.get("role") != kept.get("role") or not is_summary_text(text):
        return False
    return split_summary_message(text)[1] == content_text(kept.get("content")).strip()


def summary_body(child: list[Message]) -> str:
    """The summary text of the child's handoff message ("" when there is none)."""
    for message in child:
        text = content_text(message.get("content"))
        if is_summary_text(text):
            return split_summary_message(text)[0]
    return ""


def _int(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


async def _history(db: SessionDB, session_id: str) -> list[Message]:
    return [m for m in await db.get_messages_as_conversation(session_id) if m.get("role") != "session_meta"]


def _float_or_none(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


async def _inspect_in_place(db: SessionDB, session_id: str, row: dict[str, Any]) -> CompressionDetails:
    """What the in-place compactions of `session_id` replaced, and the summary the live rows start with."""
    record = read_record(await db.get_meta(IN_PLACE_RECORD_PREFIX + session_id))
    rows = await db.get_record_messages(session_id)
    compacted = [(index, r) for index, r in enumerate(rows) if r.get("compacted")]
    live: list[Message] = [r for r in rows if not r.get("compacted")]
    summarised = tuple(
        SummarisedMessage(
            index, str(r.get("role") or ""), content_text(r.get("content")), r.get("id"), len(r.get("tool_calls") or [])
        )
        for index, r in compacted
    )
    before = estimate_messages_tokens_rough([r for _, r in compacted])
    after = estimate_messages_tokens_rough(live)
    return CompressionDetails(
        child_id=session_id,
        parent_id=session_id,
        child_title=row.get("title"),
        parent_title=row.get("title"),
        recorded=record is not None,
        reason=str(record.get("reason")) if record and record.get("reason") else None,
        focus_topic=str(record.get("focus_topic")) if record and record.get("focus_topic") else None,
        tokens_before=_int(record.get("tokens_before"), before) if record else before,
        tokens_after=_int(record.get("tokens_after"), after) if record else after,
        messages_before=_int(record.get("messages_before"), len(compacted)) if record else len(compacted),
        messages_after=_int(record.get("messages_after"), len(live)) if record else len(live),
        fallback_used=bool(record.get("fallback_used")) if record else None,
        summary_error=str(record.get("summary_error")) if record and record.get("summary_error") else None,
        at=_float_or_none(record.get("at")) if record else None,
        summary=summary_body(live),
        summarised=summarised,
        in_place=True,
        compactions=await db.compaction_count(session_id),
    )


async def inspect_compression(db: SessionDB, child_id: str) -> CompressionDetails:
    """The details of the compression that started `child_id` — or, for a session compacted in
    place, of its in-place compactions. Raises InspectError."""
    child_row = await db.get_session(child_id)
    if child_row is None:
        raise InspectError(f"no session {child_id}")
    if await db.count_compacted(child_id):
        return await _inspect_in_place(db, child_id, child_row)
    parent_id = child_row.get("parent_session_id")
    record = read_record(await db.get_meta(RECORD_PREFIX + child_id))
    if not parent_id:
        raise InspectError(f"session {child_id} has no parent: it was not made by a compression")
    parent_row = await db.get_session(parent_id) or {}
    if record is None and parent_row.get("end_reason") != "compression":
        raise InspectError(f"session {child_id} was not made by a compression")
    parent = await _history(db, parent_id)
    child = await _history(db, child_id)
    dropped = _int(record.get("dropped_count"), -1) if record else -1
    raw_pins = record.get("pinned_ids") if record else None
    pins = frozenset(row for row in raw_pins if isinstance(row, int)) if isinstance(raw_pins, list) else frozenset()
    start, end = summarised_span(parent, child, dropped if dropped >= 0 else None, pins)
    summarised = tuple(
        _described(parent, index) for index in range(start, end) if parent[index].get("_db_id") not in pins
    )
    pinned = tuple(_described(parent, i) for i, m in enumerate(parent) if pins and m.get("_db_id") in pins)
    estimate_before = estimate_messages_tokens_rough(parent)
    estimate_after = estimate_messages_tokens_rough(child)
    at = record.get("at") if record else None
    return CompressionDetails(
        child_id=child_id,
        parent_id=parent_id,
        child_title=child_row.get("title"),
        parent_title=parent_row.get("title"),
        recorded=record is not None,
        reason=str(record.get("reason")) if record and record.get("reason") else None,
        focus_topic=str(record.get("focus_topic")) if record and record.get("focus_topic") else None,
        tokens_before=_int(record.get("tokens_before"), estimate_before) if record else estimate_before,
        tokens_after=_int(record.get("tokens_after"), estimate_after) if record else estimate_after,
        messages_before=_int(record.get("messages_before"), len(parent)) if record else len(parent),
        messages_after=_int(record.get("messages_after"), len(child)) if record else len(child),
        fallback_used=bool(record.get("fallback_used")) if record else None,
        summary_error=str(record.get("summary_error")) if record and record.get("summary_error") else None,
        at=float(at) if isinstance(at, int | float) and not isinstance(at, bool) else None,
        summary=summary_body(child),
        summarised=summarised,
        pinned=pinned,
    )


def _described(history: list[Message], index: int) -> SummarisedMessage:
    message = history[index]
    return SummarisedMessage(
        index,
        str(message.get("role") or ""),
        content_text(message.get("content")),
        message.get("_db_id"),
        len(message.get("tool_calls") or []),
    )


def _continues_by_compression(parent: dict[str, Any], child: dict[str, Any]) -> bool:
    ended = parent.get("ended_at")
    return (
        parent.get("end_reason") == "compression"
        and ended is not None
        and float(child.get("started_at") or 0) >= float(ended)
    )


async def compression_at_or_above(db: SessionDB, session_id: str) -> str | None:
    """The child id of the compression whose summary `session_id` carries: itself when it was
    compacted in place or is a compression continuation, else its nearest such ancestor (a branch
    keeps its parent's summary)."""
    if await db.count_compacted(session_id):
        return session_id
    chain = await db.lineage_chain(session_id)
    for position in range(len(chain) - 1, 0, -1):
        child_id = chain[position]
        if read_record(await db.get_meta(RECORD_PREFIX + child_id)) is not None:
            return child_id
        child = await db.get_session(child_id)
        parent = await db.get_session(chain[position - 1])
        if child is not None and parent is not None and _continues_by_compression(parent, child):
            return child_id
    return None


def reinjection_note(message: SummarisedMessage, parent_id: str) -> str:
    """A user note quoting a summarised message, so the model sees it again verbatim."""
    text = message.text.strip() or "(no text)"
    if len(text) > QUOTE_LIMIT:
        text = text[:QUOTE_LIMIT] + "\n…(cut)"
    quoted = "\n".join(f"> {line}" if line else ">" for line in text.splitlines())
    return (
        f"For reference, here is a {message.role} message from earlier in this conversation "
        f"(it was summarised when session {parent_id} was compressed), quoted verbatim:\n\n{quoted}"
    )


def heading_text(details: CompressionDetails) -> str:
    """The first line of the details: which compression this is."""
    if details.in_place:
        title = f" “{details.child_title}”" if details.child_title else ""
        times = f" ({details.compactions}×)" if details.compactions > 1 else ""
        return f"Compacted in place: {details.child_id}{title}{times} — the same session, its replaced rows kept"
    return f"Compression {details.parent_id} → {details.child_id}" + (
        f" “{details.child_title}”" if details.child_title else ""
    )


def details_text(details: CompressionDetails, max_messages: int = 30) -> str:
    """The details as plain lines (what /inspect prints headless)."""
    estimated = "" if details.recorded else " (estimated: no record, made outside hermes-tui)"
    fallback = {None: "unknown", True: "yes — the summary model was unavailable", False: "no"}[details.fallback_used]
    lines = [
        heading_text(details),
        f"Reason: {details.reason or 'unknown'} · focus: {details.focus_topic or '(none)'}",
        f"Tokens: ~{details.tokens_before:,} → ~{details.tokens_after:,} ({details.saved_percent}% saved){estimated}",
        f"Messages: {details.messages_before} → {details.messages_after}; {len(details.summarised)} summarised"
        + (f", {len(details.pinned)} pinned kept verbatim" if details.pinned else ""),
        f"Fallback summary: {fallback}" + (f" ({details.summary_error})" if details.summary_error else ""),
        "",
        "Summary:",
        *(f"  {line}" for line in (details.summary or "(no summary message found in the child)").splitlines()),
        "",
        "Summarised messages:",
    ]
    for message in details.summarised[:max_messages]:
        text = " ".join(message.text.split())
        calls = f" [{message.tool_calls} tool call(s)]" if message.tool_calls else ""
        lines.append(f"  #{message.index + 1} {message.role}{calls}: {text[:160]}{'…' if len(text) > 160 else ''}")
    if len(details.summarised) > max_messages:
        lines.append(f"  … {len(details.summarised) - max_messages} more")
    if details.pinned:
        lines += ["", "Pinned (kept verbatim after the summary):"]
        for message in details.pinned[:max_messages]:
            text = " ".join(message.text.split())
            lines.append(f"  #{message.index + 1} {message.role}: {text[:160]}{'…' if len(text) > 160 else ''}")
    return "\n".join(lines)
