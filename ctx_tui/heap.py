"""The C heap of a long-lived process: one arena for all its threads, and its free pages given back.

A dashboard's first read of a large session allocates and frees many blocks
the C allocator serves from its heaps (Python objects over 512 bytes, list
and array growth, file buffers, each module's bytecode read at import); glibc
keeps the pages of the freed ones it cannot cut from a heap's top, and the
dashboard then sits on them for hours (~2–3 MiB at 100 MB, docs/performance.md,
"Dashboard at rest"). ``malloc_trim(0)`` hands them back in under a
millisecond.

glibc also gives each thread that allocates while the others hold the main
heap an arena of its own (up to eight per core): the dashboard's reads run in
a pool of worker threads, each arena kept what its thread left, and how many
there were varied from run to run (~1 MiB either way). With one arena
(``M_ARENA_MAX`` 1, :func:`use_one_arena`) every thread allocates from the main
heap: ~2 MiB less at rest, the same every run. Python's own small objects
(pymalloc) are not in these heaps, and each thread keeps its cache of small
blocks, so the threads seldom wait for the arena's lock.

The C libraries without these functions (macOS, musl) are left as they are.
"""

from __future__ import annotations

from typing import Any

#: glibc's ``mallopt`` parameter for the most arenas (malloc.h).
_M_ARENA_MAX = -8


def _c_function(name: str) -> Any | None:
    import ctypes  # here: only the dashboard needs it

    try:
        return getattr(ctypes.CDLL(None), name)
    except (OSError, AttributeError, TypeError):  # no such function in this C library, or no C library by that name
        return None


def use_one_arena() -> bool:
    """Make threads started from now on allocate from the main heap (glibc's ``M_ARENA_MAX`` 1); False where
    this C library cannot. Call it before starting threads."""
    import ctypes

    mallopt = _c_function("mallopt")
    if mallopt is None:
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_ARENA_MAX, 1))


def release_free_heap() -> bool:
    """Give the C heap's free pages back to the system (glibc's ``malloc_trim``); False where there is none."""
    import ctypes

    trim = _c_function("malloc_trim")
    if trim is None:
        return False
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    trim(0)
    return True
