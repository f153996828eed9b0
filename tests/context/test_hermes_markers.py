"""Hermes's exact handoff markers, both ways: we write the bytes Hermes wrote, and we recognise every
form Hermes has written (current, frozen older prefixes, legacy, merged into a message, old and new)."""

from __future__ import annotations

import pytest

from hermes_tui.core.context import SUMMARY_END_MARKER, SUMMARY_PREFIX, ContextCompressor
from hermes_tui.core.context.markers import (
    HISTORICAL_SUMMARY_PREFIXES,
    LEGACY_SUMMARY_PREFIX,
    MERGED_PRIOR_CONTEXT_HEADER,
    MERGED_SUMMARY_DELIMITER,
    split_summary_message,
    strip_summary_prefix,
)
from hermes_tui.store.models import is_summary_text
from tests.hermes_v21 import CHAIN_TIP, IN_PLACE, v21_message

from .helpers import RecordingSummarizer, assistant, conversation, text_of, user

BODY = "## Active Task\nChoose a database.\n## Key Decisions\nsqlite for now"


def test_the_summary_hermes_wrote_is_our_prefix_body_and_end_marker_byte_for_byte() -> None:
    stored = v21_message(CHAIN_TIP, 0)
    assert stored == f"{SUMMARY_PREFIX}\n{BODY}\n\n{SUMMARY_END_MARKER}"


async def test_a_summary_we_write_starts_with_hermes_prefix_and_ends_with_its_end_marker() -> None:
    hermes_prefix = v21_message(CHAIN_TIP, 0).split("\n", 1)[0]  # the prefix line, as Hermes wrote it
    compressor = ContextCompressor(200_000, summarize=RecordingSummarizer(reply=BODY))
    out = await compressor.compress(conversation(12))
    handoffs = [text_of(m) for m in out if is_summary_text(text_of(m))]
    assert len(handoffs) == 1
    assert handoffs[0].startswith(hermes_prefix + "\n" + BODY)
    assert handoffs[0].endswith("\n\n" + SUMMARY_END_MARKER)


def _merged_now(prior: str, body: str) -> str:
    """A summary merged into a message the way today's Hermes writes it."""
    summary = f"{SUMMARY_PREFIX}\n{body}\n\n{SUMMARY_END_MARKER}"
    return f"{MERGED_PRIOR_CONTEXT_HEADER}\n{prior}\n\n{MERGED_SUMMARY_DELIMITER}\n\n{summary}"


FORMS = {
    "current": (f"{SUMMARY_PREFIX}\n{BODY}\n\n{SUMMARY_END_MARKER}", ""),
    "legacy": (f"{LEGACY_SUMMARY_PREFIX} {BODY}", ""),
    "merged, today": (_merged_now("what about migrations?", BODY), "what about migrations?"),
    "merged, before July": (f"{SUMMARY_PREFIX}\n{BODY}\n\n{SUMMARY_END_MARKER}\n\nwhat now?", "what now?"),
    **{f"frozen #{i}": (f"{prefix}\n{BODY}", "") for i, prefix in enumerate(HISTORICAL_SUMMARY_PREFIXES)},
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_every_form_hermes_wrote_is_a_summary_with_its_body_and_message_apart(form: str) -> None:
    text, remainder = FORMS[form]
    assert is_summary_text(text)
    assert split_summary_message(text) == (BODY, remainder)
    assert strip_summary_prefix(text).startswith(BODY)


def test_the_prior_context_header_alone_is_not_a_summary() -> None:
    assert not is_summary_text(f"{MERGED_PRIOR_CONTEXT_HEADER}\njust a quote")
    assert not is_summary_text(f"{MERGED_PRIOR_CONTEXT_HEADER}\nx\n\n{MERGED_SUMMARY_DELIMITER}\n\nno summary here")


async def test_a_merged_hermes_summary_is_the_previous_summary_not_an_ordinary_turn() -> None:
    messages = conversation(3)
    old_body = "## Active Task\nNone\n## Goal\nOld goal: migrate."
    messages.insert(4, user(_merged_now("and keep the tests green", old_body)))
    messages.insert(5, assistant("Will do."))
    messages += conversation(8)[1:]
    summarizer = RecordingSummarizer()
    await ContextCompressor(200_000, summarize=summarizer).compress(messages)
    prompt = summarizer.prompts[0]
    previous = prompt.split("PREVIOUS SUMMARY:\n", 1)[1].split("\n\nNEW TURNS TO INCORPORATE:")[0]
    assert previous == "## Active Task\nNone\n## Goal\nOld goal: migrate."
    assert "[USER]: and keep the tests green" in prompt  # the message it was merged into is a turn
    assert MERGED_PRIOR_CONTEXT_HEADER not in prompt and MERGED_SUMMARY_DELIMITER not in prompt


async def test_hermes_in_place_compaction_rows_rehydrate_as_the_previous_summary() -> None:
    live = [user(v21_message(IN_PLACE, 0)), user(v21_message(IN_PLACE, 1)), assistant(v21_message(IN_PLACE, 2))]
    messages = [*live, *conversation(10)[1:]]
    summarizer = RecordingSummarizer()
    await ContextCompressor(200_000, protect_first_n=0, summarize=summarizer).compress(messages)
    previous = summarizer.prompts[0].split("PREVIOUS SUMMARY:\n", 1)[1].split("\n\nNEW TURNS TO INCORPORATE:")[0]
    assert previous.startswith("## Active Task\nRefactor auth.py token refresh.")
    assert SUMMARY_END_MARKER not in previous and "REFERENCE ONLY" not in previous
