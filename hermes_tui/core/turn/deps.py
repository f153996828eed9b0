"""What a turn works with: narrow collaborator interfaces, bundled as `TurnDeps`.

The turn package never imports the session package or the Agent: it names what it needs as
`Protocol`s — the live session it reads and writes (`TurnSession`), the context meter
(`Meter`), the compression orchestrator (`Compaction`) — and receives the concrete objects from
the Agent, together with the provider, the tool registry, the event emitter and the settings.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from hermes_tui.config import Settings
from hermes_tui.core.emitter import Emitter
from hermes_tui.core.memory import MemoryHooks
from hermes_tui.core.messages import Message
from hermes_tui.core.providers.base import Provider, RequestCache, Usage
from hermes_tui.core.providers.chain import ProviderChain
from hermes_tui.core.todo import TodoStore
from hermes_tui.core.tools.base import ToolContext
from hermes_tui.core.tools.registry import ToolRegistry
from hermes_tui.core.turn.result import FinishedTurn


class Counters(Protocol):
    """The per-session nudge counters a turn advances."""

    user_turns: int
    turns_since_memory: int
    iters_since_skill: int


class TurnSession(Protocol):
    """The live session as a turn uses it."""

    @property
    def id(self) -> str: ...

    @property
    def messages(self) -> list[Message]: ...

    @property
    def system_prompt(self) -> str | None: ...

    todo: TodoStore
    counters: Counters
    request_cache: RequestCache | None  # what the conversation's previous request left (None: none kept)

    async def ensure_row(self) -> bool: ...

    async def flush(self, messages: list[Message] | None = None) -> None: ...

    async def save_partial(self, snapshot: Callable[[], tuple[list[Message], str] | None]) -> None: ...

    async def discard_partial(self) -> None: ...

    async def prompt(self) -> str: ...

    def commit(self, messages: list[Message]) -> None: ...


class Meter(Protocol):
    """Sizes the context and tells the gauge."""

    @property
    def context_length(self) -> int: ...

    @property
    def totals(self) -> Any: ...

    @property
    def last_prompt_tokens(self) -> int: ...

    async def prepare(self, messages: Sequence[Message] | None = None) -> None: ...

    def estimate(self, messages: Sequence[Message] | None = None) -> int: ...

    def publish(self, messages: Sequence[Message] | None = None, usage: Usage | None = None) -> None: ...

    async def record(self, usage: Usage) -> None: ...

    def end_turn(self) -> None: ...

    def lower_window(self, limit: int) -> bool: ...

    def use_window(self, window: int, known: bool) -> None: ...


class CompactionResult(Protocol):
    @property
    def messages(self) -> list[Message]: ...

    @property
    def rotated(self) -> bool: ...


class Compaction(Protocol):
    """The compression triggers' predicates and the compression itself."""

    enabled: bool

    def should_compress(self, tokens: int) -> bool: ...

    def should_defer_preflight(self, rough: int) -> bool: ...

    def in_loop_tokens(self, rough: int) -> int: ...

    async def compress(
        self, messages: list[Message], *, reason: str, approx_tokens: int | None = None
    ) -> CompactionResult: ...


class TurnExtras(Protocol):
    """What runs around a turn besides the loop itself: memory recall, plugin hooks, the finishing
    phase's background work (self-review, titles). The review fork gets `NO_EXTRAS`."""

    async def turn_context(self, user_message: str, session_id: str, messages: list[Message]) -> str: ...

    async def before_tool(self, name: str, arguments: str) -> str | None: ...

    async def after_tool(self, name: str, arguments: str, result: str, is_error: bool) -> None: ...

    async def finish(self, turn: FinishedTurn) -> str | None: ...


class NoExtras:
    """Nothing around the turn: no recall, no plugins, no background work."""

    async def turn_context(self, user_message: str, session_id: str, messages: list[Message]) -> str:
        return ""

    async def before_tool(self, name: str, arguments: str) -> str | None:
        return None

    async def after_tool(self, name: str, arguments: str, result: str, is_error: bool) -> None:
        return None

    async def finish(self, turn: FinishedTurn) -> str | None:
        return None


NO_EXTRAS = NoExtras()


class Steering(Protocol):
    """/steer and /stop as a turn sees them (`hermes_tui.core.turn.steering.SteeringInbox`)."""

    @property
    def stop_requested(self) -> bool: ...

    def begin_turn(self) -> None: ...

    def deliver(self, messages: list[Message]) -> bool: ...

    def after_turn(self) -> None: ...


class NoSteering:
    """Nothing ever steers (a turn run without a front-end that steers)."""

    stop_requested = False

    def begin_turn(self) -> None:
        pass

    def deliver(self, messages: list[Message]) -> bool:
        return False

    def after_turn(self) -> None:
        pass


class FileCheckpoints(Protocol):
    """Snapshots of the working folder before a turn changes files (`hermes_tui.core.checkpoints`)."""

    def begin_turn(self) -> None: ...

    def wanted(self) -> bool: ...

    async def before_change(self, messages: list[Message]) -> None: ...


class NoCheckpoints:
    """No snapshots (the review fork, a turn without a working folder to protect)."""

    def begin_turn(self) -> None:
        pass

    def wanted(self) -> bool:
        return False

    async def before_change(self, messages: list[Message]) -> None:
        pass


@dataclass(frozen=True)
class TurnDeps:
    """The collaborators of every turn of one agent."""

    session: TurnSession
    chain: ProviderChain  # the active provider, its fallbacks and key pools
    tools: ToolRegistry
    tool_schemas: list[dict[str, Any]]
    tool_context: Callable[[], ToolContext]
    compaction: Compaction
    meter: Meter
    events: Emitter
    hooks: MemoryHooks
    settings: Settings
    backoff_base: float = 2.0
    extras: TurnExtras = NO_EXTRAS
    steering: Steering = field(default_factory=NoSteering)
    checkpoints: FileCheckpoints = field(default_factory=NoCheckpoints)

    @property
    def provider(self) -> Provider:
        """The provider answering now (it changes when the turn falls back)."""
        return self.chain.provider
