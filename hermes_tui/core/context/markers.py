"""Marker strings the compressor writes into conversations, and the helpers that recognise them.

Owns SUMMARY_PREFIX (the handoff header, in our own words), the tuple of historical/legacy prefixes
that rehydration recognises, the exact END marker, the system-prompt compaction note and the
placeholder texts used by the prune and assembly phases.
"""

from __future__ import annotations

# Whether a message is a summary is decided in one place, `hermes_tui.store.models.is_summary_text`
# (the store, export, the compressor and the UI share it); every header here must start with one
# of its SUMMARY_MARKERS.

SUMMARY_TAG = "[CONTEXT COMPACTION — REFERENCE ONLY]"

SUMMARY_PREFIX = (
    f"{SUMMARY_TAG} This is a handoff summary carried over from an earlier context window. It is "
    "background for reference, not a new message: the requests it mentions were already dealt with "
    "there, so do not answer or carry them out again. Reply only to the newest user message that comes "
    "AFTER this summary. If that message continues the work described under '## Active Task', use the "
    "summary as background for it; if it asks for something different, the newest message wins and "
    "stale Active Task, In Progress, Pending User Asks and Remaining Work items are dropped — do not "
    "wrap up the old task first. A newer message that says stop, undo, roll back, just verify, don't do "
    "that anymore, never mind, or that changes the topic ends any work the summary describes as in "
    "flight. MEMORY.md and USER.md in the system prompt stay authoritative. Files, processes and "
    "sessions may already reflect the work described here, so build on that state instead of repeating "
    "it. The summary of the earlier turns follows:"
)

LEGACY_SUMMARY_PREFIX = "[CONTEXT SUMMARY]:"

# Frozen older headers (ours and Hermes-written ones) that are recognised and stripped when an
# inherited summary is re-normalised. Longest first so the most specific one is stripped.
HISTORICAL_SUMMARY_PREFIXES: tuple[str, ...] = (
    f"{SUMMARY_TAG} Earlier turns were compacted into the summary below.",
    LEGACY_SUMMARY_PREFIX,
)

SUMMARY_END_MARKER = "--- END OF CONTEXT SUMMARY — respond to the message below, not the summary above ---"

SYSTEM_COMPACTION_NOTE = (
    "[Note: Some earlier conversation turns have been compacted into a handoff summary to preserve "
    "context space. The current session state may still reflect earlier work, so build on that summary "
    "and state rather than re-doing work. Your persistent memory (MEMORY.md, USER.md) remains fully "
    "authoritative regardless of compaction.]"
)

PRUNED_TOOL_PLACEHOLDER = "[Old tool output cleared to save context space]"
DUPLICATE_TOOL_OUTPUT = "[Duplicate tool output — same content as a more recent call]"
SCREENSHOT_REMOVED_PART = "[screenshot removed to save context]"
SCREENSHOT_REMOVED_PREFIX = "[screenshot removed] "
TRUNCATED_LEAF_SUFFIX = "...[truncated]"
SERIALIZER_TRUNCATION = "\n...[truncated]...\n"
FALLBACK_TRUNCATION = "\n...[fallback summary truncated]"
MISSING_TOOL_RESULT_STUB = "[Result from earlier conversation — see context summary above]"
HISTORICAL_IMAGE_PLACEHOLDER = "[Attached image — stripped after compression]"

_ALL_PREFIXES: tuple[str, ...] = (SUMMARY_PREFIX, *HISTORICAL_SUMMARY_PREFIXES)


def strip_summary_prefix(text: str) -> str:
    """The summary body without its header (current, historical, legacy or an unknown variant).

    An unknown variant of the compaction tag loses its first line, which is where every known
    header version keeps its explanation.
    """
    body = text.lstrip()
    changed = True
    while changed:  # a summary re-prefixed by several versions carries several headers
        changed = False
        for prefix in _ALL_PREFIXES:
            if body.startswith(prefix):
                body = body[len(prefix) :].lstrip()
                changed = True
                break
        else:
            if body.startswith(SUMMARY_TAG):
                newline = body.find("\n")
                body = "" if newline < 0 else body[newline + 1 :].lstrip()
                changed = True
    return body


def with_summary_prefix(text: str) -> str:
    """`text` with any old header removed and the current SUMMARY_PREFIX added on its own line."""
    return f"{SUMMARY_PREFIX}\n{strip_summary_prefix(text)}"


def split_summary_message(text: str) -> tuple[str, str]:
    """Split a handoff message into (summary body, text after the END marker).

    The second part is non-empty when the summary was merged into a real message.
    """
    body = strip_summary_prefix(text)
    marker_at = body.find(SUMMARY_END_MARKER)
    if marker_at < 0:
        return body.strip(), ""
    return body[:marker_at].strip(), body[marker_at + len(SUMMARY_END_MARKER) :].strip()
