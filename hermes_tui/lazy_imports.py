"""Importing a module in a worker thread, so the event loop never runs (or waits for) the import.

`module_imported(name)` is True only once a module's import has finished: a module is in
`sys.modules` from the moment its import starts, and one that another thread is still importing
must not count, or the loop goes on to import it itself and waits there for that thread's import
lock. `import_off_loop(name)` imports it in a thread (or, if another thread is importing it, waits
there for it) and returns at once when it is already in. Nothing here imports Textual.
"""

from __future__ import annotations

import asyncio
import importlib
import sys


def module_imported(name: str) -> bool:
    """True once `name` is imported, not while a thread is still running its code."""
    module = sys.modules.get(name)
    return module is not None and not getattr(getattr(module, "__spec__", None), "_initializing", False)


async def import_off_loop(name: str) -> None:
    """Import `name` without the loop running or waiting for its code."""
    if not module_imported(name):
        await asyncio.to_thread(importlib.import_module, name)
