"""Background self-review: after a qualifying turn, a narrow fork of the agent looks back at the
conversation and saves what is worth keeping with the memory and skill tools.

`prompts` (the three review prompts), `fork` (the fork's collaborators: its own session, a
whitelisting tool registry, a quiet meter, no compression), `report` (what the fork did: actions,
file diffs), `records` (the run records in state_meta), `reviewer` (spawning, cancelling and
reporting review runs).
"""
