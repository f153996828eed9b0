"""The shared base of the SessionDB parts: access to the connections and small row helpers."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from hermes_tui.store.connection import StoreConnections


class StoreBase:
    """Every SessionDB part (sessions, messages, lineage, search...) reads and writes through this."""

    _conns: StoreConnections

    @property
    def path(self) -> Path:
        return self._conns.path

    @property
    def fts_available(self) -> bool:
        return self._conns.schema.fts_available

    @property
    def trigram_available(self) -> bool:
        return self._conns.schema.trigram_available

    @property
    def journal_mode(self) -> str:
        return self._conns.journal_mode


def row_dict(row: sqlite3.Row | None) -> dict[str, Any] | None:
    return None if row is None else dict(row)


def escape_like(text: str) -> str:
    """`text` with LIKE wildcards escaped for `ESCAPE '\\'`."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
