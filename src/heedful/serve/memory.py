"""Giving memory back to the system after a peak, in the server process.

The `heedful` command starts with ``MALLOC_MMAP_MAX_=0`` and a huge ``MALLOC_TRIM_THRESHOLD_``
(see DEVELOPERS.md): glibc then keeps every freed byte, so a server grew to each request's peak
and stayed there (344 MB idle, 844 MB after one large request). Putting glibc's defaults back
would return large blocks by itself, but made decoding about 40% slower here (every large tensor
mapped, faulted in and unmapped again); so the server keeps the settings and, once a model's
queue empties after large work, ``give_back`` calls ``malloc_trim(0)``, which returns every free
page of every arena. Nothing happens where the C library is not glibc.

malloc_trim returns only memory that is free. Most of what stayed after a peak was not: the
float32 linear layers compute through oneDNN (``heedful.inference``), and oneDNN and PyTorch's ideep
layer above it each keep the last 1024 primitives they built (kernels and their descriptions),
one for every product shape. Beam search's row count changes at every sentence that ends, so
maximal requests (32 texts at beam 8) built hundreds of them, and they stayed: four at once left
a server of 370 MB idle at 540 MB a minute after. ``bound_native_caches`` keeps 256 of each: what
decoding a batch needs while it runs (about 5 product shapes for each of its row counts), so it
measured no slower, and the same server came back to 470 MB (bench/README.md). Both capacities
are read from the environment when the first primitive is built, so the server sets them before
any model runs; a value already in the environment wins. (Threads' malloc arenas were not the
cause: ``MALLOC_ARENA_MAX=1`` changed nothing.)
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import gc
import os

NATIVE_CACHES = {
    "ONEDNN_PRIMITIVE_CACHE_CAPACITY": "256",  # oneDNN's primitive cache (default 1024)
    "LRU_CACHE_CAPACITY": "256",  # PyTorch's ideep cache of oneDNN primitives (default 1024)
}


def bound_native_caches() -> None:
    """Keep oneDNN's and ideep's primitive caches to ``NATIVE_CACHES`` entries, unless the
    environment says otherwise; in effect only if no oneDNN primitive was built yet in this
    process."""
    for name, value in NATIVE_CACHES.items():
        os.environ.setdefault(name, value)


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
