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
    def has_compacted_column(self) -> bool:
        """Whether `messages.compacted` exists (every file we write; a v14 file read as it is has none)."""
        return self._conns.schema.compacted

    def visible_rows_sql(self, alias: str = "m") -> str:
        """The rows search and the record show: live ones and those an in-place compaction archived
        (`compacted = 1`), never rewound ones (`active = 0, compacted = 0`), as Hermes's search."""
        prefix = f"{alias}." if alias else ""
        if not self.has_compacted_column:
            return f"{prefix}active = 1"
        return f"({prefix}active = 1 OR {prefix}compacted = 1)"

    @property
    def journal_mode(self) -> str:
        return self._conns.journal_mode


def row_dict(row: sqlite3.Row | None) -> dict[str, Any] | None:
    return None if row is None else dict(row)


def escape_like(text: str) -> str:
    """`text` with LIKE wildcards escaped for `ESCAPE '\\'`."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
