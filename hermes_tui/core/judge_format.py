"""The goal judge's prompt markers, shared by the goal keeper (`core.goals`) and the offline demo
model (`core.providers.demo_judge`), which must recognise a judge prompt and find the answer in it."""

from __future__ import annotations

JUDGE_TAG = "[GOAL JUDGE]"  # the judge prompt starts with it
ANSWER_LABEL = "LATEST ANSWER:"  # the answer under judgement follows it
