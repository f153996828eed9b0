"""What the prompt reads from the app it runs in: the home's history file, the working folder, the store.

The prompt is a widget and does not know the app that hosts it; `PromptSources` asks it, by the
attribute names HermesApp has (`home`, `cwd`, `agent` with its `cwd` and `db`), as the session
palette does. In a host without them (a test app, another program) there is no history file, the
working folder is the process's, and `@session:` has nothing to offer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hermes_tui.core.prompt_history import history_path


class PromptSources:
    """Looked up each time: the agent appears once the app has started it."""

    def __init__(self, app: Any) -> None:
        self._app = app

    @property
    def history_file(self) -> Path | None:
        root = getattr(getattr(self._app, "home", None), "root", None)
        return history_path(Path(root)) if root is not None else None

    @property
    def cwd(self) -> Path:
        agent_cwd = getattr(getattr(self._app, "agent", None), "cwd", None)
        if agent_cwd is not None:
            return Path(agent_cwd)
        app_cwd = getattr(self._app, "cwd", None)
        return Path(app_cwd or Path.cwd()).resolve()

    @property
    def turn_running(self) -> bool:
        """Whether a turn runs now (Alt+Enter then sends in the other busy-input mode)."""
        return bool(getattr(getattr(self._app, "turns", None), "turn_running", False))

    @property
    def db(self) -> Any:
        return getattr(getattr(self._app, "agent", None), "db", None)
