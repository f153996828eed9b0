"""Plain data types the store returns to the layers above (no SQLite objects leak out)."""

from __future__ import annotations

from dataclasses import dataclass

# Edge kinds between a session and its parent. Sessions we create record theirs when they are
# made (compression, branch or review; store/edges.py). Newer Hermes marks a child in its
# `model_config` JSON when it makes it: `_branched_from` (a /branch), `_delegate_from` (a subagent's
# session started by a delegation) and `_reset_from` (a session reset that keeps its place in the
# chain). For sessions with neither (older Hermes) the kind is derived from the parent's end_reason
# and the timestamps (reference §2.5, §3): a compression continuation starts after its parent ended
# with "compression"; a branch child starts after its parent ended "branched"; anything else with a
# parent (orphans, children started while the parent ran) is "other".
EDGE_ROOT = "root"
EDGE_COMPRESSION = "compression"
EDGE_BRANCH = "branch"
EDGE_DELEGATE = "delegate"
EDGE_RESET = "reset"
EDGE_OTHER = "other"
# Not a session: a background self-review run, shown as a leaf under the session it reviewed.
EDGE_REVIEW = "review"
# A /background turn: a side session of its own, started from the session it was asked in.
EDGE_BACKGROUND = "background"
# Children that sit beside a compression chain, never in it: a newer sibling of these kinds never
# becomes a chain's tip.
SIDE_EDGES = frozenset({EDGE_BRANCH, EDGE_DELEGATE, EDGE_RESET, EDGE_REVIEW, EDGE_BACKGROUND})

# The one list of the session fields every summary of a session carries (the `sessions --json`
# listing, each session of an export), in output order. The listing adds LISTING_EXTRA_FIELDS
# (computed by list_sessions_rich), an export adds EXPORT_EXTRA_FIELDS (stored token counters).
SESSION_FIELDS = (
    "id",
    "title",
    "source",
    "model",
    "parent_session_id",
    "started_at",
    "ended_at",
    "end_reason",
    "message_count",
    "tool_call_count",
)
LISTING_EXTRA_FIELDS = ("last_active", "preview", "lineage_root_id")
LISTING_FIELDS = (*SESSION_FIELDS, *LISTING_EXTRA_FIELDS)
EXPORT_EXTRA_FIELDS = ("input_tokens", "output_tokens")
EXPORT_SESSION_FIELDS = (*SESSION_FIELDS, *EXPORT_EXTRA_FIELDS)


@dataclass(slots=True)
class LineageNode:
    """One session in the lineage tree, with the kind of edge to its parent.

    Treat as read-only. Not `frozen`: a frozen dataclass costs ~6x more to build, and the tree
    builds one per session (10,000+) whenever the database changed.
    """

    id: str
    parent_id: str | None
    edge: str  # one of the EDGE_* kinds above
    title: str | None
    source: str
    model: str | None
    started_at: float
    ended_at: float | None
    end_reason: str | None
    message_count: int
    last_active: float
    preview: str = ""
    branch_point: int | None = None  # the parent's messages.id this child was made after (recorded edges)
    archived: bool = False  # sessions.archived: the tree hides it unless archived sessions are shown
    compactions: int = 0  # in-place compactions (Hermes's compacted rows); the tree says "compacted N×"


# How a compression handoff message starts, in the current and legacy Hermes forms. Hermes-written
# databases carry these; export and the UI use them to show a summary as a summary.
_HANDOFF_MARKERS = ("[CONTEXT COMPACTION", "[CONTEXT SUMMARY]")

# Hermes's merged-into-tail form (its exact strings): when no role fits a standalone summary, the
# first tail message keeps its own text under this header, then the delimiter, then the summary.
MERGED_PRIOR_CONTEXT_HEADER = "[PRIOR CONTEXT — for reference only; not a new message]"
MERGED_SUMMARY_DELIMITER = "[END OF PRIOR CONTEXT — COMPACTION SUMMARY BELOW]"

# Every way a handoff message can start (SQL prefix tests use these; each starts with "[").
SUMMARY_MARKERS = (*_HANDOFF_MARKERS, MERGED_PRIOR_CONTEXT_HEADER)


def is_summary_text(text: str) -> bool:
    """True when `text` is a compression summary (handoff) message, standalone or merged."""
    body = text.lstrip()
    if body.startswith(_HANDOFF_MARKERS):
        return True
    if not body.startswith(MERGED_PRIOR_CONTEXT_HEADER):
        return False
    at = body.find(MERGED_SUMMARY_DELIMITER)
    return at >= 0 and body[at + len(MERGED_SUMMARY_DELIMITER) :].lstrip().startswith(_HANDOFF_MARKERS)
