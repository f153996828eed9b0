"""Sample sessions, messages and budgets for TUI tests and snapshots (mirrors the fixture DB)."""

from __future__ import annotations

import json
from typing import Any

from hermes_tui.core.events import ContextBudget
from hermes_tui.store.models import EDGE_BRANCH, EDGE_COMPRESSION, EDGE_OTHER, EDGE_ROOT, LineageNode

from .helpers import FIXED_EPOCH

HOUR = 3600.0


def node(
    session_id: str,
    parent: str | None,
    edge: str,
    title: str | None,
    *,
    hours_ago: float,
    messages: int = 4,
    end_reason: str | None = None,
    preview: str = "",
) -> LineageNode:
    started = FIXED_EPOCH - hours_ago * HOUR
    return LineageNode(
        id=session_id,
        parent_id=parent,
        edge=edge,
        title=title,
        source="cli",
        model="demo-model",
        started_at=started,
        ended_at=None if end_reason is None else started + 600,
        end_reason=end_reason,
        message_count=messages,
        last_active=started + 300,
        preview=preview,
    )


AUTH_ROOT = "20261126_201200_0e10db"
AUTH_2 = "20261126_202200_879ffb"
AUTH_3 = "20261126_203200_2c1332"
DB_ROOT = "20261126_211200_90f304"
DB_BRANCH = "20261126_211340_ea45ab"
LOOSE = "20261126_221200_95d92f"
REVIEW_FORK = "20261126_212000_77aa01"


def sample_lineage() -> list[LineageNode]:
    """A compression chain (3 sessions), a branch, a review fork and an untitled session."""
    return [
        node(AUTH_ROOT, None, EDGE_ROOT, "refactor auth", hours_ago=2.0, messages=16, end_reason="compression"),
        node(AUTH_2, AUTH_ROOT, EDGE_COMPRESSION, "refactor auth #2", hours_ago=1.8, end_reason="compression"),
        node(AUTH_3, AUTH_2, EDGE_COMPRESSION, "refactor auth #3", hours_ago=1.6),
        node(DB_ROOT, None, EDGE_ROOT, "pick a database", hours_ago=1.0, messages=2, end_reason="branched"),
        node(DB_BRANCH, DB_ROOT, EDGE_BRANCH, "pick a database (postgres branch)", hours_ago=0.9),
        node(REVIEW_FORK, DB_ROOT, EDGE_OTHER, None, hours_ago=0.8, messages=3, preview="background review"),
        node(LOOSE, None, EDGE_ROOT, None, hours_ago=0.05, preview="what is the capital of France?"),
    ]


def tool_call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def sample_history() -> list[dict[str, Any]]:
    """A short session: a question, a tool call with its result, and a Markdown answer."""
    return [
        {"role": "system", "content": "You are Hermes."},
        {"role": "user", "content": "What does README.md say about installing?"},
        {
            "role": "assistant",
            "content": "Let me read it.",
            "tool_calls": [tool_call("call_1", "read_file", {"path": "README.md"})],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "     1|# hermes-tui\n     2|Run `make run`."},
        {
            "role": "assistant",
            "content": "The README says to run **`make run`** — that creates the venv and starts the app.",
        },
    ]


def budget(
    shown: int = 41_200,
    *,
    window: int = 128_000,
    threshold: int = 64_000,
    estimate: bool = False,
    **extra: Any,
) -> ContextBudget:
    return ContextBudget(
        context_length=window,
        threshold_tokens=threshold,
        reported_prompt_tokens=0 if estimate else shown,
        estimated_tokens=shown,
        shown_tokens=shown,
        is_estimate=estimate,
        **extra,
    )
