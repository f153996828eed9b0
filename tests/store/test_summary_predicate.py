"""One predicate decides what a compaction summary is, for the compressor, the store, export and the UI."""

from __future__ import annotations

from hermes_tui.core.context.markers import HISTORICAL_SUMMARY_PREFIXES, LEGACY_SUMMARY_PREFIX, SUMMARY_PREFIX
from hermes_tui.store.models import is_summary_text


def test_every_summary_header_the_compressor_writes_or_reads_is_recognised() -> None:
    for header in (SUMMARY_PREFIX, LEGACY_SUMMARY_PREFIX, *HISTORICAL_SUMMARY_PREFIXES):
        assert is_summary_text(f"  {header}\n## Active Task\nship it")


def test_ordinary_messages_are_not_summaries() -> None:
    for text in ("[CONTEXT] is a word", "Summary of the call", "", "## Active Task"):
        assert not is_summary_text(text)
