"""Native kernels: the few places in a decoding step where PyTorch's per-call costs outweigh
the work, each done in one pass as CTranslate2 does.

- ``decoding_attention.c``: attention for one new query per row over a few dozen keys. That is a
  few thousand multiply-adds, which PyTorch spreads over some ten operator calls (two batched
  products, a scaling, a mask, a softmax, copies to merge the heads), each with a fixed cost
  larger than its work.
- ``beam_candidates.c``: beam search's best continuations from the logits, where PyTorch makes
  five passes over all K·V of them (log-softmax, mask, add the beams' scores, two top-k).

They are accelerators with the same numbers, never a requirement: compiled with the machine's C
compiler (``$CC``, else ``cc``) the first time they are needed, in about a second, and cached under
``$HEEDFUL_CACHE`` (default ``$XDG_CACHE_HOME/heedful`` or ``~/.cache/heedful``). Without a
compiler, or with ``HEEDFUL_NATIVE=0``, heedful computes the same with PyTorch operators.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import torch
from torch import Tensor

from heedful.kv_cache import BeamKeyValue, KeyValue

HERE = Path(__file__).parent
# -fno-trapping-math lets gcc vectorise exp's floorf (nothing here reads floating-point traps);
# -fassociative-math lets it sum a dot product's lanes in registers, in a different order
FLAGS = ["-O3", "-march=native", "-fno-math-errno", "-fno-trapping-math", "-fopenmp"]
FLAGS += ["-fassociative-math", "-fno-signed-zeros", "-shared", "-fPIC"]


def wanted() -> bool:
    """Whether heedful may use its native kernels (``HEEDFUL_NATIVE=0`` says no)."""
    return os.environ.get("HEEDFUL_NATIVE", "1") != "0"


def handles(x: Tensor) -> bool:
    """Whether the kernels take x (the queries, the logits): float32 on the CPU, outside
    autograd, with the kernels wanted and built."""
    return (
        x.dtype == torch.float32 and x.device.type == "cpu" and not x.requires_grad and available()
    )


def available() -> bool:
    """Whether the native kernels are wanted and built (building them now if need be)."""
    return wanted() and _library() is not None


def decoding_attention(q: Tensor, kv: KeyValue | BeamKeyValue, key_mask: Tensor | None) -> Tensor:
    """softmax(q Kᵀ / sqrt(d_k)) V for one query per row, heads merged: what
    ``heedful.attention`` computes for a decoding step, in one native call.

    q: [B, H, 1, d_k] (float32, CPU). kv: keys and values [n, H, S, d_k] of n = B / g sentences
    whose g rows each (beams) share them, or a beam cache. key_mask: [n, S], True = real key
    (not with a beam cache). Returns [B, H·d_k], ready for W^O.
    """
    library = _loaded()
    rows, heads, _, d = q.shape
    if isinstance(kv, BeamKeyValue):
        if key_mask is not None:
            raise ValueError("a beam cache's keys are all real: no key_mask")
        k, v, origin = kv.room.k, kv.room.v, kv.history.origin  # [n, H, capacity, K, d_k]
        keys, values = _keys(k, slot=k.stride(3)), _keys(v, slot=v.stride(3))
    else:
        k, v, origin = kv.k, kv.v, None  # [n, H, S, d_k]
        keys, values = _keys(k), _keys(v)
    sentences, positions = k.shape[0], kv.length
    if q.shape[2] != 1 or rows % sentences or any(x.stride(-1) != 1 for x in (q, k, v)):
        raise ValueError(f"unexpected layout: q {tuple(q.shape)}, keys {tuple(k.shape)}")
    if key_mask is not None:
        key_mask = key_mask.to(torch.bool)
    out = q.new_empty(rows, heads * d)
    failed = library.heedful_decoding_attention(
        q.data_ptr(), q.stride(0), q.stride(1),
        keys, values,
        *_pointer_and_strides(key_mask),
        *_pointer_and_strides(origin),
        rows, heads, d, positions, rows // sentences, ctypes.c_float(d**-0.5),
        out.data_ptr(), torch.get_num_threads(),
    )  # fmt: skip
    if failed:
        raise MemoryError("heedful's native attention could not allocate its scores")
    return out


def beam_candidates(
    logits: Tensor,
    scores: Tensor,
    count: int,
    *,
    banned: Sequence[int],
    eos_id: int,
    allow_eos: bool,
    last: Tensor | None,
) -> tuple[Tensor, Tensor]:
    """The ``count`` best continuations of each sentence's K beams, best first: what
    ``heedful.search.beam_search`` takes from log_softmax(logits), masked, plus the beams' scores.

    logits: [n·K, V] (float32, CPU); scores: [n, K], each beam's score so far; banned: ids never
    generated; allow_eos: False before min_length; last: [n·K] bool or None, rows that may only
    end (EOS, at no cost). Returns scores [n, count] and indices [n, count] into each sentence's
    K·V candidates (beam · V + token).
    """
    library = _loaded()
    n, K = scores.shape
    V = logits.shape[-1]
    if logits.shape[0] != n * K or logits.stride(-1) != 1 or not 1 <= count <= K * V:
        raise ValueError(f"unexpected shapes: logits {tuple(logits.shape)}, scores {(n, K)}")
    scores = scores.float().contiguous()
    banned_ids = torch.tensor(list(banned), dtype=torch.int64)
    last = None if last is None else last.to(torch.bool).contiguous()
    top_scores = logits.new_empty(n, count)
    top_index = torch.empty(n, count, dtype=torch.int64)
    library.heedful_beam_candidates(
        logits.data_ptr(), logits.stride(0), scores.data_ptr(), n, K, V,
        banned_ids.data_ptr(), len(banned_ids), eos_id, allow_eos,
        None if last is None else last.data_ptr(),
        count, top_scores.data_ptr(), top_index.data_ptr(), torch.get_num_threads(),
    )  # fmt: skip
    return top_scores, top_index


class _Keys(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("sentence", ctypes.c_int64),
        ("head", ctypes.c_int64),
        ("position", ctypes.c_int64),
        ("slot", ctypes.c_int64),
    ]


def _keys(x: Tensor, slot: int = 0) -> _Keys:
    return _Keys(x.data_ptr(), x.stride(0), x.stride(1), x.stride(2), slot)


def _pointer_and_strides(x: Tensor | None) -> tuple[int | None, int, int]:
    return (None, 0, 0) if x is None else (x.data_ptr(), x.stride(0), x.stride(1))


def _loaded() -> ctypes.CDLL:
    library = _library()
    if library is None:
        raise RuntimeError("heedful's native kernels are not available (see heedful.native)")
    return library


@cache
def _library() -> ctypes.CDLL | None:
    """The compiled kernels, built on first use; None (with one warning) if they can't be."""
    try:
        library = ctypes.CDLL(str(_build()))
    except (OSError, subprocess.CalledProcessError, RuntimeError) as error:
        warnings.warn(
            f"heedful could not build its native decoding kernels ({error}); decoding uses "
            "PyTorch operators instead, with the same results, more slowly on CPU. "
            "HEEDFUL_CACHE=DIR builds them elsewhere; HEEDFUL_NATIVE=0 silences this.",
            RuntimeWarning,
            stacklevel=3,
        )
        return None
    function = library.heedful_decoding_attention
    i64, pointer = ctypes.c_int64, ctypes.c_void_p
    function.argtypes = [pointer, i64, i64, _Keys, _Keys, pointer, i64, i64, pointer, i64, i64]
    function.argtypes += [i64] * 5 + [ctypes.c_float, pointer, ctypes.c_int]
    function.restype = ctypes.c_int
    function = library.heedful_beam_candidates
    function.argtypes = [pointer, i64, pointer, i64, i64, i64, pointer, i64, i64, ctypes.c_int]
    function.argtypes += [pointer, i64, pointer, pointer, ctypes.c_int]
    function.restype = None
    library.heedful_exp_nonpositive.argtypes = [pointer, pointer, i64]
    library.heedful_exp_nonpositive.restype = None
    return library


def _build() -> Path:
    """Compile the kernels into one library in the cache, once per source, flags, compiler and
    CPU (``-march=native``: a library built for one CPU may not run on another)."""
    compiler = os.environ.get("CC", "cc")
    if shutil.which(compiler) is None:
        raise RuntimeError(f"no C compiler: {compiler!r} not found")
    sources = sorted(HERE.glob("*.c"))
    text = b"".join(p.read_bytes() for p in sorted([*sources, *HERE.glob("*.h")]))
    key = hashlib.sha256(text + " ".join([compiler, *FLAGS, _cpu()]).encode()).hexdigest()
    target = _cache_folder() / "native" / f"kernels-{key[:16]}.so"
    if target.exists():
        problem = _not_ours(target)
        if problem is None:
            return target
        warnings.warn(f"{target} {problem}; building it again", RuntimeWarning, stacklevel=4)
    target.parent.mkdir(parents=True, exist_ok=True)
    return _compile(compiler, sources, target)


def _digest_path(library: Path) -> Path:
    """Where the SHA-256 of a library is recorded when heedful builds it."""
    return library.with_suffix(".sha256")


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _not_ours(library: Path) -> str | None:
    """Why the cached ``library`` may not be the one heedful built (None if it is): loading a
    library runs its code, so it must be the very file whose hash was recorded at build time,
    owned by this user and writable by no one else."""
    try:
        info = library.stat()
        recorded = _digest_path(library).read_text().strip()
    except OSError:
        return "has no record of being built by heedful"
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        return "belongs to another user"
    if info.st_mode & 0o022:
        return "may be written by other users"
    if _sha256(library) != recorded:
        return "is not the library heedful built there (its SHA-256 is not the one recorded)"
    return None


def _cache_folder() -> Path:
    """Where heedful keeps what it builds: $HEEDFUL_CACHE, else $XDG_CACHE_HOME/heedful, else
    ~/.cache/heedful."""
    if os.environ.get("HEEDFUL_CACHE"):
        return Path(os.environ["HEEDFUL_CACHE"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "heedful"


def _compile(compiler: str, sources: list[Path], target: Path) -> Path:
    """Compile in a scratch folder next to ``target``, then move the library into place."""
    with tempfile.TemporaryDirectory(dir=target.parent) as scratch:
        built = Path(scratch) / target.name
        done = subprocess.run(
            [compiler, *FLAGS, *map(str, sources), "-o", str(built), "-lm"],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise RuntimeError(f"{compiler} failed: {done.stderr.strip()[-500:]}")
        os.chmod(built, 0o755 & ~_umask())
        digest = Path(scratch) / "digest"
        digest.write_text(_sha256(built) + "\n")
        # atomic, the hash first: processes building at once each write whole files, and a
        # library is never in place without its own hash beside it
        os.replace(digest, _digest_path(target))
        os.replace(built, target)
    return target


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _cpu() -> str:
    """What identifies this machine's CPU for ``-march=native``: its model and flags."""
    try:
        info = Path("/proc/cpuinfo").read_text()
    except OSError:
        return f"{platform.machine()} {platform.processor()} {sys.platform}"
    wanted_lines = [line for line in info.splitlines() if line.startswith(("model name", "flags"))]
    return "\n".join(sorted(set(wanted_lines)))
