"""The review fork's collaborators: what it shares with the live agent and what it does not.

Shared (so the fork's first request hits the prompt cache the parent warmed): the provider and
model, the cached system prompt (the parent's, byte for byte), the tool schema list (the very same
list object), the memory store and the skills folder. Not shared: the session — a `ForkSession`
starts from a snapshot of the parent's messages, has no row and flushes nowhere, so nothing the
fork says enters the parent's transcript or state.db — the todo list, the nudge counters, the
gauge (a quiet `ForkMeter`), compression (`NoCompaction`: a 16-iteration review never compresses),
the memory providers (none: nothing leaks into an external provider) and the event sink.

Tools are limited at run time by `ReviewToolRegistry`: only the memory and skill tools run; any
other call gets an error result naming the tool. Shell-command approval always answers "deny".
`build_fork_deps` assembles a `TurnDeps` for `TurnRunner`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from hermes_tui.config import Settings
from hermes_tui.core.context.tokens import TokenLedger
from hermes_tui.core.emitter import Emitter
from hermes_tui.core.memory.hooks import MemoryHooks
from hermes_tui.core.messages import Message
from hermes_tui.core.providers.base import Provider, RequestCache, Usage
from hermes_tui.core.providers.chain import ProviderChain
from hermes_tui.core.session.live import TurnCounters
from hermes_tui.core.session.meter import SessionTotals
from hermes_tui.core.todo import TodoStore
from hermes_tui.core.tools.base import ApprovalRequest, ToolContext, ToolResult
from hermes_tui.core.tools.registry import ToolRegistry
from hermes_tui.core.turn.deps import TurnDeps

REVIEW_MAX_ITERATIONS = 16
REVIEW_TOOLS = frozenset({"memory", "skill_view", "skill_manage"})


def denied_message(name: str) -> str:
    return f"The self-review may only use the memory and skill tools; '{name}' was refused and did not run."


class ForkSession:
    """A session of the fork's own: a snapshot of the parent's messages, the parent's cached prompt."""

    def __init__(self, parent_id: str, messages: Sequence[Message], system_prompt: str) -> None:
        self._id = parent_id
        self._messages = [dict(m) for m in messages]
        self._system_prompt = system_prompt
        self.todo = TodoStore()
        self.counters = TurnCounters()
        self.request_cache = RequestCache()  # its own: the fork's requests never displace the parent's

    @property
    def id(self) -> str:
        return self._id

    @property
    def messages(self) -> list[Message]:
        return self._messages

    @property
    def system_prompt(self) -> str | None:
        return self._system_prompt

    async def ensure_row(self) -> bool:
        return False

    async def flush(self, messages: list[Message] | None = None) -> None:
        """Nowhere to flush: the fork's messages stay in memory."""

    async def save_partial(self, snapshot: Callable[[], tuple[list[Message], str] | None]) -> None:
        """A fork's streamed text is never saved: it has no transcript to lose."""

    async def discard_partial(self) -> None:
        """Nothing was saved, so nothing to discard."""

    async def prompt(self) -> str:
        return self._system_prompt

    def commit(self, messages: list[Message]) -> None:
        self._messages = messages


class ForkMeter:
    """Sizes the fork's requests and adds up its tokens; tells no gauge."""

    def __init__(self, context_length: int, system_prompt: str, tool_schemas: Sequence[dict[str, Any]]) -> None:
        self._context_length = context_length
        self._system_prompt = system_prompt
        self._tool_schemas = list(tool_schemas)
        self._ledger = TokenLedger()
        self.totals = SessionTotals()
        self._last_prompt = 0

    @property
    def context_length(self) -> int:
        return self._context_length

    @property
    def last_prompt_tokens(self) -> int:
        return self._last_prompt

    async def prepare(self, messages: Sequence[Message] | None = None) -> None:
        """The fork sizes its small requests on the spot."""

    def use_window(self, window: int, known: bool) -> None:
        self._context_length = window

    def estimate(self, messages: Sequence[Message] | None = None) -> int:
        return self._ledger.rough_request_tokens(list(messages or []), self._system_prompt, self._tool_schemas)

    def publish(self, messages: Sequence[Message] | None = None, usage: Usage | None = None) -> None:
        """The fork has no gauge."""

    async def record(self, usage: Usage) -> None:
        self.totals.add(usage)
        self._last_prompt = usage.prompt_tokens

    def lower_window(self, limit: int) -> bool:
        return False

    def end_turn(self) -> None:
        """No outlook to tell: the fork's context sizes are nobody's gauge."""


@dataclasses.dataclass
class _NoResult:
    messages: list[Message]
    rotated: bool = False


class NoCompaction:
    """The fork never compresses (16 iterations on top of a context the parent keeps in bounds)."""

    enabled = False

    def should_compress(self, tokens: int) -> bool:
        return False

    def should_defer_preflight(self, rough: int) -> bool:
        return True

    def in_loop_tokens(self, rough: int) -> int:
        return rough

    async def compress(self, messages: list[Message], *, reason: str, approx_tokens: int | None = None) -> _NoResult:
        return _NoResult(messages)


class ReviewToolRegistry(ToolRegistry):
    """The parent's tools, of which only the review tools may run."""

    def __init__(self, parent: ToolRegistry, allowed: frozenset[str] = REVIEW_TOOLS) -> None:
        super().__init__()
        self._parent = parent
        self._allowed = allowed
        for name in parent.names():
            tool = parent.get(name)
            if tool is not None:
                self.register(tool)

    async def dispatch(self, name: str, arguments: str, ctx: ToolContext) -> ToolResult:
        if name not in self._allowed:
            return ToolResult(denied_message(name), is_error=True)
        return await self._parent.dispatch(name, arguments, ctx)


async def deny_every_command(_request: ApprovalRequest) -> bool:
    """The fork never asks the user: a dangerous command is always refused (and never blocks)."""
    return False


def fork_settings(settings: Settings) -> Settings:
    """The parent's settings with the fork's limits: 16 iterations, no nudges of its own."""
    return dataclasses.replace(
        settings,
        agent=dataclasses.replace(settings.agent, max_turns=REVIEW_MAX_ITERATIONS),
        memory=dataclasses.replace(settings.memory, nudge_interval=0),
        skills=dataclasses.replace(settings.skills, creation_nudge_interval=0),
    )


def build_fork_deps(
    *,
    session: ForkSession,
    provider: Provider,
    registry: ToolRegistry,
    tool_schemas: list[dict[str, Any]],
    settings: Settings,
    context_length: int,
    events: Emitter,
    cwd: Path,
    services: dict[str, Any],
    backoff_base: float = 2.0,
) -> tuple[TurnDeps, ForkMeter]:
    """The `TurnDeps` of one review run (and its meter, for the token figures)."""
    meter = ForkMeter(context_length, session.system_prompt or "", tool_schemas)
    settings = fork_settings(settings)

    def tool_context() -> ToolContext:
        return ToolContext(
            cwd=cwd,
            settings=settings.tools,
            approve=deny_every_command,
            todo=session.todo,
            session_id=session.id,
            services=dict(services),
        )

    deps = TurnDeps(
        session=session,
        chain=ProviderChain.single(provider, context_length, True),  # the parent's provider, no fallbacks
        tools=ReviewToolRegistry(registry),
        tool_schemas=tool_schemas,
        tool_context=tool_context,
        compaction=NoCompaction(),
        meter=meter,
        events=events,
        hooks=MemoryHooks(),
        settings=settings,
        backoff_base=backoff_base,
    )
    return deps, meter
