"""The offline demo model's answer to a goal judge prompt (`hermes_tui.core.goals`), so /goal works offline.

Deterministic: the goal counts as done when the answer under judgement reports a finished piece
of work (a tool's result, or words like "done"/"finished"); otherwise the agent should continue.
"""

from __future__ import annotations

import json
import re

from hermes_tui.core.judge_format import ANSWER_LABEL, JUDGE_TAG

_DONE_WORDS = re.compile(r"\b(done|finished|complete[d]?|here is what the tool returned)\b", re.IGNORECASE)


def is_judge_prompt(text: str) -> bool:
    return text.startswith(JUDGE_TAG)


def demo_verdict(prompt: str) -> str:
    """One JSON line: done when the latest answer reports finished work, else continue."""
    answer = prompt.rpartition(ANSWER_LABEL)[2]
    if _DONE_WORDS.search(answer):
        return json.dumps({"verdict": "done", "reason": "the latest answer reports the work as finished"})
    return json.dumps({"verdict": "continue", "reason": "the latest answer does not show the goal reached yet"})
