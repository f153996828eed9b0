"""Shared pytest fixtures: an isolated home folder and a copy of the Hermes-written fixture DB.

Also the loopback fake LLM server every layer talks to (`server`; `module_server` for module-scoped
fixtures) and the fast tier's marks (`pytest_collection_modifyitems`). Test modules keep their own
specialised fixtures; this file holds only what every layer uses.
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fake_llm import FakeLLMServer
from tests.waits import HANG_GUARD_S

LOCAL_FIXTURE_DB = Path(__file__).resolve().parent / "fixtures" / "hermes_state_v14.db"
# A home today's Hermes (a7ef17da7, schema v21) wrote: fixtures/hermes_home_v21/README.md
HERMES_HOME_V21 = Path(__file__).resolve().parent / "fixtures" / "hermes_home_v21" / "hermes_home"


@pytest.fixture(autouse=True)
def _isolated_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test sees the developer's keys, home folder, editor or provider settings."""
    for var in (
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_BASE_URL",
        "HERMES_TUI_HOME",
        "HERMES_TUI_PROVIDER",
        "HERMES_TUI_MODEL",
        "HERMES_TUI_BASE_URL",
        "HERMES_TUI_CONTEXT_LENGTH",
        "OPENROUTER_API_KEY",
        "OPENROUTER_BASE_URL",
        "CUSTOM_BASE_URL",
    ):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", "true")  # /edit and Ctrl+E never open a real editor; the text comes back as it was
    monkeypatch.setenv("HOME", str(tmp_path / "user-home"))
    monkeypatch.setenv("HERMES_TUI_DEMO_DELAY", "0")


@pytest.fixture(autouse=True)
def _notifications_outlast_slow_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    """A toast stays until a test on a loaded machine has looked for it (Textual's default is 5 s)."""
    from textual.app import App

    monkeypatch.setattr(App, "NOTIFICATION_TIMEOUT", HANG_GUARD_S)


@pytest.fixture(autouse=True)
def _keys_handled_one_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """`pilot.press` returns once each key has been handled, however busy the machine (tests/pilot_keys.py)."""
    from textual.pilot import Pilot

    from tests.pilot_keys import press_and_settle

    monkeypatch.setattr(Pilot, "press", press_and_settle)


@pytest.fixture(autouse=True)
def _registry_without_extensions():
    """The slash commands an agent registered (its skills, its quick commands) end with the test."""
    yield
    registry = sys.modules.get("hermes_tui.core.commands.registry")
    if registry is not None:
        registry.reset_dynamic()


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    """A running loopback fake LLM server (tests/fake_llm.py) for one test; script it with `enqueue`."""
    with FakeLLMServer() as srv:
        yield srv


@pytest.fixture(scope="module")
def module_server() -> Iterator[FakeLLMServer]:
    """One fake LLM server for a whole test module (for module-scoped fixtures that run the agent)."""
    with FakeLLMServer() as srv:
        yield srv


@pytest.fixture
def home_dir(tmp_path: Path) -> Path:
    """An empty hermes-tui home folder."""
    home = tmp_path / "home"
    home.mkdir()
    return home


@pytest.fixture
def hermes_fixture_db(tmp_path: Path) -> Path:
    """A temp copy of the Hermes-written state.db (schema v14); the original stays untouched."""
    source = LOCAL_FIXTURE_DB
    target = tmp_path / "hermes-home" / "state.db"
    target.parent.mkdir()
    shutil.copyfile(source, target)
    return target


def copy_hermes_home_v21(target: Path, port: int | None = None) -> Path:
    """A private copy of the v21 Hermes home at `target` (folders 0700, files as Hermes leaves them:
    state.db and memories 0644, config.yaml and .env 0600); `port` replaces PORT in config.yaml."""
    shutil.copytree(HERMES_HOME_V21, target)
    for path in [target, *target.rglob("*")]:
        if path.is_dir():
            path.chmod(0o700)
        else:
            path.chmod(0o600 if path.name in ("config.yaml", ".env") else 0o644)
    if port is not None:
        config = target / "config.yaml"
        config.write_text(config.read_text(encoding="utf-8").replace("PORT", str(port)), encoding="utf-8")
    return target


@pytest.fixture
def hermes_home_v21(tmp_path: Path) -> Path:
    """A temp copy of the v21 Hermes home (config.yaml still says PORT; see copy_hermes_home_v21)."""
    return copy_hermes_home_v21(tmp_path / "hermes-v21")


# The fast tier (`make test-fast`): the unit tests of the store, the context (compression, tokens,
# redaction), the live session, the turn and the pure modules — no agent turn, Pilot, tmux or second
# process. A test in these places that starts one (the CLI, a fresh Python) says so with
# @pytest.mark.subprocess, one that takes seconds on its own with @pytest.mark.slow. The rest runs
# with `make test` only: the agent's functional tests (tests/core: a real Agent through the SDKs,
# about 80 s on its own here), faults, tools, providers, the Pilot and snapshot tests (tests/app,
# tests/tui) and the end-to-end ones (tests/e2e, tests/crash).
TESTS_DIR = Path(__file__).resolve().parent
FAST_TIER = frozenset(
    {
        "store",
        "context",
        "session",
        "turn",
        "test_config.py",
        "test_ui_state.py",
        "test_text_safety.py",
        "test_retry.py",
        "test_architecture.py",
    }
)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Under `-m fast` the folders and files outside the fast tier are not collected at all: importing
    every test module (Textual, the SDKs, the Pilot helpers) only to deselect them took 30 s."""
    if config.getoption("markexpr") != "fast":
        return None
    try:
        parts = collection_path.resolve().relative_to(TESTS_DIR).parts
    except ValueError:
        return None
    if not parts or parts[0] in FAST_TIER:
        return None
    return collection_path.is_dir() or (parts[0].startswith("test_") and parts[0].endswith(".py"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the fast tier's tests `fast` (run them alone with `-m fast`)."""
    for item in items:
        place = Path(item.path).resolve().relative_to(TESTS_DIR).parts[0]
        if place in FAST_TIER and not any(item.get_closest_marker(name) for name in ("subprocess", "slow")):
            item.add_marker(pytest.mark.fast)


_session_status: dict[str, int] = {}


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A test that failed before closing its database must not hang the run at exit."""
    from hermes_tui.store.connection import stop_leftover_connections

    _session_status["exit"] = int(exitstatus)
    leftover = stop_leftover_connections()
    if leftover:
        print(f"\nconftest: stopped {leftover} database connection(s) a test left open", file=sys.stderr)


def pytest_unconfigure(config: pytest.Config) -> None:
    """Last resort: report any other non-daemon thread still running and exit anyway."""
    stuck = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon and t.is_alive()]
    for thread in stuck:
        thread.join(timeout=2.0)
    stuck = [t for t in stuck if t.is_alive()]
    if stuck:
        names = ", ".join(t.name for t in stuck)
        print(f"\nconftest: threads still running at exit ({names}); exiting without waiting", file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(_session_status.get("exit", 1) or 1)
