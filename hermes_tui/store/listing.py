"""The session listing (`list_sessions_rich`, reference §2.5) behind /resume, /sessions and the CLI.

Rules: archived sessions are excluded unless asked; child sessions are hidden except branch
children (parent ended "branched", child started after); a compression root is shown as its
tip (the tip's id, title, counters, activity and preview, the root's `started_at`, plus
`_lineage_root_id`); ordering by last activity follows compression edges so a chain sorts by
its tip. Every row carries `last_active`, `preview` and `lineage_root_id` (the topmost ancestor).
Selection and ordering run on the in-memory lineage index; the page's rows are read fresh.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hermes_tui.store.codec import clipped_content_sql, preview_of
from hermes_tui.store.connection import placeholders
from hermes_tui.store.lineage_index import LineageIndex, LineageIndexMixin

# Fields a compression root takes from its tip in the listing (the root keeps started_at).
TIP_FIELDS = (
    "id",
    "ended_at",
    "end_reason",
    "message_count",
    "tool_call_count",
    "title",
    "last_active",
    "preview",
    "model",
    "system_prompt",
    "cwd",
)

_DETAILS_SQL = """
SELECT s.*,
       (SELECT MAX(m.timestamp) FROM messages m WHERE m.session_id = s.id) AS last_message_at,
       (SELECT {clipped}
          FROM messages m WHERE m.session_id = s.id AND m.role = 'user' AND m.active = 1
          ORDER BY m.timestamp, m.id LIMIT 1) AS first_user
FROM sessions s WHERE s.id IN ({marks})
""".replace("{clipped}", clipped_content_sql("m.content", 200))


def _as_list(value: str | Sequence[str] | None) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]


def _ordered_ids(
    index: LineageIndex,
    sources: Sequence[str],
    excluded: Sequence[str],
    include_archived: bool,
    include_children: bool,
    order_by_last_active: bool,
) -> list[str]:
    """Every session the listing may show, best first (one pass over the index)."""
    sessions, activity, tips = index.sessions, index.activity, index.tips()
    wanted, unwanted = set(sources), set(excluded)
    keyed: list[tuple[float, str]] = []
    for sid in index.sessions if include_children else index.listed():
        row = sessions[sid]
        if (row.archived and not include_archived) or (wanted and row.source not in wanted) or row.source in unwanted:
            continue
        if order_by_last_active:
            # A compression chain sorts by its tip's activity (whether or not it is projected).
            tip = tips[sid]
            newest = activity.get(tip)
            keyed.append((newest if newest is not None else sessions[tip].started_at, sid))
        else:
            keyed.append((row.started_at, sid))
    keyed.sort(reverse=True)
    return [sid for _, sid in keyed]


class ListingMixin(LineageIndexMixin):
    _ordering_cache: tuple[tuple[object, ...], list[str]] | None = None

    async def list_sessions_rich(
        self,
        limit: int | None = 20,
        offset: int = 0,
        source_filter: str | Sequence[str] | None = None,
        exclude_sources: Sequence[str] | None = None,
        include_archived: bool = False,
        project_compression_tips: bool = True,
        order_by_last_active: bool = True,
        include_children: bool = False,
    ) -> list[dict[str, Any]]:
        """Recent sessions for pickers and listings (see the module docstring). `limit=None`: all."""
        index = await self.lineage_index()
        ordering_key = (
            id(index),
            index.version,
            tuple(sorted(_as_list(source_filter))),
            tuple(sorted(_as_list(exclude_sources))),
            include_archived,
            include_children,
            order_by_last_active,
        )
        cached = self._ordering_cache
        if cached is not None and cached[0] == ordering_key:
            ordered = cached[1]
        else:
            ordered = _ordered_ids(
                index, ordering_key[2], ordering_key[3], include_archived, include_children, order_by_last_active
            )
            self._ordering_cache = (ordering_key, ordered)
        start = max(0, int(offset))
        chosen = ordered[start:] if limit is None else ordered[start : start + max(0, int(limit))]
        page = [(sid, index.tip(sid) if project_compression_tips else sid) for sid in chosen]
        if not page:
            return []
        return await self._listing_rows(page, project_compression_tips, index, include_archived)

    async def _listing_rows(
        self, page: list[tuple[str, str]], project: bool, index: LineageIndex, include_archived: bool
    ) -> list[dict[str, Any]]:
        wanted = sorted({sid for pair in page for sid in pair})
        details: dict[str, dict[str, Any]] = {}
        for row in await self._conns.fetchall(_DETAILS_SQL.format(marks=placeholders(wanted)), wanted):
            entry = dict(row)
            entry["last_active"] = entry.pop("last_message_at") or entry["started_at"]
            first_user = entry.pop("first_user")
            entry["preview"] = preview_of(first_user) if first_user else ""
            details[entry["id"]] = entry

        result: list[dict[str, Any]] = []
        for root_id, tip_id in page:
            root = details.get(root_id)
            if root is None or (root["archived"] and not include_archived):
                continue  # deleted or archived by another process since the index last saw it
            item = dict(root)
            if project and tip_id != root_id and tip_id in details:
                tip = details[tip_id]
                for field in TIP_FIELDS:
                    item[field] = tip[field]
                item["_lineage_root_id"] = root_id
            item["lineage_root_id"] = index.root(root_id) if root_id in index.sessions else root_id
            result.append(item)
        return result
