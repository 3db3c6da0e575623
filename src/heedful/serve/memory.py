"""Giving memory back to the system after a peak, in the server process.

The `heedful` command starts with ``MALLOC_MMAP_MAX_=0`` and a huge ``MALLOC_TRIM_THRESHOLD_``
(faster training steps, see DEVELOPERS.md): glibc then keeps every freed byte, so a server grew
to each request's peak and stayed there (344 MB idle, 844 MB after one large request).
``use_default_allocator`` puts glibc's defaults back for the server (large blocks mapped and
unmapped, the heap's top trimmed); ``give_back`` (``malloc_trim``) also returns the free pages
inside the heap, which no setting does. Both do nothing where the C library is not glibc.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools

# mallopt's parameters (malloc.h) and glibc's default values
M_TRIM_THRESHOLD, M_MMAP_MAX = -1, -4
DEFAULT_TRIM_THRESHOLD = 128 * 1024
DEFAULT_MMAP_MAX = 65536


@functools.cache
def _libc() -> ctypes.CDLL | None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None
    if not hasattr(libc, "malloc_trim") or not hasattr(libc, "mallopt"):
        return None  # not glibc (musl, macOS)
    libc.malloc_trim.argtypes = [ctypes.c_size_t]
    libc.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    return libc


def use_default_allocator() -> bool:
    """Undo the command's MALLOC_* settings in this process; whether it could."""
    libc = _libc()
    if libc is None:
        return False
    ok = libc.mallopt(M_MMAP_MAX, DEFAULT_MMAP_MAX) == 1
    return libc.mallopt(M_TRIM_THRESHOLD, DEFAULT_TRIM_THRESHOLD) == 1 and ok


def give_back() -> bool:
    """Return the allocator's free memory to the system (``malloc_trim(0)``); whether any was."""
    libc = _libc()
    return bool(libc is not None and libc.malloc_trim(0))
