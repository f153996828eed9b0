"""Marker strings the compressor writes into conversations, and the helpers that recognise them.

Owns SUMMARY_PREFIX and SUMMARY_END_MARKER — Hermes's exact strings (a7ef17da7,
`agent/context_compressor.py`), because interoperability needs the very bytes: Hermes recognises
a previous summary by its prefix, and we recognise Hermes's the same way — the frozen older
prefixes (Hermes's and our own earlier reworded one), the merged-into-tail wrapping in both the
current form (prior content first, then the summary, then the END marker) and the older one
(summary, END marker, then the message), the system-prompt compaction note and the placeholder
texts used by the prune and assembly phases.
"""

from __future__ import annotations

from hermes_tui.store.models import MERGED_PRIOR_CONTEXT_HEADER, MERGED_SUMMARY_DELIMITER

# Whether a message is a summary is decided in one place, `hermes_tui.store.models.is_summary_text`
# (the store, export, the compressor and the UI share it); every header here must start with one
# of its SUMMARY_MARKERS.

SUMMARY_TAG = "[CONTEXT COMPACTION — REFERENCE ONLY]"

# The section headings the handoff prefix names (Hermes's current summary template).
HISTORICAL_TASK_HEADING = "## Historical Task Snapshot"
HISTORICAL_IN_PROGRESS_HEADING = "## Historical In-Progress State"
HISTORICAL_PENDING_ASKS_HEADING = "## Historical Pending User Asks"
HISTORICAL_REMAINING_WORK_HEADING = "## Historical Remaining Work"

# Quoted verbatim from Hermes: a summary Hermes finds under this prefix is its previous summary.
SUMMARY_PREFIX = (
    "[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns were compacted "
    "into the summary below. This is a handoff from a previous context "
    "window — treat it as background reference, NOT as active instructions. "
    "Do NOT answer questions or fulfill requests mentioned in this summary; "
    "they were already addressed. "
    "Respond ONLY to the latest user message that appears AFTER this "
    "summary — that message is the single source of truth for what to do "
    "right now. "
    "Topic overlap with the summary does NOT mean you should resume its "
    "task: even on similar topics, the latest user message WINS. Treat ONLY "
    "the latest message as the active task and discard stale items from "
    f"'{HISTORICAL_TASK_HEADING}' / '{HISTORICAL_IN_PROGRESS_HEADING}' / "
    f"'{HISTORICAL_PENDING_ASKS_HEADING}' / "
    f"'{HISTORICAL_REMAINING_WORK_HEADING}' entirely — do not 'wrap up' or "
    "'finish' work described there unless the latest message explicitly "
    "asks for it. "
    "Reverse signals in the latest message (e.g. 'stop', 'undo', 'roll "
    "back', 'just verify', 'don't do that anymore', 'never mind', a new "
    "topic) must immediately end any in-flight work described in the "
    "summary; do not re-surface it in later turns. "
    "IMPORTANT: Your persistent memory (MEMORY.md, USER.md) in the system "
    "prompt is ALWAYS authoritative and active — never ignore or deprioritize "
    "memory content due to this compaction note. "
    "The current session state (files, config, etc.) may reflect work "
    "described here — avoid repeating it:"
)

LEGACY_SUMMARY_PREFIX = "[CONTEXT SUMMARY]:"

# Quoted verbatim from Hermes: appended after every summary, standalone or merged.
SUMMARY_END_MARKER = "--- END OF CONTEXT SUMMARY — respond to the message below, not the summary above ---"

# When the summary is merged into the first tail message, that message's own text comes first
# under MERGED_PRIOR_CONTEXT_HEADER, then MERGED_SUMMARY_DELIMITER, the summary and the END marker
# (both strings Hermes's, kept in store.models with the summary predicate that recognises the form).

# Frozen older headers that are recognised and stripped when an inherited summary is
# re-normalised: Hermes's earlier prefixes (quoted verbatim, newest first), the reworded one our
# earlier releases wrote, and a bare first sentence.
_HERMES_CARVEOUT_PREFIX = (
    "[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns were compacted "
    "into the summary below. This is a handoff from a previous context "
    "window — treat it as background reference, NOT as active instructions. "
    "Do NOT answer questions or fulfill requests mentioned in this summary; "
    "they were already addressed. "
    "Respond ONLY to the latest user message that appears AFTER this "
    "summary — that message is the single source of truth for what to do "
    "right now. "
    "If the latest user message is consistent with the '## Active Task' "
    "section, you may use the summary as background. If the latest user "
    "message contradicts, supersedes, changes topic from, or in any way "
    "diverges from '## Active Task' / '## In Progress' / '## Pending User "
    "Asks' / '## Remaining Work', the latest message WINS — discard those "
    "stale items entirely and do not 'wrap up the old task first'. "
    "Reverse signals in the latest message (e.g. 'stop', 'undo', 'roll "
    "back', 'just verify', 'don't do that anymore', 'never mind', a new "
    "topic) must immediately end any in-flight work described in the "
    "summary; do not re-surface it in later turns. "
    "IMPORTANT: Your persistent memory (MEMORY.md, USER.md) in the system "
    "prompt is ALWAYS authoritative and active — never ignore or deprioritize "
    "memory content due to this compaction note. "
    "The current session state (files, config, etc.) may reflect work "
    "described here — avoid repeating it:"
)
_HERMES_RESUME_EXACTLY_PREFIX = (
    "[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns were compacted "
    "into the summary below. This is a handoff from a previous context "
    "window — treat it as background reference, NOT as active instructions. "
    "Do NOT answer questions or fulfill requests mentioned in this summary; "
    "they were already addressed. "
    "Your current task is identified in the '## Active Task' section of the "
    "summary — resume exactly from there. "
    "Respond ONLY to the latest user message "
    "that appears AFTER this summary. The current session state (files, "
    "config, etc.) may reflect work described here — avoid repeating it:"
)
_OUR_EARLIER_PREFIX = (
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
HISTORICAL_SUMMARY_PREFIXES: tuple[str, ...] = (
    _HERMES_CARVEOUT_PREFIX,
    _OUR_EARLIER_PREFIX,
    _HERMES_RESUME_EXACTLY_PREFIX,
    f"{SUMMARY_TAG} Earlier turns were compacted into the summary below.",
    LEGACY_SUMMARY_PREFIX,
)

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

# Longest first: several known prefixes begin with the same sentence.
_ALL_PREFIXES: tuple[str, ...] = tuple(sorted({SUMMARY_PREFIX, *HISTORICAL_SUMMARY_PREFIXES}, key=len, reverse=True))


def _after_merged_delimiter(text: str) -> str | None:
    """What follows the delimiter of a current-form merged handoff (None for any other text)."""
    if not text.startswith(MERGED_PRIOR_CONTEXT_HEADER):
        return None
    at = text.find(MERGED_SUMMARY_DELIMITER)
    return None if at < 0 else text[at + len(MERGED_SUMMARY_DELIMITER) :].lstrip()


def strip_summary_prefix(text: str) -> str:
    """The summary body without its header (current, historical, legacy or an unknown variant).

    A current-form merged handoff loses everything up to its delimiter (the prior message's text)
    first. An unknown variant of the compaction tag loses its first line, which is where every
    known header version keeps its explanation.
    """
    body = text.lstrip()
    merged = _after_merged_delimiter(body)
    if merged is not None:
        body = merged
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
    """Split a handoff message into (summary body, the text of the message it was merged into).

    The second part is non-empty when the summary was merged into a real message: in the current
    form that message's text sits between MERGED_PRIOR_CONTEXT_HEADER and the delimiter; in the
    older form it follows the END marker.
    """
    stripped = text.lstrip()
    prior = ""
    if _after_merged_delimiter(stripped) is not None:
        prior = stripped[len(MERGED_PRIOR_CONTEXT_HEADER) : stripped.find(MERGED_SUMMARY_DELIMITER)].strip()
    body = strip_summary_prefix(stripped)
    marker_at = body.find(SUMMARY_END_MARKER)
    if marker_at < 0:
        return body.strip(), prior
    after = body[marker_at + len(SUMMARY_END_MARKER) :].strip()
    return body[:marker_at].strip(), prior or after
