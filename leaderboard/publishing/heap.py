"""Freed memory back to the system after a big transient (a board build, a 20,000-row download written).

glibc keeps freed heap pages for reuse; a long-running Space that builds five boards and writes their downloads
keeps ~80-100 MB it no longer uses (bench/results_scale.py at 100,000 results: 467 -> 389 MB after the
downloads). `malloc_trim(0)` hands them back. A no-op where the C library has no such call (not glibc).

`limit_arenas` caps glibc's per-thread heaps: a Gradio server runs its events on a pool of threads, and each
thread that allocates gets an arena of its own whose freed pages stay with it; at 100,000 results that held
~50 MB more than two arenas do (bench/results_scale.py). Set once, at start, before the server's threads."""
from __future__ import annotations

import ctypes
import ctypes.util

_trim = None
M_ARENA_MAX = -8  # mallopt's parameter number (glibc malloc.h)
ARENAS = 2


def _libc():
    return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")


def limit_arenas(arenas: int = ARENAS) -> bool:
    """True when the C library took the limit (glibc); False elsewhere (nothing changed)."""
    try:
        return bool(_libc().mallopt(M_ARENA_MAX, arenas))
    except (OSError, AttributeError):
        return False


def release_freed_memory() -> None:
    global _trim
    if _trim is None:
        try:
            _trim = _libc().malloc_trim
        except (OSError, AttributeError):
            _trim = False
    if _trim:
        _trim(0)
