"""Checkpoint averaging (paper §6.1: "averaging the last 5 checkpoints").

Every floating-point tensor of the result is the mean of the inputs' tensors, computed in
float64 and stored in the inputs' dtype. The inputs must share the architecture, the model
configuration and the sentencepiece model.
"""

from __future__ import annotations

from pathlib import Path

import torch

from heedful.checkpoint import (
    CONFIG_FILE,
    TOKENIZER_FILE,
    WEIGHTS_FILE,
    load_model_dir,
    load_tensors,
    load_weights,
    read_json,
    save_model_dir,
)

_STANDARD_KEYS = {"format", "architecture", "model", "data", "tokenizer", "normalization"}


def average_weights(directories: list[str | Path]) -> dict[str, torch.Tensor]:
    """The element-wise mean of the model directories' weights."""
    if not directories:
        raise ValueError("average needs at least one model directory")
    first = Path(directories[0])
    reference = read_json(first / CONFIG_FILE)
    spm = (first / TOKENIZER_FILE).read_bytes()
    total: dict[str, torch.Tensor] = {}
    dtypes: dict[str, torch.dtype] = {}
    for directory in map(Path, directories):
        meta = read_json(directory / CONFIG_FILE)
        for key in ("architecture", "model"):
            if meta.get(key) != reference.get(key):
                raise ValueError(f"{directory}: its {key} differs from {first}'s; cannot average")
        if (directory / TOKENIZER_FILE).read_bytes() != spm:
            raise ValueError(f"{directory}: its sentencepiece model differs from {first}'s")
        tensors = load_tensors(directory / WEIGHTS_FILE)
        if total and set(tensors) != set(total):
            raise ValueError(f"{directory}: its tensors are not the same as {first}'s")
        for name, value in tensors.items():
            if not total.get(name, value).shape == value.shape:
                raise ValueError(f"{directory}: {name} has shape {tuple(value.shape)}")
            dtypes[name] = value.dtype
            if value.is_floating_point():
                total[name] = total.get(name, 0) + value.to(torch.float64)
            else:
                total.setdefault(name, value)  # integer buffers: kept from the first
    n = len(directories)
    return {
        name: (value / n).to(dtypes[name]) if value.is_floating_point() else value
        for name, value in total.items()
    }


def average_model_dirs(directories: list[str | Path], out: str | Path) -> None:
    """Write a model directory ``out`` holding the average of ``directories``."""
    out = Path(out).resolve()
    if any(Path(d).resolve() == out for d in directories):
        raise ValueError(f"--out {out} is one of the inputs; write the average elsewhere")
    averaged = average_weights(directories)
    model, tokenizer, meta = load_model_dir(directories[0])
    load_weights(model, averaged, Path(directories[0]) / WEIGHTS_FILE)
    extra = {k: v for k, v in meta.items() if k not in _STANDARD_KEYS}
    extra["averaged_from"] = [str(Path(d)) for d in directories]
    save_model_dir(out, model, tokenizer, data=meta.get("data"), extra=extra)
