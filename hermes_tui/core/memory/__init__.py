"""What the agent remembers between sessions: the memory files, their tool rules, memory providers.

`store` (MEMORY.md / USER.md, locked writes, drift backups, the frozen prompt snapshot), `scan`
(injection and exfiltration screening), `hooks` (the hook points the loop calls), `provider` (the
provider interface), `manager` (built-in + one external provider, failures isolated), `recall`
(the shipped external provider: recall from past sessions through the FTS index).
"""

from hermes_tui.core.memory.hooks import MemoryHooks
from hermes_tui.core.memory.store import MemoryStore

__all__ = ["MemoryHooks", "MemoryStore"]
