"""Review runs as state_meta records, so the Review log and the Sessions tree survive a restart.

Key: "review:<session id>:<run id>" (run ids sort by start time). Value: JSON with the session, the
start and end times, what was due, the actions, the summary line, the diff of the files, the fork's
tool calls (name, arguments, result, error flag), its API calls and any error, secrets masked.
`review_nodes` turns records into leaves of the lineage tree under their session.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from hermes_tui.core.context.redact_records import redact_json_text
from hermes_tui.store.models import EDGE_REVIEW, LineageNode

if TYPE_CHECKING:
    from hermes_tui.store.db import SessionDB

KEY_PREFIX = "review:"
HISTORY_LIMIT = 200


def new_run_id(now: float | None = None) -> str:
    return f"{int((now or time.time()) * 1000):013x}-{uuid.uuid4().hex[:6]}"


@dataclass
class ReviewRecord:
    session_id: str
    run_id: str
    started_at: float
    finished_at: float = 0.0
    memory_due: bool = False
    skills_due: bool = False
    actions: list[str] = field(default_factory=list)
    summary: str = ""
    diff: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    api_calls: int = 0
    error: str = ""

    @property
    def key(self) -> str:
        return f"{KEY_PREFIX}{self.session_id}:{self.run_id}"

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> ReviewRecord | None:
        try:
            data = json.loads(text)
            known = {name: data[name] for name in cls.__dataclass_fields__ if name in data}
            return cls(**known)
        except (ValueError, TypeError, KeyError):
            return None


async def save_record(db: SessionDB, record: ReviewRecord) -> None:
    await db.set_meta(record.key, redact_json_text(record.to_json()))  # secrets masked, as in every stored row


async def load_records(db: SessionDB, limit: int = HISTORY_LIMIT) -> list[ReviewRecord]:
    """The newest `limit` review runs, oldest first (unreadable records are skipped)."""
    rows = await db.meta_with_prefix(KEY_PREFIX, limit=limit * 4)
    records = [r for r in (ReviewRecord.from_json(value) for _key, value in rows) if r is not None]
    records.sort(key=lambda r: r.started_at)
    return records[-limit:]


def review_nodes(records: list[ReviewRecord], session_ids: set[str]) -> list[LineageNode]:
    """Review runs of sessions in the tree, as leaves under their session."""
    nodes = []
    for record in records:
        if record.session_id not in session_ids:
            continue
        label = " · ".join(record.actions) or ("review failed" if record.error else "review: nothing to save")
        nodes.append(
            LineageNode(
                id=record.key,
                parent_id=record.session_id,
                edge=EDGE_REVIEW,
                title=label,
                source="review",
                model=None,
                started_at=record.started_at,
                ended_at=record.finished_at or None,
                end_reason="review",
                message_count=len(record.tool_calls),
                last_active=record.finished_at or record.started_at,
                preview=label,
            )
        )
    return nodes
