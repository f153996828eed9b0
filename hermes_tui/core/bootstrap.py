"""Assemble a ready Agent from settings: open state.db, build the providers, register the tools.

Both front-ends (the TUI's start-up worker and `hermes-tui run`) call `open_agent`, so they
drive exactly the same Agent. It starts the MCP servers connecting without waiting for them
(a one-shot run waits with `Agent.wait_for_mcp` before its turn; the TUI never does). The
summary provider is only distinct when `auxiliary.compression` names a different provider,
model or base URL; otherwise compression summaries use the main model (there is nothing to
fall back to).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_tui.config import Home, ProviderChoice, Settings, env_view
from hermes_tui.core import events as ev
from hermes_tui.core.commands.extensions import install_extension_commands  # loaded with this module, off the loop
from hermes_tui.core.tools.base import Approver, FunctionTool, ToolContext
from hermes_tui.core.tools.defaults import default_registry
from hermes_tui.core.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from hermes_tui.core.agent import Agent
    from hermes_tui.core.providers.base import Provider
    from hermes_tui.store.db import SessionDB


def build_registry() -> ToolRegistry:
    """The default tools plus session_search (which reads the agent's state.db) and the learning tools
    (memory, skills_list, skill_view, skill_manage: they use the agent's memory store and skills folder)."""
    from hermes_tui.core.tools.memory_tool import MemoryTool
    from hermes_tui.core.tools.session_search import SESSION_SEARCH_SCHEMA, session_search
    from hermes_tui.core.tools.skill_tools import SkillManageTool, SkillsListTool, SkillViewTool

    registry = default_registry()

    async def run_session_search(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        db = ctx.services.get("db")
        if db is None:
            return {"error": "session search is unavailable: no state.db is open"}
        return await session_search(db, ctx.session_id, args)

    registry.register(FunctionTool.from_schema(SESSION_SEARCH_SCHEMA, run_session_search))
    for tool in (MemoryTool(), SkillsListTool(), SkillViewTool(), SkillManageTool()):
        registry.register(tool)
    return registry


def add_plugin_commands(agent: Agent) -> None:
    """The enabled plugins' slash commands join the one command registry (a taken name keeps its
    owner: one warning line); they leave it again when the agent closes."""
    from hermes_tui.core.commands import register_dynamic, register_plugin_commands

    sources = list(agent.extensions.commands)
    for source in sources:
        for problem in register_plugin_commands(source, agent.extensions.commands[source]):
            agent.events.warn(problem)

    def remove() -> None:
        for source in sources:
            register_dynamic(source, ())

    if sources:
        agent.call_on_close(remove)


def summary_provider(settings: Settings, choice: ProviderChoice) -> Provider | None:
    """A distinct provider for compression summaries, or None to summarise with the main model."""
    from hermes_tui.core.providers.factory import make_aux_provider, resolve_aux_choice

    env = env_view(settings)  # the home's .env counts as environment, below the real one
    aux = resolve_aux_choice(settings, choice, env)
    if (aux.provider, aux.model, aux.base_url) == (choice.provider, choice.model, choice.base_url):
        return None
    return make_aux_provider(settings, choice, env)


async def open_agent(
    *,
    home: Home,
    settings: Settings,
    choice: ProviderChoice,
    sink: ev.EventSink,
    approver: Approver | None,
    source: str,
    cwd: Path | None = None,
    build_extra_indexes: bool = False,
) -> tuple[Agent, SessionDB]:
    """Open state.db and build the Agent; StoreError/AgentError/ConfigError carry one-line messages.

    `build_extra_indexes` (the TUI) builds our extra indexes in the background once state.db is
    open (store.extra_indexes); a one-shot `run` leaves them for later.
    """
    from hermes_tui.core.agent import Agent
    from hermes_tui.core.providers.chain import build_chain
    from hermes_tui.core.providers.factory import make_provider
    from hermes_tui.core.upkeep import run_upkeep
    from hermes_tui.store.db import SessionDB

    def make(route_choice: ProviderChoice) -> Provider:
        return make_provider(
            route_choice,
            max_tokens=settings.model.max_tokens,
            reasoning_effort=settings.model.reasoning_effort,
            timeouts=settings.timeouts,
        )

    aux = summary_provider(settings, choice)
    primary = make(choice)
    chain, skipped = build_chain(settings, choice, primary, make, env_view(settings))
    db = await SessionDB.open(home.state_db)
    try:
        upkeep = await run_upkeep(db, settings.sessions)
        agent = Agent(
            settings=settings,
            home=home,
            provider=primary,
            chain=chain,
            db=db,
            aux_provider=aux,
            sink=sink,
            approver=approver,
            source=source,
            cwd=cwd,
            registry=build_registry(),
        )
    except Exception:
        await db.close()
        raise
    if build_extra_indexes:
        db.start_extra_indexes()
    install_extension_commands(agent)  # /skill-name commands and [quick_commands]
    add_plugin_commands(agent)
    agent.start_mcp()  # the MCP servers connect in the background: nothing here waits for them
    for line in skipped:
        agent.events.warn(line)
    if upkeep.line():  # the start-up line: what state.db upkeep did (core/upkeep.py)
        agent.events.review("info", upkeep.line())
        agent.events.status(upkeep.line())
    # the window the server reported last time at once, a fresh report in the background (never waited for)
    # (an unknown window without a report is warned about when the server has not answered)
    watching = agent.watch_window(choice.base_url, choice.api_key) is not None
    if not agent.context_window_known and not watching:
        agent.warn_unknown_window()
    return agent, db
