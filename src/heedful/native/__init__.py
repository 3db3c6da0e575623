"""Native kernels: the few places in a decoding step where PyTorch's per-call costs outweigh
the work, each done in one pass as CTranslate2 does.

- ``decoding_attention.c``: attention for one new query per row over a few dozen keys. That is a
  few thousand multiply-adds, which PyTorch spreads over some ten operator calls (two batched
  products, a scaling, a mask, a softmax, copies to merge the heads), each with a fixed cost
  larger than its work.
- ``beam_candidates.c``: beam search's best continuations from the logits, where PyTorch makes
  five passes over all K·V of them (log-softmax, mask, add the beams' scores, two top-k).
- ``relu_linear.c``: a ReLU feed-forward layer's second product from its nonzero inputs only
  (92-97% of them are zero in the bundled models), where a dense product multiplies them all.
- ``quantize.c``: an int8 product's input quantised to uint8 in two passes, where PyTorch takes
  four calls (heedful.inference.OneDNNInt8Linear).

They are accelerators with the same numbers, never a requirement: compiled with the machine's C
compiler (``$CC``, else ``cc``) in about a second, by ``build()`` (the server calls it as it
starts) or else the first time they are needed, and cached under ``$HEEDFUL_CACHE`` (default
``$XDG_CACHE_HOME/heedful`` or ``~/.cache/heedful``). Without a compiler, or with
``HEEDFUL_NATIVE=0``, heedful computes the same with PyTorch operators.
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
    autograd, with the kernels wanted and built (``available()``, written out: this is asked
    for every attention of every decoding step)."""
    cpu_float = x.dtype == torch.float32 and x.device.type == "cpu" and not x.requires_grad
    return cpu_float and wanted() and _library() is not None


def available() -> bool:
    """Whether the native kernels are wanted and built (building them now if need be)."""
    return wanted() and _library() is not None


def build() -> bool:
    """Build the kernels now, or load the ones built before, so that no decoding call waits
    for the compiler: the server calls this as it starts, ``make setup`` once it has installed
    heedful. Returns whether they are available: not with ``HEEDFUL_NATIVE=0``, nor (after one
    warning) without a C compiler."""
    return available()


def decoding_attention(
    q: Tensor,
    kv: KeyValue | BeamKeyValue,
    key_mask: Tensor | None,
    weights: Tensor | None = None,
) -> Tensor:
    """softmax(q Kᵀ / sqrt(d_k)) V for one query per row, heads merged: what
    ``heedful.decoding_attention`` computes for a decoding step, in one native call.

    q: [B, H, 1, d_k] (float32, CPU). kv: keys and values [n, H, S, d_k] of n = B / g sentences
    whose g rows each (beams) share them, or a beam cache. key_mask: [n, S], True = real key
    (a beam cache's: the positions since its sentence began). Returns [B, H·d_k], ready for W^O.
    ``weights``: a contiguous float32 [B, H, S] the kernel fills with the softmax's weights
    (0 where the mask rules a key out), for word links (heedful.aligning).
    """
    library = _loaded()
    _check("q", q, torch.float32, (None, None, 1, None))
    rows, heads, _, d = q.shape
    positions = kv.length
    if isinstance(kv, BeamKeyValue):  # key_mask: per sentence, as its beams began (continuous)
        k, v, origin = kv.room.k, kv.room.v, kv.history.origin  # [n, H, capacity, K, d_k]
        beams = kv.history.beams
        _check("keys", k, torch.float32, (None, heads, None, beams, d))
        _check("values", v, torch.float32, tuple(k.shape))
        if positions > k.shape[2] or rows != k.shape[0] * beams:
            raise ValueError(
                f"unexpected layout: q {tuple(q.shape)}, a beam cache of {positions} positions "
                f"in keys {tuple(k.shape)}"
            )
        _check("origin", origin, torch.int64, (rows, positions), unit_stride=False)
        _check_range("origin", origin, beams)  # a beam slot: [n·K, t] in [0, K)
        keys, values = _keys(k, slot=k.stride(3)), _keys(v, slot=v.stride(3))
    else:
        k, v, origin = kv.k, kv.v, None  # [n, H, S, d_k]
        _check("keys", k, torch.float32, (None, heads, None, d))
        _check("values", v, torch.float32, tuple(k.shape))
        keys, values = _keys(k), _keys(v)
    sentences = k.shape[0]
    if sentences == 0 or rows % sentences:
        raise ValueError(f"unexpected layout: q {tuple(q.shape)}, keys {tuple(k.shape)}")
    if key_mask is not None:
        key_mask = key_mask.to(torch.bool)
        _check("key_mask", key_mask, torch.bool, (sentences, None), unit_stride=False)
        if key_mask.shape[1] < positions:
            raise ValueError(
                f"heedful.native: key_mask: shape {list(key_mask.shape)}, expected "
                f"[{sentences}, at least {positions}]"
            )
    if weights is not None:
        _check("weights", weights, torch.float32, (rows, heads, positions))
        if not weights.is_contiguous():
            raise ValueError("heedful.native: weights: expected a contiguous tensor")
    out = q.new_empty(rows, heads * d)
    failed = library.heedful_decoding_attention(
        q.data_ptr(), q.stride(0), q.stride(1),
        keys, values,
        *_pointer_and_strides(key_mask),
        *_pointer_and_strides(origin),
        rows, heads, d, positions, rows // sentences, ctypes.c_float(d**-0.5),
        out.data_ptr(), None if weights is None else weights.data_ptr(),
        torch.get_num_threads(),
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
    allow_eos: bool | Tensor,
    last: Tensor | None,
) -> tuple[Tensor, Tensor]:
    """The ``count`` best continuations of each sentence's K beams, best first: what
    ``heedful.search.beam_search`` takes from log_softmax(logits), masked, plus the beams' scores.

    logits: [n·K, V] (float32, CPU); scores: [n, K], each beam's score so far; banned: ids never
    generated; allow_eos: False before min_length, for every row or row by row ([n·K] bool);
    last: [n·K] bool or None, rows that may only end (EOS, at no cost). Returns scores [n, count]
    and indices [n, count] into each sentence's K·V candidates (beam · V + token).
    """
    library = _loaded()
    _check("logits", logits, torch.float32, (None, None))
    V = logits.shape[1]
    scores = scores.float().contiguous()
    _check("scores", scores, torch.float32, (None, None))
    n, K = scores.shape
    if logits.shape[0] != n * K or not 1 <= count <= K * V:
        raise ValueError(
            f"unexpected shapes: logits {tuple(logits.shape)}, scores {(n, K)}, count {count}"
        )
    if not 0 <= eos_id < V:
        raise ValueError(f"heedful.native: eos_id: {eos_id}, expected a token id from 0 to {V - 1}")
    banned_ids = torch.tensor(list(banned), dtype=torch.int64)
    if last is not None:
        last = last.to(torch.bool).contiguous()
        _check("last", last, torch.bool, (n * K,))
    early = None  # rows that may not end yet
    if isinstance(allow_eos, Tensor):
        early = (~allow_eos.to(torch.bool)).contiguous()
        _check("allow_eos", early, torch.bool, (n * K,))
    elif not allow_eos:
        early = torch.ones(n * K, dtype=torch.bool)
    top_scores = logits.new_empty(n, count)
    top_index = torch.empty(n, count, dtype=torch.int64)
    library.heedful_beam_candidates(
        logits.data_ptr(), logits.stride(0), scores.data_ptr(), n, K, V,
        banned_ids.data_ptr(), len(banned_ids), eos_id,
        None if early is None else early.data_ptr(),
        None if last is None else last.data_ptr(),
        count, top_scores.data_ptr(), top_index.data_ptr(), torch.get_num_threads(),
    )  # fmt: skip
    return top_scores, top_index


def relu_linear(h: Tensor, weight_t: Tensor, bias: Tensor | None) -> Tensor:
    """h Wᵀ + b computed from h's nonzero values only: a ReLU feed-forward layer's second
    product, where most of h is zero. Each row alone, its sum in a fixed order (the bias, then
    h's columns by index): a row's result does not depend on the rows beside it.

    h: [..., inner] (float32, CPU); weight_t: Wᵀ, [inner, out], contiguous; bias: [out] or
    None. Returns [..., out].
    """
    library = _loaded()
    inner, out = weight_t.shape
    rows = h.reshape(-1, inner) if h.dim() != 2 else h
    _check("h", rows, torch.float32, (None, inner))
    _check("weight_t", weight_t, torch.float32, (inner, out))
    if not weight_t.is_contiguous():
        raise ValueError("heedful.native: weight_t: expected a contiguous tensor")
    if bias is not None:
        _check("bias", bias, torch.float32, (out,))
    y = h.new_empty(rows.shape[0], out)
    failed = library.heedful_relu_linear(
        rows.data_ptr(), rows.stride(0), rows.shape[0], inner, weight_t.data_ptr(),
        None if bias is None else bias.data_ptr(), out, y.data_ptr(), torch.get_num_threads(),
    )  # fmt: skip
    if failed:
        raise MemoryError("heedful's native ReLU product could not allocate its lists")
    return y.view(*h.shape[:-1], out)


def exp_nonpositive(x: Tensor) -> Tensor:
    """e^x as the kernels' softmax takes it, for x <= 0 (``exp.h``): within 2 ulp down to -87,
    0 below; NaN gives NaN and x > 0 gives 1. x: float32 on the CPU, any shape."""
    library = _loaded()
    flat = x.reshape(-1).contiguous()
    _check("x", flat, torch.float32, (None,))
    out = torch.empty_like(flat)
    library.heedful_exp_nonpositive(flat.data_ptr(), out.data_ptr(), flat.numel())
    return out.view(x.shape)


def quantize_u8(x: Tensor) -> tuple[Tensor, float, int]:
    """x (float32 on the CPU, any shape) quantised to uint8 with one scale and zero point for
    all of it (``quantize.c``): returns (values, scale, zero point), x ≈ (values - zero point)
    · scale, the range always holding 0."""
    library = _loaded()
    flat = x.reshape(-1)
    if not flat.is_contiguous():
        flat = flat.contiguous()
    _check("x", flat, torch.float32, (None,))
    values = torch.empty(x.shape, dtype=torch.uint8)
    scale, zero = ctypes.c_double(), ctypes.c_int32()
    library.heedful_quantize_u8(
        flat.data_ptr(), flat.numel(), values.data_ptr(), ctypes.byref(scale), ctypes.byref(zero)
    )
    return values, scale.value, zero.value


def _check(
    name: str,
    x: Tensor,
    dtype: torch.dtype,
    shape: tuple[int | None, ...],
    *,
    unit_stride: bool = True,
) -> None:
    """Refuse a tensor that C would read wrongly or beyond its memory: C sees a pointer and the
    sizes and strides it is given, nothing else. ``x`` must have ``dtype``, be on the CPU, have
    ``shape`` (None: any size) and, with ``unit_stride``, its last dimension in one piece (the
    kernels walk it element by element; the other strides are passed to them)."""
    fits = x.dim() == len(shape) and all(
        w is None or w == s for w, s in zip(shape, x.shape, strict=True)
    )
    contiguous = not unit_stride or not fits or x.shape[-1] <= 1 or x.stride(-1) == 1
    if x.dtype is dtype and x.is_cpu and fits and contiguous:
        return
    problems = []
    if x.dtype is not dtype:
        problems.append(f"dtype {_name(x.dtype)}, expected {_name(dtype)}")
    if not x.is_cpu:
        problems.append(f"on {x.device}, expected the CPU")
    if not fits:
        pattern = ", ".join("*" if w is None else str(w) for w in shape)
        problems.append(f"shape {list(x.shape)}, expected [{pattern}]")
    if not contiguous:
        problems.append(f"strides {list(x.stride())}, expected the last to be 1")
    raise ValueError(f"heedful.native: {name}: {'; '.join(problems)}")


def _check_range(name: str, index: Tensor, size: int) -> None:
    """Refuse an index tensor with a value outside [0, size): C would read outside the rows."""
    if index.numel():
        low, high = (int(x) for x in torch.aminmax(index))
        if low < 0 or high >= size:
            raise ValueError(
                f"heedful.native: {name}: indices from {low} to {high}, expected 0 to {size - 1}"
            )


def _name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


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
    function.argtypes += [i64] * 5 + [ctypes.c_float, pointer, pointer, ctypes.c_int]
    function.restype = ctypes.c_int
    function = library.heedful_beam_candidates
    function.argtypes = [pointer, i64, pointer, i64, i64, i64, pointer, i64, i64, pointer]
    function.argtypes += [pointer, i64, pointer, pointer, ctypes.c_int]
    function.restype = None
    function = library.heedful_relu_linear
    function.argtypes = [pointer, i64, i64, i64, pointer, pointer, i64, pointer, ctypes.c_int]
    function.restype = ctypes.c_int
    library.heedful_exp_nonpositive.argtypes = [pointer, pointer, i64]
    library.heedful_exp_nonpositive.restype = None
    library.heedful_quantize_u8.argtypes = [pointer, i64, pointer, pointer, pointer]
    library.heedful_quantize_u8.restype = None
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
