"""Usage over time from state.db (`/insights [days]`): sessions, messages, tokens, cost, models, tools, days.

One read over the sessions started in the window (Hermes's token and cost columns, summed) and
their messages (counts by role, tool calls by tool name), plus the tokens per day. Costs are the
`estimated_cost_usd` Hermes and hermes-tui store per session; sessions without one are counted
so the report can say the total is partial. Returns plain data (`UsageInsights`).
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass, field

from hermes_tui.store.base import StoreBase

DAY_S = 86_400
TOP_TOOLS = 8

_TOTALS_SQL = """
SELECT COUNT(*), COALESCE(SUM(message_count), 0), COALESCE(SUM(api_call_count), 0),
       COALESCE(SUM(input_tokens), 0), COALESCE(SUM(output_tokens), 0),
       COALESCE(SUM(cache_read_tokens), 0), COALESCE(SUM(cache_write_tokens), 0),
       COALESCE(SUM(estimated_cost_usd), 0), SUM(CASE WHEN estimated_cost_usd IS NULL
           AND COALESCE(api_call_count, 0) > 0 THEN 1 ELSE 0 END)
FROM sessions WHERE started_at >= ?
"""
_MODELS_SQL = """
SELECT COALESCE(model, '(unknown)'), COUNT(*),
       COALESCE(SUM(input_tokens), 0) + COALESCE(SUM(cache_read_tokens), 0) + COALESCE(SUM(cache_write_tokens), 0),
       COALESCE(SUM(output_tokens), 0), COALESCE(SUM(estimated_cost_usd), 0)
FROM sessions WHERE started_at >= ? GROUP BY 1 ORDER BY 3 DESC
"""
_DAYS_SQL = """
SELECT CAST((started_at - ?) / 86400 AS INTEGER),
       COALESCE(SUM(input_tokens), 0) + COALESCE(SUM(cache_read_tokens), 0) + COALESCE(SUM(cache_write_tokens), 0)
       + COALESCE(SUM(output_tokens), 0), COUNT(*)
FROM sessions WHERE started_at >= ? GROUP BY 1
"""
_TOOLS_SQL = """
SELECT m.tool_name, COUNT(*) FROM messages m JOIN sessions s ON s.id = m.session_id
WHERE s.started_at >= ? AND m.role = 'tool' AND m.tool_name IS NOT NULL
GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ?
"""
_ROLES_SQL = """
SELECT m.role, COUNT(*) FROM messages m JOIN sessions s ON s.id = m.session_id
WHERE s.started_at >= ? GROUP BY 1
"""


@dataclass(frozen=True)
class ModelUsage:
    model: str
    sessions: int
    input_tokens: int  # prompt tokens, cached ones included
    output_tokens: int
    cost_usd: float


@dataclass(frozen=True)
class UsageInsights:
    days: int
    since: float
    sessions: int = 0
    messages: int = 0
    api_calls: int = 0
    input_tokens: int = 0  # uncached prompt tokens
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float = 0.0
    sessions_without_cost: int = 0  # sessions that made calls but have no stored cost
    messages_by_role: dict[str, int] = field(default_factory=dict)
    models: tuple[ModelUsage, ...] = ()
    tools: tuple[tuple[str, int], ...] = ()
    tokens_per_day: tuple[int, ...] = ()  # oldest day first, one entry per day of the window
    sessions_per_day: tuple[int, ...] = ()

    @property
    def prompt_tokens(self) -> int:
        return self.input_tokens + self.cache_read_tokens + self.cache_write_tokens

    @property
    def cache_hit_rate(self) -> float | None:
        return self.cache_read_tokens / self.prompt_tokens if self.prompt_tokens else None


def read_insights(conn: sqlite3.Connection, days: int, now: float) -> UsageInsights:
    since = now - days * DAY_S
    cursor = conn.cursor()
    cursor.row_factory = None
    (count, messages, calls, uncached, output, cache_read, cache_write, cost, no_cost) = cursor.execute(
        _TOTALS_SQL, (since,)
    ).fetchone()
    models = tuple(
        ModelUsage(str(row[0]), int(row[1]), int(row[2]), int(row[3]), float(row[4]))
        for row in cursor.execute(_MODELS_SQL, (since,))
    )
    tokens_per_day = [0] * days
    sessions_per_day = [0] * days
    for day, tokens, sessions in cursor.execute(_DAYS_SQL, (since, since)):
        if 0 <= int(day) < days:
            tokens_per_day[int(day)] += int(tokens)
            sessions_per_day[int(day)] += int(sessions)
    tools = tuple((str(name), int(n)) for name, n in cursor.execute(_TOOLS_SQL, (since, TOP_TOOLS)))
    roles = {str(role): int(n) for role, n in cursor.execute(_ROLES_SQL, (since,))}
    return UsageInsights(
        days=days,
        since=since,
        sessions=int(count),
        messages=int(messages),
        api_calls=int(calls),
        input_tokens=int(uncached),
        output_tokens=int(output),
        cache_read_tokens=int(cache_read),
        cache_write_tokens=int(cache_write),
        cost_usd=float(cost),
        sessions_without_cost=int(no_cost or 0),
        messages_by_role=roles,
        models=models,
        tools=tools,
        tokens_per_day=tuple(tokens_per_day),
        sessions_per_day=tuple(sessions_per_day),
    )


class InsightsMixin(StoreBase):
    async def usage_insights(self, days: int = 30, now: float | None = None) -> UsageInsights:
        """Usage of the sessions started in the last `days` days (1..3650)."""
        if not 1 <= days <= 3650:
            raise ValueError("days must be between 1 and 3650")
        moment = time.time() if now is None else now
        return await self._conns.read(lambda conn: read_insights(conn, days, moment))
