"""Files written atomically, and read with errors that name them.

Every file is written to a temporary name beside it, fsynced, then renamed over the old one, so
a kill at any instant leaves the last complete file in place. The tokenizer, the model
directories, a training run's state and logs all write this way.

Nothing here imports torch at module level: ``heedful.tokenizer`` writes through it, and light
paths (``heedful --version``) must stay light.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _readable(tmp: str) -> None:
    """mkstemp makes 0600 files; give the finished file the mode an ordinary one would have."""
    os.chmod(tmp, 0o666 & ~_umask())


@contextmanager
def _atomic(path: Path) -> Iterator[str]:
    """Yield a temporary name beside ``path`` to write; on success make it readable, fsync it
    and rename it over ``path`` (then fsync the folder); on failure remove it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        yield tmp
        _readable(tmp)
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    with _atomic(path) as tmp:
        Path(tmp).write_bytes(data)


def atomic_write_json(path: Path, obj: Any) -> None:
    atomic_write_bytes(path, (json.dumps(obj, indent=2, ensure_ascii=False) + "\n").encode())


def atomic_save_tensors(path: Path, tensors: dict[str, torch.Tensor], metadata=None) -> None:
    from safetensors.torch import save_file

    with _atomic(path) as tmp:
        save_file({k: v.contiguous() for k, v in tensors.items()}, tmp, metadata=metadata)


def read_json(path: Path) -> Any:
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"missing file: {path}")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"{path}: not valid JSON ({e})") from e


def load_tensors(path: Path) -> dict[str, torch.Tensor]:
    """Read a safetensors file (never a pickle); errors name the file."""
    from safetensors import SafetensorError
    from safetensors.torch import load_file

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"missing file: {path}")
    try:
        return load_file(path)
    except (SafetensorError, OSError, ValueError) as e:
        raise ValueError(f"{path}: not a valid safetensors file ({e})") from e
