"""The three review prompts (memory, skills, both), written for hermes-tui with Hermes's intent.

Each asks the fork to look back over the conversation it was handed and to act — or to answer with
the exact phrase `NOTHING_TO_SAVE` when nothing qualifies (the phrase is a marker both Hermes and we
look for, so it must stay as it is). Every prompt ends with `TOOLS_ONLY_LINE`.
"""

from __future__ import annotations

NOTHING_TO_SAVE = "Nothing to save."

TOOLS_ONLY_LINE = (
    "Only the memory and skill tools (memory, skill_view, skill_manage) work in this review; any other "
    "tool call is refused, so do not try one."
)

MEMORY_REVIEW = f"""Pause the task and look back over this conversation as a whole. Is there anything about the \
user that a future session should know from the start?

Worth keeping (memory tool, target "user"): who the user is, what they work on, the way they like answers \
(length, tone, format, language), conventions they insisted on, things they corrected you about or \
were visibly frustrated by, and the standards they hold their work to.

Worth keeping (memory tool, target "memory"): durable facts about their machines, projects and tools \
that you had to discover the hard way.

Not worth keeping: what happened in this one task, temporary state, anything you can read again from \
the files, secrets or credentials, guesses about the user, and anything already in memory (update or \
merge an entry instead of adding a near-duplicate; remove entries that turned out wrong).

Make the changes with the memory tool, keeping each entry short. If nothing qualifies, reply with \
exactly "{NOTHING_TO_SAVE}" and stop.

{TOOLS_ONLY_LINE}"""

SKILL_REVIEW = f"""Pause the task and look back over this conversation. Did it teach a way of doing a whole \
class of task that should be a skill?

Look for: a procedure that took several attempts to get right, a fix to the setup or environment you \
had to find, a correction from the user about how the work should be done (style, verbosity, the order \
of steps, what to check before finishing — these count as much as technical fixes), and skills you \
loaded that were wrong, incomplete or missing a pitfall.

Act on it: create a skill for the class of task (not for this one instance) with a clear description \
of when to use it, the steps, the pitfalls and how to verify the result, with longer material in \
references/; or patch the existing skill that should have covered it. Check the skills index first so \
you do not create a near-duplicate.

Lean towards improving a skill when the conversation shows friction; answer exactly "{NOTHING_TO_SAVE}" \
only when it truly taught nothing reusable.

{TOOLS_ONLY_LINE}"""

COMBINED_REVIEW = f"""Pause the task and look back over this conversation. Two things may be worth keeping \
for future sessions; handle each with its tool.

1. Memory (memory tool) — who the user is: their role and projects, how they like answers and work \
done, conventions they insisted on, corrections they made; plus durable facts about their environment \
("memory" target). Keep entries short; update or merge instead of duplicating; never store secrets, \
one-off task details or guesses.

2. Skills (skill_manage) — how to do this class of task: be active here. If the work needed several \
attempts, an environment fix, or a correction of style or approach from the user, capture it as a \
skill (SKILL.md for the procedure and pitfalls, references/ for longer material) or patch the skill \
that fell short. Write for the class of task, not for this instance, and check the skills index first.

If neither has anything worth keeping, reply with exactly "{NOTHING_TO_SAVE}" and stop.

{TOOLS_ONLY_LINE}"""


def review_prompt(memory_due: bool, skills_due: bool) -> str:
    """The prompt for what is due: both, memory only, or skills only."""
    if memory_due and skills_due:
        return COMBINED_REVIEW
    return MEMORY_REVIEW if memory_due else SKILL_REVIEW
