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

Two more entry-point groups let an enabled plugin (the same `plugins.enabled` names) add to
the agent, beside the memory-provider and hook groups:

    hermes_tui.tools      a Tool subclass, a Tool, or a callable returning a Tool or a list of them;
                          registered under their names (a built-in's name keeps the built-in)
    hermes_tui.commands   a command spec — `core.commands.Command`, or a table with name, help and
                          handler(agent, args) (sync or async, returning text or a CommandResult),
                          usage, aliases — a list of them, or a callable returning one or a list

`load_extensions` reads both; anything that fails to import, build or fit is one line (never a
traceback) and the rest load.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

from hermes_tui.core.emitter import Emitter
from hermes_tui.core.tools.base import Tool

ENTRY_POINT_GROUP = "hermes_tui.plugins"
TOOLS_GROUP = "hermes_tui.tools"
COMMANDS_GROUP = "hermes_tui.commands"


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


@dataclass
class Extensions:
    """What the enabled plugins add: tools (their `source` set to "plugin:<name>"), command specs
    per source, the problems (one line each) and every enabled name some group provides."""

    tools: list[Tool] = field(default_factory=list)
    commands: dict[str, list[Any]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    provided: set[str] = field(default_factory=set)


def _entries(group: str, names: Sequence[str]) -> list[metadata.EntryPoint]:
    wanted = set(names)
    return [entry for entry in metadata.entry_points(group=group) if entry.name in wanted]


def _built(value: Any) -> list[Any]:
    """A loaded entry point's offer: a class or factory is called with no arguments; a list stays a list."""
    if inspect.isclass(value) or (callable(value) and not isinstance(value, Tool) and not _is_spec(value)):
        value = value()
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def _is_spec(value: Any) -> bool:
    return hasattr(value, "handler") and hasattr(value, "name")


def _failure(name: str, what: str, exc: BaseException) -> str:
    detail = " ".join(str(exc).split())[:200] or "no details"
    return f"plugin '{name}' failed to load its {what}: {type(exc).__name__}: {detail}"


def load_extensions(names: Sequence[str]) -> Extensions:
    """The tools and command specs the enabled plugins offer through the two entry-point groups."""
    found = Extensions()
    for entry in _entries(TOOLS_GROUP, names):
        found.provided.add(entry.name)
        try:
            offered = _built(entry.load())
        except Exception as exc:
            found.problems.append(_failure(entry.name, "tools", exc))
            continue
        for tool in offered:
            if not isinstance(tool, Tool) or not getattr(tool, "name", ""):
                found.problems.append(f"plugin '{entry.name}': left out {type(tool).__name__}, which is not a Tool")
                continue
            tool.source = f"plugin:{entry.name}"
            found.tools.append(tool)
    for entry in _entries(COMMANDS_GROUP, names):
        found.provided.add(entry.name)
        try:
            found.commands.setdefault(f"plugin:{entry.name}", []).extend(_built(entry.load()))
        except Exception as exc:
            found.problems.append(_failure(entry.name, "commands", exc))
    return found


class PluginManager:
    """The enabled plugins of one agent, each isolated from the others and from the turn."""

    def __init__(self, plugins: Sequence[tuple[str, Any]], emitter: Emitter) -> None:
        self._plugins = [LoadedPlugin(name, obj) for name, obj in plugins]
        self._events = emitter
        self._started: set[str] = set()

    @classmethod
    def from_names(
        cls, names: Sequence[str], emitter: Emitter, provided: set[str] | frozenset[str] = frozenset()
    ) -> PluginManager:
        """The hook plugins of `names`; a name `provided` by the tools/commands groups needs no hooks."""
        loaded: list[tuple[str, Any]] = []
        hooks = {entry.name for entry in metadata.entry_points(group=ENTRY_POINT_GROUP)}
        for name in names:
            if name in provided and ":" not in name and name not in hooks:
                continue
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
