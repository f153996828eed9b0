"""`MemoryManager`: the built-in memory provider plus at most one external one, failures isolated.

The manager is the `MemoryHooks` the agent hands the turn, the compression and the session moves.
It forwards every hook to each provider in order (built-in first). A provider method that raises,
or a background task that fails, costs one Review-log warning (once per provider and hook) and
nothing else: the turn goes on. Background work (`sync_turn`, `queue_prefetch`, any coroutine a
fire-and-forget hook returns) runs as tracked asyncio tasks that `shutdown` waits for briefly and
then cancels. Prefetched text is wrapped in a <memory-context> block for the API copy of the
current user message; it is never persisted and never enters the system prompt.

External providers are chosen by `memory.provider` in the config and found in the entry-point group
`hermes_tui.memory_providers` (the shipped `session_recall` provider is also known by name, so it
works from a source checkout whose entry points were never installed), or named directly as
"package.module:factory" for a provider that is not packaged.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from importlib import metadata
from typing import Any

from hermes_tui.core.emitter import Emitter
from hermes_tui.core.memory.hooks import MemoryHooks
from hermes_tui.core.memory.provider import ENTRY_POINT_GROUP, MemoryProvider, ProviderContext, change_metadata
from hermes_tui.core.memory.store import MemoryChange, MemoryStore

BUILTIN_EXTERNAL = {"session_recall": "hermes_tui.core.memory.recall:SessionRecallProvider"}
SHUTDOWN_GRACE_S = 2.0


class ProviderLoadError(Exception):
    """The configured memory provider cannot be found or built; the message is one line."""


class BuiltinMemoryProvider(MemoryProvider):
    """The two memory files as a provider: the frozen snapshot is rendered by the prompt itself."""

    name = "builtin"

    def __init__(self, store: MemoryStore) -> None:
        self.store = store


def _load_factory(spec: str) -> Callable[[ProviderContext], MemoryProvider]:
    module_name, _, attr = spec.partition(":")
    module = __import__(module_name, fromlist=[attr or "_"])
    return getattr(module, attr)


def find_provider_factory(name: str) -> Callable[[ProviderContext], MemoryProvider]:
    """The factory registered under `name` in the entry-point group (or shipped with hermes-tui), or
    named directly as "package.module:factory"."""
    if ":" in name:
        try:
            return _load_factory(name)
        except Exception as exc:
            raise ProviderLoadError(f"memory provider '{name}' failed to load: {type(exc).__name__}: {exc}") from None
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if entry.name == name:
            try:
                return entry.load()
            except Exception as exc:
                raise ProviderLoadError(f"memory provider '{name}' failed to load: {exc}") from None
    if name in BUILTIN_EXTERNAL:
        return _load_factory(BUILTIN_EXTERNAL[name])
    known = sorted({e.name for e in metadata.entry_points(group=ENTRY_POINT_GROUP)} | set(BUILTIN_EXTERNAL))
    raise ProviderLoadError(f"unknown memory provider '{name}' (available: {', '.join(known) or 'none'})")


def wrap_memory_context(text: str) -> str:
    return f"<memory-context>\n{text}\n</memory-context>"


class MemoryManager(MemoryHooks):
    """Runs the providers' lifecycle for one agent."""

    def __init__(self, store: MemoryStore, emitter: Emitter, external: MemoryProvider | None = None) -> None:
        self._events = emitter
        self.builtin = BuiltinMemoryProvider(store)
        self.external = external
        self._tasks: set[asyncio.Task[Any]] = set()
        self._initialized: set[str] = set()
        store.listeners.append(self._on_memory_write)

    @property
    def providers(self) -> list[MemoryProvider]:
        return [self.builtin] if self.external is None else [self.builtin, self.external]

    # ------------------------------------------------------------------ isolation

    def _failed(self, provider: MemoryProvider, hook: str, exc: BaseException) -> None:
        self._events.warn(
            f"Memory provider '{provider.name}' failed in {hook}: {type(exc).__name__}: {exc} — the turn goes on",
            once_key=f"memory-provider:{provider.name}:{hook}",
        )

    def _call(self, provider: MemoryProvider, hook: str, *args: Any, **kwargs: Any) -> Any:
        """Call a hook; a coroutine result is scheduled in the background. Returns the plain result."""
        try:
            result = getattr(provider, hook)(*args, **kwargs)
        except Exception as exc:
            self._failed(provider, hook, exc)
            return None
        if inspect.isawaitable(result):
            self._spawn(provider, hook, result)
            return None
        return result

    def _spawn(self, provider: MemoryProvider, hook: str, awaitable: Any) -> None:
        async def guarded() -> None:
            try:
                await awaitable
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self._failed(provider, hook, exc)

        try:
            task = asyncio.get_running_loop().create_task(guarded())
        except RuntimeError:  # no loop (a synchronous caller): drop the background work
            if inspect.iscoroutine(awaitable):
                awaitable.close()
            return
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _await(self, provider: MemoryProvider, hook: str, *args: Any) -> Any:
        try:
            result = getattr(provider, hook)(*args)
            if inspect.isawaitable(result):
                result = await result
            return result
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._failed(provider, hook, exc)
            return None

    def _each(self, hook: str, *args: Any, **kwargs: Any) -> list[Any]:
        return [self._call(provider, hook, *args, **kwargs) for provider in self.providers]

    # ------------------------------------------------------------------ hooks

    def initialize(self, session_id: str) -> None:
        if session_id in self._initialized:
            return
        self._initialized.add(session_id)
        self._each("initialize", session_id)

    def on_turn_start(self, turn_number: int, message: str) -> None:
        self._each("on_turn_start", turn_number, message)

    async def prefetch(self, query: str, session_id: str) -> str:
        self.initialize(session_id)
        texts = []
        for provider in self.providers:
            text = await self._await(provider, "prefetch", query, session_id)
            if isinstance(text, str) and text.strip():
                texts.append(text.strip())
        return wrap_memory_context("\n\n".join(texts)) if texts else ""

    def queue_prefetch(self, query: str, session_id: str) -> None:
        self._each("queue_prefetch", query, session_id)

    def sync_turn(
        self, user: str, assistant: str, session_id: str, messages: list[dict[str, Any]] | None = None
    ) -> None:
        self._each("sync_turn", user, assistant, session_id, list(messages or []))

    def on_pre_compress(self, messages: list[dict[str, Any]]) -> str:
        texts = [t.strip() for t in self._each("on_pre_compress", messages) if isinstance(t, str) and t.strip()]
        return "\n\n".join(texts)

    def on_session_switch(self, new_session_id: str, *, parent_session_id: str = "", reason: str = "") -> None:
        reset = reason == "new_session"
        self._each("on_session_switch", new_session_id, parent_session_id=parent_session_id, reset=reset, reason=reason)
        if new_session_id:
            self.initialize(new_session_id)

    def on_session_end(self, messages: list[dict[str, Any]]) -> None:
        self._each("on_session_end", list(messages))

    def on_delegation(self, task: str, result: str, child_session_id: str) -> None:
        self._each("on_delegation", task, result, child_session_id)

    def system_prompt_block(self) -> str:
        blocks = [b.strip() for b in self._each("system_prompt_block") if isinstance(b, str) and b.strip()]
        return "\n\n".join(blocks)

    def _on_memory_write(self, change: MemoryChange) -> None:
        self._each("on_memory_write", change.action, change.target, change.content, change_metadata(change))

    # ------------------------------------------------------------------ tools

    def tool_schemas(self) -> list[tuple[MemoryProvider, dict[str, Any]]]:
        """The external providers' own tool schemas, each with its provider."""
        found: list[tuple[MemoryProvider, dict[str, Any]]] = []
        for provider in self.providers[1:]:
            schemas = self._call(provider, "get_tool_schemas") or []
            found.extend((provider, schema) for schema in schemas if isinstance(schema, dict))
        return found

    async def handle_tool_call(self, provider: MemoryProvider, name: str, args: dict[str, Any]) -> Any:
        try:
            result = provider.handle_tool_call(name, args)
            if inspect.isawaitable(result):
                result = await result
            return result
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._failed(provider, "handle_tool_call", exc)
            return {"error": f"memory provider '{provider.name}' failed: {type(exc).__name__}: {exc}"}

    # ------------------------------------------------------------------ shutdown

    async def drain(self, timeout: float = SHUTDOWN_GRACE_S) -> None:
        """Wait for background provider work (tests, and before shutdown)."""
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=timeout)

    async def shutdown(self) -> None:
        await self.drain()
        for task in list(self._tasks):
            task.cancel()
        for provider in self.providers:
            await self._await(provider, "shutdown")


def load_external_provider(name: str, context: ProviderContext) -> MemoryProvider:
    """Build the configured external provider; ProviderLoadError with one line when it cannot be."""
    factory = find_provider_factory(name)
    try:
        provider = factory(context)
    except Exception as exc:
        raise ProviderLoadError(f"memory provider '{name}' could not start: {type(exc).__name__}: {exc}") from None
    if not isinstance(provider, MemoryProvider):
        raise ProviderLoadError(f"memory provider '{name}' is not a MemoryProvider")
    if not getattr(provider, "name", "") or provider.name == "provider":
        provider.name = name
    return provider
