"""Giving memory back to the system after a peak, in the server process.

The `heedful` command starts with ``MALLOC_MMAP_MAX_=0`` and a huge ``MALLOC_TRIM_THRESHOLD_``
(see DEVELOPERS.md): glibc then keeps every freed byte, so a server grew to each request's peak
and stayed there (344 MB idle, 844 MB after one large request). Putting glibc's defaults back
would return large blocks by itself, but made decoding about 40% slower here (every large tensor
mapped, faulted in and unmapped again); so the server keeps the settings and, once a model's
queue empties after large work, ``give_back`` calls ``malloc_trim(0)``, which returns every free
page of every arena. Nothing happens where the C library is not glibc.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import gc


@functools.cache
def _malloc_trim():
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None
    trim = getattr(libc, "malloc_trim", None)  # glibc's; not in musl or macOS
    if trim is not None:
        trim.argtypes = [ctypes.c_size_t]
    return trim


def give_back() -> bool:
    """Return the allocator's free memory to the system (``malloc_trim(0)``), after collecting
    Python's garbage cycles (a request given up leaves some); whether any was returned."""
    gc.collect()
    trim = _malloc_trim()
    return bool(trim is not None and trim(0))
