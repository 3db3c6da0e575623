"""Model directories: what a trained model is on disk, written atomically, read without pickle.

    DIR/config.json        {"format": "heedful", "model": ModelConfig fields, "data": {...},
                            "tokenizer": "spm.model", "normalization": "nfkc+spaces"}
    DIR/model.safetensors  the weights (tied tensors stored once)
    DIR/spm.model          the sentencepiece model (one joint vocabulary)

Every file is written atomically (``heedful.files``), so a kill at any instant leaves the last
complete one in place.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch
from torch import nn

from heedful.config import ModelConfig
from heedful.files import atomic_save_tensors, atomic_write_json, load_tensors, read_json
from heedful.tokenizer import NORMALIZATION, Tokenizer

CONFIG_FILE = "config.json"
WEIGHTS_FILE = "model.safetensors"
TOKENIZER_FILE = "spm.model"
ARCHITECTURES = ("Transformer", "DecoderOnlyLM")  # config.json's "architecture"


# --- weights ----------------------------------------------------------------------------------


def unique_state_dict(model: nn.Module) -> dict[str, torch.Tensor]:
    """The model's parameters and persistent buffers, each shared tensor under its first name."""
    seen: set[int] = set()
    out = {}
    for name, tensor in model.state_dict().items():
        if tensor.data_ptr() in seen:
            continue
        seen.add(tensor.data_ptr())
        out[name] = tensor.detach()
    return out


def load_weights(model: nn.Module, tensors: dict[str, torch.Tensor], source: Path) -> None:
    """Load tensors into the model (shared ones stored once), checking every name and shape."""
    expected = unique_state_dict(model)
    missing = sorted(set(expected) - set(tensors))
    unexpected = sorted(set(tensors) - set(expected))
    if missing or unexpected:
        raise ValueError(
            f"{source}: weights do not fit the model in config.json "
            f"(missing {missing[:5]}, unexpected {unexpected[:5]})"
        )
    for name, value in tensors.items():
        if value.shape != expected[name].shape:
            raise ValueError(
                f"{source}: {name} has shape {tuple(value.shape)}, "
                f"config.json implies {tuple(expected[name].shape)}"
            )
    with torch.no_grad():
        for name, value in tensors.items():
            expected[name].copy_(value.to(expected[name].dtype))


# --- model directories ------------------------------------------------------------------------


def save_model_dir(
    directory: str | Path,
    model: nn.Module,
    tokenizer: Tokenizer,
    *,
    data: dict[str, Any] | None = None,
    dtype: torch.dtype | None = None,
    extra: dict[str, Any] | None = None,
) -> None:
    """Write config.json, model.safetensors and spm.model (``dtype`` e.g. bf16 to halve size)."""
    directory = Path(directory)
    tensors = unique_state_dict(model)
    if dtype is not None:
        tensors = {k: v.to(dtype) if v.is_floating_point() else v for k, v in tensors.items()}
    atomic_save_tensors(directory / WEIGHTS_FILE, tensors)
    tokenizer.save(directory / TOKENIZER_FILE)
    config = {
        "format": "heedful",
        "architecture": type(model).__name__,
        "model": model.config.to_dict(),
        "data": data or {},
        "tokenizer": TOKENIZER_FILE,
        "normalization": NORMALIZATION,
        **(extra or {}),
    }
    atomic_write_json(directory / CONFIG_FILE, config)


def check_model_dir(directory: str | Path) -> tuple[ModelConfig, str, dict[str, Any]]:
    """Check a model directory before anything is allocated -> (config, architecture, the
    config.json dict): every field's type and range (ModelConfig), the files named inside the
    directory, the tokenizer's size equal to the model's vocabulary, and the memory the model
    needs within what this machine has. Errors name the file and what was expected."""
    directory = Path(directory)
    if not directory.is_dir():
        raise FileNotFoundError(f"model directory not found: {directory}")
    path = directory / CONFIG_FILE
    meta = read_json(path)
    if not isinstance(meta, dict) or meta.get("format") != "heedful":
        raise ValueError(f"{path}: not a heedful model directory")
    if "model" not in meta:
        raise ValueError(f"{path}: no model section")
    try:
        config = ModelConfig.from_dict(meta["model"])
    except (TypeError, ValueError) as e:
        raise ValueError(f"{path}: bad model section ({e})") from e
    architecture = meta.get("architecture", "Transformer")
    if architecture not in ARCHITECTURES:
        raise ValueError(f"{path}: unknown architecture {architecture!r}")
    tokenizer = _inside(directory, meta.get("tokenizer", TOKENIZER_FILE), path)
    weights = directory / WEIGHTS_FILE
    for file in (weights, tokenizer):
        if not file.is_file():
            raise FileNotFoundError(f"missing file: {file}")
    need = memory_needed(config, architecture, weights.stat().st_size)
    have = available_memory()
    if have is not None and need > have:
        raise ValueError(
            f"{path}: a model of {config.num_parameters():,} parameters needs about "
            f"{_gib(need)} of memory to load; this machine has {_gib(have)} available"
        )
    pieces = Tokenizer.load(tokenizer).vocab_size
    for field in ("src_vocab_size", "tgt_vocab_size"):
        if getattr(config, field) != pieces:
            raise ValueError(
                f"{tokenizer} has {pieces:,} pieces, but {path} says {field} "
                f"{getattr(config, field):,}: the tokenizer is not the model's"
            )
    return config, architecture, meta


def _inside(directory: Path, name: Any, config_path: Path) -> Path:
    """``directory / name``, refused unless it is a file name that stays inside ``directory``."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"{config_path}: tokenizer must be a file name, not {name!r}")
    path = directory / name
    if not path.resolve().is_relative_to(directory.resolve()):
        raise ValueError(f"{config_path}: tokenizer {name!r} is outside the model directory")
    return path


def memory_needed(config: ModelConfig, architecture: str, weights_bytes: int) -> int:
    """Bytes to load a model: its float32 parameters and buffers (sinusoidal positions, logits
    bias), plus the weights file read whole before they are copied in."""
    decoder_only = architecture == "DecoderOnlyLM"
    tables = 1 if decoder_only else 2
    buffers = tables * config.max_positions * config.d_model + config.tgt_vocab_size
    return 4 * (config.num_parameters(decoder_only=decoder_only) + buffers) + weights_bytes


def available_memory() -> int | None:
    """Bytes this process may still allocate: the kernel's MemAvailable, within a cgroup's
    limit when there is one; None where neither can be read."""
    found = []
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                found.append(int(line.split()[1]) * 1024)
    except (OSError, ValueError):
        pass
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        used = Path("/sys/fs/cgroup/memory.current").read_text().strip()
        if limit != "max":
            found.append(int(limit) - int(used))
    except (OSError, ValueError):
        pass
    return min(found) if found else None


def _gib(n: int) -> str:
    return f"{n / 2**30:,.1f} GiB"


def load_model_dir(directory: str | Path, device: str | torch.device = "cpu"):
    """Read a model directory -> (model in eval mode, tokenizer, the config.json dict). It is
    checked first (``check_model_dir``): a bad one is refused before anything is allocated."""
    from heedful.lm import DecoderOnlyLM
    from heedful.model import Transformer

    config, architecture, meta = check_model_dir(directory)
    directory = Path(directory)
    model = {"Transformer": Transformer, "DecoderOnlyLM": DecoderOnlyLM}[architecture](config)
    weights = directory / WEIGHTS_FILE
    load_weights(model, load_tensors(weights), weights)
    tokenizer = Tokenizer.load(directory / meta.get("tokenizer", TOKENIZER_FILE))
    return model.to(device).eval(), tokenizer, meta
