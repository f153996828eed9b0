"""The home folder and where it is: `Home` (Hermes's layout, created 0700) and `resolve_home`.

Apart from `config` so the read commands (`hermes-tui search`, `sessions`) find state.db without
importing the settings machinery (its dataclasses alone took ~25 ms of a 0.15 s search process).
`ConfigError` lives here too, the one error type both raise; `config` re-exports all three.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from hermes_tui.store.file_modes import PRIVATE_DIR_MODE, looser_than, make_private_dir, permission_bits

DEFAULT_HOME = "~/.hermes-tui"


class ConfigError(Exception):
    """A configuration problem the user can fix; its message is one clear line."""


@dataclass(frozen=True)
class Home:
    """The home folder, laid out like Hermes's so `--home ~/.hermes` works on a real install."""

    root: Path

    @property
    def state_db(self) -> Path:
        return self.root / "state.db"

    @property
    def config_file(self) -> Path:
        return self.root / "config.toml"

    @property
    def memories(self) -> Path:
        return self.root / "memories"

    @property
    def skills(self) -> Path:
        return self.root / "skills"

    def ensure(self) -> Home:
        """Create the folders, private (0700) from the start; a home we cannot use is a ConfigError."""
        try:
            for folder in (self.root, self.memories, self.skills):
                make_private_dir(folder)
        except OSError as exc:
            raise ConfigError(f"cannot use home folder {self.root}: {exc.strerror or exc}") from None
        if not os.access(self.root, os.R_OK | os.W_OK | os.X_OK):
            raise ConfigError(f"cannot use home folder {self.root}: not readable and writable")
        return self

    def require_existing(self) -> Home:
        """For the read commands: the folder must exist and be readable (it may be read-only)."""
        if not self.root.is_dir():
            raise ConfigError(f"home folder {self.root} does not exist")
        if not os.access(self.root, os.R_OK | os.X_OK):
            raise ConfigError(f"cannot read home folder {self.root}")
        return self

    @property
    def writable(self) -> bool:
        """Can state.db be written here (the folder, and the file when it exists)?"""
        folder_ok = os.access(self.root, os.W_OK | os.X_OK)
        return folder_ok and (not self.state_db.exists() or os.access(self.state_db, os.W_OK))

    def permission_warning(self) -> str | None:
        """One line when the existing home folder lets group or others in (it should be 0700)."""
        try:
            mode = permission_bits(self.root)
        except OSError:
            return None
        if not looser_than(mode, PRIVATE_DIR_MODE):
            return None
        return (
            f"warning: home folder {self.root} is {mode:04o}, readable by other users;"
            f" `chmod 700 {self.root}` makes it private"
        )


def resolve_home(flag: str | None = None, env: Mapping[str, str] | None = None) -> Home:
    env = os.environ if env is None else env
    raw = flag or env.get("HERMES_TUI_HOME") or DEFAULT_HOME
    return Home(Path(raw).expanduser())
