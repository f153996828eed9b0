"""Small UI choices that outlive a run (today: the theme), in `<home>/tui_state.json`, 0600.

`load_ui_state(home_root)` never fails: a missing, unreadable or damaged file is an empty state.
`save_ui_state(home_root, state)` writes a private temporary file and renames it over the old one
(a crash leaves the old file or the new one, never half of one); it returns an error line instead
of raising. No Textual here: the app decides which theme names are valid.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from hermes_tui.store.file_modes import write_private_text
from hermes_tui.store.regular_files import read_regular_text

STATE_FILE = "tui_state.json"
THEME_KEY = "theme"
MAX_STATE_BYTES = 1 << 20  # a few choices; anything larger is not ours


def state_path(home_root: Path) -> Path:
    return home_root / STATE_FILE


def load_ui_state(home_root: Path) -> dict[str, Any]:
    """The saved state ({} when there is none or it cannot be read)."""
    try:
        data = json.loads(read_regular_text(state_path(home_root), limit=MAX_STATE_BYTES))
    except (OSError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def saved_theme(home_root: Path) -> str | None:
    theme = load_ui_state(home_root).get(THEME_KEY)
    return theme if isinstance(theme, str) and theme else None


def save_ui_state(home_root: Path, state: dict[str, Any]) -> str:
    """Write `state`; returns "" or a one-line error."""
    path = state_path(home_root)
    temporary = path.with_name(f".{STATE_FILE}.{os.getpid()}.tmp")
    try:
        temporary.unlink(missing_ok=True)
        write_private_text(temporary, json.dumps(state, indent=2, sort_keys=True) + "\n")
        os.replace(temporary, path)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        return f"could not save {path.name}: {exc.strerror or exc}"
    return ""


def save_theme(home_root: Path, theme: str) -> str:
    """Remember `theme` (keeping any other saved choice); "" or a one-line error."""
    state = load_ui_state(home_root)
    if state.get(THEME_KEY) == theme:
        return ""
    state[THEME_KEY] = theme
    return save_ui_state(home_root, state)
