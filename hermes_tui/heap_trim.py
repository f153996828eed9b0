"""Hand freed heap memory back to the operating system, where the C library can (glibc's `malloc_trim`).

Freeing Python objects returns their memory to the C allocator, not to the system: after a long
history was read (rows fetched, decoded, converted, most of it garbage a moment later) glibc keeps
the freed pages in its arenas, and the process's resident size stays at its peak. `malloc_trim(0)`
returns whatever whole pages are free (with SQLite's page caches, 3-4 MB after opening a
10,000-message session: bench/memory_bench.py). The app calls it in a thread at a quiet tick of
the GC pacer, never in front of a key nor while a turn runs.

Elsewhere (macOS, musl) there is no `malloc_trim` and `trim_heap()` does nothing.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

_trim: Callable[[int], int] | None = None
_looked_up = False


def _lookup() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    import ctypes  # only here: the first trim comes well after the first frame

    try:
        libc = ctypes.CDLL(None)
        function = libc.malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None
    function.argtypes = [ctypes.c_size_t]
    function.restype = ctypes.c_int
    return function


def trim_heap() -> bool:
    """Return the allocator's free pages to the system; True when the C library could (glibc)."""
    global _trim, _looked_up
    if not _looked_up:
        _trim, _looked_up = _lookup(), True
    if _trim is None:
        return False
    _trim(0)
    return True
