"""Checkpoint records in state_meta: which turn each snapshot belongs to, so /rollback survives a restart.

Key: "checkpoint:<session id>:<seq>" with `seq` counting the session's checkpoints from 000001 (so
the keys of a session sort in the order they were taken). Value: JSON with

    seq, session_id         where it is filed
    message_id, turn        the state.db id of the turn's user message and its number (#N, as /history)
    prompt                  the first 80 characters of that message
    created_at              Unix time
    workdir, commit, tree   the folder and its snapshot in the shadow store (restores use the tree,
                            which pruning never rewrites)
    files, added, removed   what changed in the folder since the previous snapshot of it
    left_out                how many files were over the size cap
    kind                    "turn" (before the turn's first file change) or "rewind" (taken by a
                            /rollback before it restored: restoring this one undoes that rollback)
    restored                for "rewind": the key of the checkpoint that was restored

Unreadable values are skipped, never fatal.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hermes_tui.store.db import SessionDB

KEY_PREFIX = "checkpoint:"
KIND_TURN = "turn"
KIND_REWIND = "rewind"


@dataclass(frozen=True)
class CheckpointRecord:
    seq: int
    session_id: str
    message_id: int | None
    turn: int
    prompt: str
    created_at: float
    workdir: str
    commit: str
    tree: str
    files: int = 0
    added: int = 0
    removed: int = 0
    left_out: int = 0
    kind: str = KIND_TURN
    restored: str = ""

    @property
    def key(self) -> str:
        return record_key(self.session_id, self.seq)

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> CheckpointRecord | None:
        try:
            data: Any = json.loads(text)
            if not isinstance(data, dict):
                return None
            known = {name: data[name] for name in cls.__dataclass_fields__ if name in data}
            record = cls(**known)
        except (ValueError, TypeError):
            return None
        if not isinstance(record.tree, str) or not isinstance(record.seq, int):
            return None
        return record


def record_key(session_id: str, seq: int) -> str:
    return f"{KEY_PREFIX}{session_id}:{seq:06d}"


async def load_session_records(db: SessionDB, session_id: str) -> list[CheckpointRecord]:
    """The session's checkpoint records, oldest first."""
    rows = await db.meta_with_prefix(f"{KEY_PREFIX}{session_id}:", limit=100_000)
    records = [r for r in (CheckpointRecord.from_json(value) for _key, value in rows) if r is not None]
    return sorted(records, key=lambda r: r.seq)


async def save_record(db: SessionDB, record: CheckpointRecord) -> None:
    await db.set_meta(record.key, record.to_json())
