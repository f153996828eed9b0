"""Checkpoints: snapshots of the working folder in a shadow git store, taken once per turn before
the agent's first file change, and the rewind (/rollback) over them.

`store` keeps the snapshots (git subprocesses, isolated from the user's git), `records` files each
one in state_meta under its turn, `manager` decides when to take one and is the API the UI uses
(`CheckpointManager`, `Checkpoint`). Modules import each other directly, never this `__init__`.
"""

from hermes_tui.core.checkpoints.manager import Checkpoint, CheckpointError, CheckpointManager, RewindResult
from hermes_tui.core.checkpoints.store import Restored, Stat

__all__ = ["Checkpoint", "CheckpointError", "CheckpointManager", "Restored", "RewindResult", "Stat"]
