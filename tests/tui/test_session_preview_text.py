"""The Sessions preview's text: what a user reads about the highlighted session."""

from __future__ import annotations

from datetime import UTC

from hermes_tui.store.preview import SessionPreview
from hermes_tui.widgets.session_preview import preview_text

START = 1_764_590_400.0  # 2025-12-01 12:00 UTC


def preview(**changes: object) -> SessionPreview:
    fields: dict[str, object] = {
        "id": "20251201_120000_abcdef",
        "title": "deploy notes",
        "started_at": START,
        "ended_at": None,
        "end_reason": None,
        "last_active": START + 600,
        "message_count": 12,
        "input_tokens": 4_200,
        "output_tokens": 310,
        "archived": False,
        "compressions_before": 0,
        "compressions_after": 0,
        "first_user": "how do we deploy?",
        "last_user": "and roll back?",
    }
    fields.update(changes)
    return SessionPreview(**fields)  # type: ignore[arg-type]


def test_activity_reads_as_now_or_as_an_age() -> None:
    just_now = preview_text(preview(), now=START + 630, zone=UTC).plain
    assert "active  now\n" in just_now and "now ago" not in just_now
    later = preview_text(preview(), now=START + 600 + 3 * 3600, zone=UTC).plain
    assert "active  3h ago" in later


def test_the_first_and_last_user_messages_and_the_counts_are_shown_as_data() -> None:
    text = preview_text(preview(last_user="\x1b]0;pwned\x07 roll back"), now=START + 700, zone=UTC).plain
    assert "first “how do we deploy?”" in text
    assert "\x1b" not in text and "roll back" in text
    assert "12 msgs" in text and "started 2025-12-01 12:00" in text
