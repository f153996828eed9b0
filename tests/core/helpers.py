"""Helpers for agent-level tests: a real Agent on a real state.db, with a recording event sink."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hermes_tui.config import Home, ProviderChoice, Settings
from hermes_tui.core import events as ev
from hermes_tui.core.agent import Agent
from hermes_tui.core.bootstrap import build_registry
from hermes_tui.core.providers.chain import build_chain
from hermes_tui.core.providers.factory import make_provider
from hermes_tui.store.db import SessionDB
from tests.waits import guard


class EventLog(list):
    """An event sink that records everything the core emits."""

    def __call__(self, event: ev.Event) -> None:
        self.append(event)

    def of(self, kind: type) -> list[Any]:
        return [e for e in self if isinstance(e, kind)]

    def text(self) -> str:
        return "".join(e.text for e in self.of(ev.TextDelta))


async def wait_until(predicate: Callable[[], bool], timeout: float | None = None, what: str = "condition") -> None:
    """Poll `predicate` without blocking the loop; a hang guard only: fail, naming `what`, after
    `guard(timeout)` seconds (at least a minute; tests/waits.py)."""
    limit = guard(timeout)
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if predicate():
            return
        await asyncio.sleep(0.005)
    raise AssertionError(f"timed out after {limit:.0f} s waiting for {what}")


def openai_choice(base_url: str, model: str = "gpt-4o-mini") -> ProviderChoice:
    return ProviderChoice("openai", model, "test-key", base_url, False)


def anthropic_choice(base_url: str, model: str = "claude-sonnet-5") -> ProviderChoice:
    return ProviderChoice("anthropic", model, "test-key", base_url, False)


def server_choice(protocol: str, server: Any) -> ProviderChoice:
    """The fake server `server` (a FakeLLMServer) speaking `protocol` ("openai" or "anthropic")."""
    if protocol == "openai":
        return openai_choice(server.base_url_openai)
    return anthropic_choice(server.base_url_anthropic)


DEMO = ProviderChoice("demo", "demo", "", "", True, "tests")


def background_work(settings: Settings, *, auto_title: bool, review: bool) -> Settings:
    """`settings` with auto-titles and the self-review nudges switched on or off."""
    if review:
        memory, skills = settings.memory, settings.skills
    else:
        memory = dataclasses.replace(settings.memory, nudge_interval=0)
        skills = dataclasses.replace(settings.skills, creation_nudge_interval=0)
    sessions = dataclasses.replace(settings.sessions, auto_title=auto_title)
    return dataclasses.replace(settings, memory=memory, skills=skills, sessions=sessions)


async def make_agent(
    tmp_path: Path,
    choice: ProviderChoice = DEMO,
    *,
    settings: Settings | None = None,
    approver: Any = None,
    cwd: Path | None = None,
    db: SessionDB | None = None,
    auto_title: bool = False,
    review: bool = False,
    env: dict[str, str] | None = None,
    registry: Any = None,
) -> tuple[Agent, SessionDB, EventLog]:
    """A real Agent with a real state.db under tmp_path; retries back off in milliseconds.

    Auto-titles and the self-review nudges are off unless asked for: their model calls would take
    scripted fake-server replies. `settings.chain` (fallbacks, credential pools) is resolved as the
    app does, with `env` (default: empty) standing in for the environment.
    """
    home = Home(tmp_path / "home").ensure()
    settings = settings or Settings()
    settings = background_work(settings, auto_title=auto_title, review=review)
    db = db or await SessionDB.open(home.state_db)
    log = EventLog()

    def make(route_choice: ProviderChoice) -> Any:
        return make_provider(route_choice, timeouts=settings.timeouts)

    primary = make(choice)
    chain, _skipped = build_chain(settings, choice, primary, make, env=env or {})
    agent = Agent(
        settings=settings,
        home=home,
        provider=primary,
        chain=chain,
        db=db,
        sink=log,
        approver=approver,
        source="cli",
        cwd=cwd or tmp_path,
        registry=registry or build_registry(),
        backoff_base=0.001,
    )
    return agent, db, log


async def rows(db: SessionDB, session_id: str) -> list[dict[str, Any]]:
    return await db.get_messages(session_id)


def count_searches(db: SessionDB) -> list[str]:
    """Record every query the store's lineage search runs (the real method still runs)."""
    queries: list[str] = []
    search = db.search_lineages

    async def counted(query: str, *args: Any, **kwargs: Any) -> Any:
        queries.append(query)
        return await search(query, *args, **kwargs)

    db.search_lineages = counted  # type: ignore[method-assign]
    return queries
