"""Freed memory back to the system after a big transient (a board build, a 20,000-row download written).

glibc keeps freed heap pages for reuse; a long-running Space that builds five boards and writes their downloads
keeps ~80-100 MB it no longer uses (bench/results_scale.py at 100,000 results: 467 -> 389 MB after the
downloads). `malloc_trim(0)` hands them back. A no-op where the C library has no such call (not glibc)."""
from __future__ import annotations

import ctypes
import ctypes.util

_trim = None


def release_freed_memory() -> None:
    global _trim
    if _trim is None:
        try:
            _trim = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
        except (OSError, AttributeError):
            _trim = False
    if _trim:
        _trim(0)
