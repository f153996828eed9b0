"""State.db upkeep at start-up, before the agent opens a session (reference §2.3, §2.4, §1.3).

`run_upkeep(db, sessions)` does what Hermes does when it starts:

- the orphaned-compression finalizer: a compression child left behind by a crash (its parent ended
  with "compression", it holds messages but never made an API call, it was never ended) and older
  than 7 days is ended with `orphaned_compression`, so listings and the resume projection stop
  treating it as live work;
- auto-prune, only when `[sessions] auto_prune` is on: ended sessions that started more than
  `retention_days` ago are deleted with their messages, at most once per `min_interval_hours`
  (gated on `state_meta.last_auto_prune`), then VACUUM when rows went and `vacuum_after_prune`.

It returns an `UpkeepReport`; `report.line()` is the one start-up line saying what was done
(empty when nothing was). A database error here never stops the start: it becomes the line.
"""

from __future__ import annotations

from dataclasses import dataclass

from hermes_tui.config import SessionsSettings
from hermes_tui.store.db import SessionDB
from hermes_tui.store.errors import StoreError


@dataclass(frozen=True)
class UpkeepReport:
    finalized: int = 0
    pruned: int | None = None  # None: auto-prune did not run (off, or ran less than min_interval_hours ago)
    retention_days: int = 0
    error: str = ""

    def line(self) -> str:
        parts = []
        if self.pruned:
            plural = "s" if self.pruned != 1 else ""
            parts.append(
                f"auto-prune removed {self.pruned} session{plural} ended and older than {self.retention_days} days"
            )
        if self.finalized:
            plural = "s" if self.finalized != 1 else ""
            parts.append(f"finished {self.finalized} orphaned compression session{plural} left by a crash")
        if self.error:
            parts.append(f"state.db upkeep skipped: {self.error}")
        return "; ".join(parts)


async def run_upkeep(db: SessionDB, sessions: SessionsSettings) -> UpkeepReport:
    if db.read_only:
        return UpkeepReport()
    finalized = 0
    try:
        finalized = await db.finalize_orphaned_compression_sessions()
        pruned = None
        if sessions.auto_prune:
            pruned = await db.maybe_auto_prune_and_vacuum(
                retention_days=sessions.retention_days,
                min_interval_hours=sessions.min_interval_hours,
                vacuum=sessions.vacuum_after_prune,
            )
    except StoreError as exc:
        return UpkeepReport(finalized=finalized, error=str(exc).splitlines()[0] if str(exc) else "database error")
    return UpkeepReport(finalized=finalized, pruned=pruned, retention_days=sessions.retention_days)
