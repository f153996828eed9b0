"""Plugin hooks: small Python objects that watch or shape a turn, enabled by name in the config.

Plugins are found through the entry-point group `ENTRY_POINT_GROUP`; `plugins.enabled` in the config
names the ones to load (each entry point is a class or factory called with no arguments; a name
"package.module:factory" loads an unpackaged plugin directly). A plugin
implements any of the hooks; missing ones are skipped:

    pre_llm_call(user_message, session_id, messages) -> str | None   context for the API copy of the
                                                                     current user message
    post_llm_call(user_message, response, messages)                  after a completed turn
    transform_llm_output(response) -> str | None                     the first non-empty string wins
    pre_tool_call(name, arguments) -> str | None                     a string blocks the call; the
                                                                     model sees it as the tool error
    post_tool_call(name, arguments, result, is_error)
    on_session_start(session_id)                                     the first turn of each session
    on_session_end(session_id, messages)                             after every turn (Hermes's rule)

A hook may be a coroutine function. A plugin that raises is disabled for the rest of the session,
with one warning; the turn goes on as if it had not been there.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from hermes_tui.core.emitter import Emitter

ENTRY_POINT_GROUP = "hermes_tui.plugins"


class PluginLoadError(Exception):
    """An enabled plugin cannot be found or built; the message is one line."""


@dataclass
class LoadedPlugin:
    name: str
    obj: Any
    disabled: bool = False


def load_plugin(name: str) -> Any:
    """The plugin object for `name`: an entry point of the group, or "package.module:factory"."""
    if ":" in name:
        module_name, _, attr = name.partition(":")
        try:
            module = __import__(module_name, fromlist=[attr])
            factory = getattr(module, attr)
            return factory() if callable(factory) else factory
        except Exception as exc:
            raise PluginLoadError(f"plugin '{name}' failed to load: {type(exc).__name__}: {exc}") from None
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if entry.name == name:
            try:
                factory = entry.load()
                return factory() if callable(factory) else factory
            except Exception as exc:
                raise PluginLoadError(f"plugin '{name}' failed to load: {type(exc).__name__}: {exc}") from None
    raise PluginLoadError(f"plugin '{name}' is enabled in the config but no installed package provides it")


class PluginManager:
    """The enabled plugins of one agent, each isolated from the others and from the turn."""

    def __init__(self, plugins: Sequence[tuple[str, Any]], emitter: Emitter) -> None:
        self._plugins = [LoadedPlugin(name, obj) for name, obj in plugins]
        self._events = emitter
        self._started: set[str] = set()

    @classmethod
    def from_names(cls, names: Sequence[str], emitter: Emitter) -> PluginManager:
        loaded: list[tuple[str, Any]] = []
        for name in names:
            try:
                loaded.append((name, load_plugin(name)))
            except PluginLoadError as exc:
                emitter.warn(str(exc))
        return cls(loaded, emitter)

    @property
    def active(self) -> list[str]:
        return [p.name for p in self._plugins if not p.disabled]

    def _disable(self, plugin: LoadedPlugin, hook: str, exc: BaseException) -> None:
        plugin.disabled = True
        self._events.warn(
            f"Plugin '{plugin.name}' failed in {hook} ({type(exc).__name__}: {exc}); it is off for this session"
        )

    async def _call(self, hook: str, *args: Any) -> list[Any]:
        results = []
        for plugin in self._plugins:
            method = getattr(plugin.obj, hook, None)
            if plugin.disabled or method is None:
                continue
            try:
                value = method(*args)
                if inspect.isawaitable(value):
                    value = await value
            except Exception as exc:
                self._disable(plugin, hook, exc)
                continue
            results.append(value)
        return results

    # ------------------------------------------------------------------ hooks

    async def session_started(self, session_id: str) -> None:
        if session_id in self._started:
            return
        self._started.add(session_id)
        for plugin in self._plugins:  # a new session gives a disabled plugin another chance
            plugin.disabled = False
        await self._call("on_session_start", session_id)

    async def pre_llm_call(self, user_message: str, session_id: str, messages: list[dict[str, Any]]) -> str:
        texts = await self._call("pre_llm_call", user_message, session_id, messages)
        return "\n\n".join(t.strip() for t in texts if isinstance(t, str) and t.strip())

    async def post_llm_call(self, user_message: str, response: str, messages: list[dict[str, Any]]) -> None:
        await self._call("post_llm_call", user_message, response, messages)

    async def transform_llm_output(self, response: str) -> str | None:
        for value in await self._call("transform_llm_output", response):
            if isinstance(value, str) and value.strip():
                return value
        return None

    async def pre_tool_call(self, name: str, arguments: str) -> str | None:
        for value in await self._call("pre_tool_call", name, arguments):
            if isinstance(value, str) and value.strip():
                return value
        return None

    async def post_tool_call(self, name: str, arguments: str, result: str, is_error: bool) -> None:
        await self._call("post_tool_call", name, arguments, result, is_error)

    async def session_ended(self, session_id: str, messages: list[dict[str, Any]]) -> None:
        await self._call("on_session_end", session_id, messages)
