"""The events the core emits: the UI's only window into the agent.

Every state change a user should see is one of these frozen dataclasses, delivered in order
to the `EventSink` the Agent was given (the TUI turns them into Textual messages; the headless
CLI prints them). They carry plain data only — no widgets, no SDK objects.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hermes_tui.core.tools.file_diff import FileChange
from hermes_tui.core.turn.result import TurnResult


@dataclass(frozen=True)
class Event:
    """Base class of every core event."""


@dataclass(frozen=True)
class TurnStarted(Event):
    session_id: str
    user_message: str


@dataclass(frozen=True)
class AssistantStarted(Event):
    """A new API call began streaming; deltas that follow belong to one assistant message."""

    api_call: int


@dataclass(frozen=True)
class TextDelta(Event):
    text: str


@dataclass(frozen=True)
class ReasoningDelta(Event):
    text: str


@dataclass(frozen=True)
class AssistantFinished(Event):
    """The streamed assistant message is complete (it may carry tool calls)."""

    content: str
    tool_call_count: int
    finish_reason: str
    interrupted: bool = False


@dataclass(frozen=True)
class ToolCallStarted(Event):
    call_id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class ToolCallFinished(Event):
    """A tool call ended; `changes` are the files it changed (write_file, patch: diff and +/− counts)."""

    call_id: str
    name: str
    result: str
    is_error: bool
    duration_s: float
    changes: tuple[FileChange, ...] = ()


@dataclass(frozen=True)
class ContextOutlook:
    """Where the context is heading, for the gauge (computed by `core/session/outlook.py`)."""

    turns_left: int | None = None  # turns before the threshold at the recent growth rate; None = unknown
    growth_per_turn: int = 0  # tokens per turn lately (0 = not measured yet)
    cache_hit_rate: float | None = None  # the last call's cache reads / prompt tokens; None = no call yet
    session_input_tokens: int = 0  # prompt tokens billed so far (cached ones included)
    session_output_tokens: int = 0
    session_cost_usd: float | None = None  # None = unknown (a model without a price)
    sizes: tuple[int, ...] = ()  # context size at the end of each turn, oldest first, across compressions
    compressed_before: tuple[int, ...] = ()  # indices into `sizes` of turns that followed a compression


@dataclass(frozen=True)
class ContextBudget:
    """What the token gauge shows. `shown_tokens` is either reported or estimated."""

    context_length: int
    threshold_tokens: int
    reported_prompt_tokens: int  # last provider-reported prompt size; 0 = none yet
    estimated_tokens: int  # rough estimate of the next request
    shown_tokens: int
    is_estimate: bool
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    compression_count: int = 0
    ineffective_compressions: int = 0
    window_is_default: bool = False
    compression_enabled: bool = True
    outlook: ContextOutlook | None = None


@dataclass(frozen=True)
class UsageUpdated(Event):
    budget: ContextBudget
    prompt_tokens: int = 0
    completion_tokens: int = 0
    session_input_tokens: int = 0
    session_output_tokens: int = 0


@dataclass(frozen=True)
class CompressionStarted(Event):
    session_id: str
    reason: str  # "preflight" | "threshold" | "overflow" | "manual"
    tokens: int
    messages: int


@dataclass(frozen=True)
class CompressionFinished(Event):
    before: int  # messages before
    after: int  # messages after
    dropped: int
    fallback_used: bool
    tokens_before: int = 0
    tokens_after: int = 0
    aborted: bool = False
    summary_error: str = ""
    focus_topic: str = ""
    in_place: bool = False  # compacted in place (Hermes's mode): same session, replaced rows kept as compacted
    session_id: str = ""  # the session the conversation continues in


@dataclass(frozen=True)
class SessionRotated(Event):
    old: str | None
    new: str
    reason: str  # "compression" | "new_session" | "resume" | "branch"
    title: str | None = None


@dataclass(frozen=True)
class TitleChanged(Event):
    """The live session's title changed (set by /title, or queued until its row exists)."""

    session_id: str
    title: str | None


@dataclass(frozen=True)
class ReviewEntry(Event):
    """A line in the review log: compression, rotation, memory/skill events, warnings."""

    kind: str  # "compression" | "rotation" | "memory" | "skill" | "warning" | "info"
    text: str
    detail: str = ""  # e.g. the diff of the files a self-review changed (opened from the log line)
    run_key: str = ""  # the state_meta key of the self-review run this line reports


@dataclass(frozen=True)
class Warning(Event):  # the design names this event "Warning"; it shadows the builtin here only
    text: str


@dataclass(frozen=True)
class Status(Event):
    text: str


@dataclass(frozen=True)
class HistoryReplaced(Event):
    """The in-memory conversation was replaced (resume, undo, compression); the UI re-renders."""

    session_id: str
    messages: list[dict[str, Any]] = field(default_factory=list)
    reason: str = ""


@dataclass(frozen=True)
class ProviderSwitched(Event):
    """Another provider/model answers from now on (a fallback, or the primary restored)."""

    provider: str
    model: str
    reason: str  # the failure class that moved the turn, or "restored"


@dataclass(frozen=True)
class TurnFinished(Event):
    """A turn ended; `result` is the very `TurnResult` the caller of `run_conversation` gets."""

    result: TurnResult

    @property
    def session_id(self) -> str:
        return self.result.session_id

    @property
    def final_response(self) -> str | None:
        return self.result.final_response

    @property
    def interrupted(self) -> bool:
        return self.result.interrupted

    @property
    def failed(self) -> bool:
        return self.result.failed

    @property
    def error(self) -> str:
        return self.result.error

    @property
    def api_calls(self) -> int:
        return self.result.api_calls

    @property
    def exit_reason(self) -> str:
        return self.result.exit_reason


@dataclass(frozen=True)
class QueueChanged(Event):
    """What waits for the agent: queued messages (sent one per turn), /steer guidance, a /stop request."""

    queued: tuple[str, ...] = ()
    steers: tuple[str, ...] = ()
    stop_requested: bool = False


@dataclass(frozen=True)
class GoalChanged(Event):
    """The live session's standing goal (/goal) changed: set, judged, paused, resumed, done or cleared."""

    session_id: str
    goal: str | None  # None: no goal
    status: str = ""  # "active" | "paused" | "done" | "cleared"
    turns_used: int = 0
    max_turns: int = 0
    reason: str = ""  # the judge's reason or why the loop paused


@dataclass(frozen=True)
class PermissionModeChanged(Event):
    """The permission mode changed (/mode, /yolo, Shift+Tab): "ask", "accept_edits", "read_only" or "yolo"."""

    mode: str
    previous: str
    label: str = ""  # how to name it to a person ("read-only (plan)")


@dataclass(frozen=True)
class TurnFilesChanged(Event):
    """The files a turn changed, emitted just before its TurnFinished (only when it changed any).

    `changes` holds every change in order (a file edited twice appears twice); `files` is one
    entry per path, first-change order, with the +/− counts of its changes added up.
    """

    session_id: str
    changes: tuple[FileChange, ...]

    @property
    def files(self) -> tuple[tuple[str, int, int], ...]:
        totals: dict[str, list[int]] = {}
        for change in self.changes:
            counts = totals.setdefault(change.path, [0, 0])
            counts[0] += change.added
            counts[1] += change.removed
        return tuple((path, added, removed) for path, (added, removed) in totals.items())

    @property
    def added(self) -> int:
        return sum(change.added for change in self.changes)

    @property
    def removed(self) -> int:
        return sum(change.removed for change in self.changes)


@dataclass(frozen=True)
class CheckpointTaken(Event):
    """The working folder was snapshotted before this turn's first file change (`core/checkpoints`)."""

    session_id: str
    number: int  # what /rollback N takes
    message_id: int | None  # the state.db id of the turn's user message
    turn: int  # that message's number (#N, as /history counts)
    files: int  # files in the snapshot
    changed: int  # files that differ from the folder's previous snapshot
    left_out: int = 0  # files over the size cap, not in the snapshot
    duration_s: float = 0.0


@dataclass(frozen=True)
class FilesRestored(Event):
    """A rollback made the folder's files checkpoint `number`'s; `undo_number` undoes it."""

    session_id: str
    number: int
    undo_number: int
    changed: int  # files set back
    removed: int  # files created after the checkpoint, deleted
    recreated: int  # files deleted after the checkpoint, back


@dataclass(frozen=True)
class PinsChanged(Event):
    """The pinned messages of `session_id` (positions in Agent.messages) after /pin, /unpin or a resume."""

    session_id: str
    indices: tuple[int, ...]


@dataclass(frozen=True)
class DisplayChanged(Event):
    """What the front-end shows changed (/reasoning show|hide, /verbose): `core.display.DisplayOptions`."""

    show_reasoning: bool
    tool_progress: str  # off | new | all | verbose (Hermes's /verbose cycle)


EventSink = Callable[[Event], None]


def null_sink(_event: Event) -> None:
    """An event sink that drops everything (tests, background work)."""
