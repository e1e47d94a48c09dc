"""Giving the C heap's free pages back to the system once a long-lived process has done its big read.

A dashboard's first read of a large session allocates and frees many blocks
the C allocator serves from its heaps (Python objects over 512 bytes, list
and array growth, file buffers, each module's bytecode read at import); glibc
keeps the pages of the freed ones it cannot cut from a heap's top, and the
dashboard then sits on them for hours (~2–3 MiB at 100 MB, docs/performance.md,
"Dashboard at rest"). ``malloc_trim(0)`` hands them back in under a
millisecond; the C libraries without it (macOS, musl) are left as they are.
"""

from __future__ import annotations


def release_free_heap() -> bool:
    """Give the C heap's free pages back to the system (glibc's ``malloc_trim``); False where there is none."""
    import ctypes  # here: only the dashboard, once per session read, needs it

    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError, TypeError):  # no such function in this C library, or no C library by that name
        return False
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    trim(0)
    return True
